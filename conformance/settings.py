"""Settings of a certification run that several layers read: the suite's version and its defaults."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["DEFAULT_EXAMPLES", "suite_version"]

DEFAULT_EXAMPLES = 20
"""Examples per property of the property phase: a full run of the embedded reference implementation stays under
90 s on two cores (bench/certify.py)."""


def suite_version() -> str:
    """The version of the installed eris distribution, which is the version of its conformance suite; 0+checkout
    when run from a checkout that was never installed."""
    try:
        return version("eris")
    except PackageNotFoundError:
        return "0+checkout"
