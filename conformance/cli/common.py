"""What every `eris` subcommand shares: exit statuses, the one-line failure, the version."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import TypeVar

__all__ = [
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "fail",
    "non_empty",
    "non_negative_float",
    "port",
    "positive_float",
    "positive_int",
    "suite_version",
]

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


def suite_version() -> str:
    """conformance.settings.suite_version, imported when first asked for: importlib.metadata costs 25 ms of every
    start, and `eris validate` with its text report never needs the version."""
    from conformance.settings import suite_version as installed

    return installed()


def fail(message: str, code: int = EXIT_UNUSABLE) -> int:
    """Print `eris: message` on stderr and return the exit status `code`."""
    print(f"eris: {message}", file=sys.stderr)
    return code


N = TypeVar("N", int, float)

# argparse types: a bad value is argparse's one-line usage error (exit 2), never a traceback further on


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    return _holding(_whole(text), lambda n: 0 <= n <= 65535, "a port is 0 to 65535", text)


def positive_int(text: str) -> int:
    return _holding(_whole(text), lambda n: n >= 1, "must be 1 or more", text)


def positive_float(text: str) -> float:
    return _holding(_finite(text), lambda n: n > 0, "must be more than 0", text)


def non_negative_float(text: str) -> float:
    return _holding(_finite(text), lambda n: n >= 0, "must be 0 or more", text)


def _holding(number: N, holds: Callable[[N], bool], wanted: str, text: str) -> N:
    if not holds(number):
        raise argparse.ArgumentTypeError(f"{wanted}, not {text}")
    return number


def non_empty(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _finite(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return number
