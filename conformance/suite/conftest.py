"""Fixtures every part of the suite shares (the target, its client and the receiver are the plugin's)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suite.support.discovery import Discovery


@pytest.fixture(scope="module")
def discovery(api: Any, contract: Any, validator: Any) -> Discovery:
    """The target's data, discovered through its reads, once a test module."""
    return Discovery(api, contract, validator)
