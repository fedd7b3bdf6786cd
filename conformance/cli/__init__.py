"""The `eris` command line: one package holding every subcommand, the top layer of the project."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from conformance.cli import certify, init, reports, serve, validate
from conformance.cli.common import EXIT_OK, suite_version

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


if __name__ == "__main__":
    sys.exit(main())
