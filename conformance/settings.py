"""Settings of a certification run that several layers read: the suite's version and its defaults."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["DEFAULT_EXAMPLES", "suite_version"]

DEFAULT_EXAMPLES = 12
"""Examples per property of the property phase. Generating them is most of the phase's cost (hypothesis and
schemathesis): with 12 a full run of the embedded reference implementation takes about 15 s on two shared cores
(bench/certify.py), with 264 generated requests and three walks of the links; 20, the default until 2026-11, gives
440 and five, and one to four seconds more."""


def suite_version() -> str:
    """The version of the installed eris distribution, which is the version of its conformance suite; 0+checkout
    when run from a checkout that was never installed."""
    try:
        return version("eris")
    except PackageNotFoundError:
        return "0+checkout"
