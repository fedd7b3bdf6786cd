"""The `eris` command line."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TextIO

from conformance.inputs import Payload, iter_payloads
from conformance.output import WRITERS
from conformance.validator import RESOURCE, WRITE, Validator
from profiles import ConfigError

EXIT_OK, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


def _version() -> str:
    try:
        return version("eris")
    except PackageNotFoundError:
        return "0+checkout"


def _validate_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate",
        help="check JSON payloads against the contract's schemas and profile rules (offline)",
        description="Check payloads against the schemas and profile rules of the contract. A document may be "
        "one resource, an array of resources, or NDJSON (one resource a line). Exit 0: no errors (warnings "
        "allowed); 1: errors; 2: an input could not be read or the options are wrong.",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="file, folder (searched for .json/.ndjson/.jsonl), or - for stdin"
    )
    parser.add_argument(
        "--write", action="store_true", help="check write bodies (POST/PATCH) instead of resources as served"
    )
    parser.add_argument(
        "--resource-type", metavar="TYPE", help="type of payloads without resourceType, e.g. ReportOrder"
    )
    parser.add_argument("--profile", metavar="NAME|URL", help="check against this profile whatever the payload claims")
    parser.add_argument("--format", choices=sorted(WRITERS), default="text", help="output format (default: text)")
    parser.add_argument("--config", metavar="FILE.toml", help="installation placeholders ([installation] table)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    parser.set_defaults(run=_run_validate)


def _fail(message: str) -> int:
    print(f"eris: {message}", file=sys.stderr)
    return EXIT_UNUSABLE


def _run_validate(args: argparse.Namespace) -> int:
    try:
        validator = Validator.for_config(args.config)
    except ConfigError as error:
        return _fail(f"configuration: {error}")
    if args.resource_type and args.resource_type not in validator.contract.resources:
        return _fail(f"unknown --resource-type {args.resource_type!r}; known: {', '.join(validator.resource_types)}")
    if args.profile and validator.resolve_profile(args.profile, args.resource_type) is None:
        known = ", ".join(sorted(validator.contract.profiles))
        return _fail(
            f"unknown --profile {args.profile!r}"
            + (f" for {args.resource_type}" if args.resource_type else "")
            + f"; known: {known}"
        )
    output = Path(args.output).resolve() if args.output else None
    if output is not None and any(Path(p).resolve() == output for p in args.paths if p != "-"):
        return _fail(f"--output {args.output} is also an input; choose another file")
    stream: TextIO
    if output is None:
        stream = sys.stdout
    else:
        try:  # the report goes to a temporary file first: a failed run never leaves half a report
            stream = tempfile.NamedTemporaryFile(  # noqa: SIM115
                "w", encoding="utf-8", dir=output.parent, prefix=f".{output.name}.", delete=False
            )
        except OSError as error:
            return _fail(f"cannot write {args.output}: {error.strerror}")
    writer = WRITERS[args.format](stream, _version())
    context = WRITE if args.write else RESOURCE
    completed = False
    try:
        for item in iter_payloads(args.paths, skip=output):
            if isinstance(item, Payload):
                issues = validator.validate(
                    item.data, resource_type=args.resource_type, profile=args.profile, context=context
                )
                writer.payload(item, issues)
            else:
                writer.problem(item)
        writer.finish()
        completed = True
    finally:
        if output is not None:
            stream.close()
            if completed:
                os.replace(stream.name, output)
            else:
                os.unlink(stream.name)
    tally = writer.tally
    if tally.unreadable:
        return EXIT_UNUSABLE
    return EXIT_INVALID if tally.invalid else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eris", description="Conformance kit for the Enterprise Resource Integration Service interface v1."
    )
    parser.add_argument("--version", action="version", version=f"eris {_version()}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    _validate_parser(commands)
    from conformance.certify_cli import add_commands as add_certify_commands
    from reference_impl.serve_cli import add_commands as add_serve_commands
    from reports.cli import add_commands as add_report_commands

    add_certify_commands(commands)
    add_serve_commands(commands)
    add_report_commands(commands)
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
