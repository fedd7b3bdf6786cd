"""What every `eris` subcommand shares: exit statuses, the one-line failure, the version."""

from __future__ import annotations

import argparse
import math
import sys

from conformance.settings import suite_version

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


def fail(message: str, code: int = EXIT_UNUSABLE) -> int:
    """Print `eris: message` on stderr and return the exit status `code`."""
    print(f"eris: {message}", file=sys.stderr)
    return code


# argparse types: a bad value is argparse's one-line usage error (exit 2), never a traceback further on


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    number = _whole(text)
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {text}")
    return number


def positive_int(text: str) -> int:
    number = _whole(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return number


def positive_float(text: str) -> float:
    number = _finite(text)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return number


def non_negative_float(text: str) -> float:
    number = _finite(text)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
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
