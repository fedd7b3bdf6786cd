"""What every `eris` subcommand shares: exit statuses, the one-line failure, the version."""

from __future__ import annotations

import sys

from conformance.settings import suite_version

__all__ = ["EXIT_INVALID", "EXIT_OK", "EXIT_UNUSABLE", "fail", "suite_version"]

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


def fail(message: str, code: int = EXIT_UNUSABLE) -> int:
    """Print `eris: message` on stderr and return the exit status `code`."""
    print(f"eris: {message}", file=sys.stderr)
    return code
