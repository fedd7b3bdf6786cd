"""The `eris` command line: one package holding every subcommand, the top layer of the project."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from conformance.cli.common import EXIT_OK, fail, suite_version

__all__ = ["build_parser", "main"]


_MODULES = ("validate", "certify", "verify", "init", "serve", "reports", "proxy")
_LIGHT = {"validate": "validate", "init": "init"}
"""Commands whose module is all they need: `eris validate` in a pre-commit hook starts without the server's and
the HTTP client's imports (0.6 s instead of 0.2 s before the first payload)."""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, when `argv` names a light command, of that command alone."""
    parser = argparse.ArgumentParser(
        prog="eris", description="Conformance kit for the Enterprise Resource Integration Service interface v1."
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version of eris and exit")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    named = next((argument for argument in argv or () if not argument.startswith("-")), None)
    for name in (_LIGHT[named],) if named in _LIGHT else _MODULES:
        importlib.import_module(f"conformance.cli.{name}").add_commands(commands)
    return parser


class _Version(argparse.Action):
    """--version, the version looked up only when asked for (importlib.metadata costs 25 ms of every start)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"eris {suite_version()}")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # payload text may not fit the terminal's encoding
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = build_parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a defect of eris or an environment it did not foresee: one line, not a traceback
        if os.environ.get("ERIS_DEBUG"):
            raise
        return fail(f"{type(error).__name__}: {error} (ERIS_DEBUG=1 shows the traceback)")


if __name__ == "__main__":
    sys.exit(main())
