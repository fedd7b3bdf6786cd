"""The `eris` command line: one package holding every subcommand, the top layer of the project."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from conformance.cli import certify, init, reports, serve, validate
from conformance.cli.common import EXIT_OK, fail, suite_version

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eris", description="Conformance kit for the Enterprise Resource Integration Service interface v1."
    )
    parser.add_argument("--version", action="version", version=f"eris {suite_version()}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for command_module in (validate, certify, init, serve, reports):
        command_module.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # payload text may not fit the terminal's encoding
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
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
