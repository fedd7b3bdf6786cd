"""The optional C modules of setup.py in the tests: a test of one that was not built (no C compiler at install) is
skipped saying so, unless ERIS_REQUIRE_COMPILED=1 (set by .ci/run): then it fails, so that CI never passes on the
Python code alone."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def compiled_or_skip(name: str, instead: str, *, module_level: bool = True) -> ModuleType:
    """The module profiles.`name`; where it was not built, skip (or fail) saying what runs `instead`."""
    try:
        return importlib.import_module(f"profiles.{name}")
    except ImportError:
        message = f"profiles.{name} was not built (no C compiler at install): {instead}"
        if os.environ.get("ERIS_REQUIRE_COMPILED") == "1":
            pytest.fail(f"ERIS_REQUIRE_COMPILED=1 but {message}", pytrace=False)
        pytest.skip(message, allow_module_level=module_level)
