"""What every `eris` subcommand shares: exit statuses, the one-line failure, the version."""

from __future__ import annotations

import argparse
import math
import signal
import sys
from collections.abc import Callable
from typing import TypeVar

__all__ = [
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "add_answer_bounds",
    "fail",
    "non_empty",
    "non_negative_float",
    "port",
    "positive_float",
    "positive_int",
    "suite_version",
    "until_stopped",
]

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


def suite_version() -> str:
    """conformance.configuration.settings.suite_version, imported when first asked for: importlib.metadata costs 25 ms
    of every start, and `eris validate` with its text report never needs the version."""
    from conformance.configuration.settings import suite_version as installed

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


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20}
_UNITS |= {"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}


def size(text: str) -> int:
    """A size in bytes, or with a unit: 64KiB, 32MiB, 1GiB (K, M, G and KB, MB, GB are read as powers of 1024)."""
    number = text.strip().rstrip("bBiIkKmMgG ")
    unit = text.strip()[len(number) :].strip().lower()
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (for example 32MiB, 512KiB, 1000000)") from None
    if unit not in _UNITS:
        raise argparse.ArgumentTypeError(f"{text!r}: the unit {unit!r} is not one of B, KiB, MiB, GiB")
    return int(value * _UNITS[unit])


def add_answer_bounds(parser: argparse.ArgumentParser) -> None:
    """--request-timeout and --max-answer-size: how long and how large an answer of the target may be."""
    from conformance.configuration.settings import DEFAULT_MAX_ANSWER_SIZE, DEFAULT_REQUEST_TIMEOUT

    parser.add_argument(
        "--request-timeout",
        type=positive_float,
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help=f"time for a whole answer of the target, its body included (default {DEFAULT_REQUEST_TIMEOUT:g}); a "
        "target that answers nothing in that time, nor to one more request, has stopped answering: the run ends",
    )
    parser.add_argument(
        "--max-answer-size",
        type=size,
        default=DEFAULT_MAX_ANSWER_SIZE,
        metavar="SIZE",
        help=f"largest answer read, counted after decompression, in bytes or with KiB, MiB, GiB (default "
        f"{DEFAULT_MAX_ANSWER_SIZE >> 20}MiB); a larger answer fails its operation's requirement",
    )


async def until_stopped() -> None:
    """Return on the first SIGINT or SIGTERM: how a long-running command (serve, proxy) waits for its end."""
    import asyncio  # here: its import is ~40 ms of every start, and only serve and proxy run a loop

    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stopped.set)
    await stopped.wait()
