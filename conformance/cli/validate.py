"""`eris validate`: check payloads offline against the schemas and profile rules of the contract."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO

from conformance.cli.checking import Checker, FileBatch, Lines, Span, Unit, renumbered
from conformance.cli.common import EXIT_INVALID, EXIT_OK, EXIT_UNUSABLE, fail, positive_int, suite_version
from conformance.cli.output import WRITERS
from conformance.cli.parallel import PoolBroken, default_jobs, ordered
from conformance.cli.progress import ValidateProgress
from conformance.cli.units import units
from profiles import ConfigError
from profiles.validator import RESOURCE, WRITE, Validator

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
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
    parser.add_argument(
        "--strict",
        action="store_true",
        help="where the contract leaves a form open (an Attribute code as Coding or CodeableConcept, a status in a "
        "code system of the implementation's naming), demand the reference implementation's form: those findings "
        "(code open-choice) become errors instead of information",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=positive_int,
        default=default_jobs(),
        metavar="N",
        help="processes that check payloads (default: the cores, here %(default)s); the report is in input order "
        "whatever N",
    )
    parser.set_defaults(run=_run_validate)


def _run_validate(args: argparse.Namespace) -> int:
    try:
        validator = Validator.for_config(args.config, strict=args.strict)
    except ConfigError as error:
        return fail(f"configuration: {error}")
    if args.resource_type and args.resource_type not in validator.contract.resources:
        return fail(f"unknown --resource-type {args.resource_type!r}; known: {', '.join(validator.resource_types)}")
    if args.profile and validator.resolve_profile(args.profile, args.resource_type) is None:
        known = ", ".join(sorted(validator.contract.profiles))
        return fail(
            f"unknown --profile {args.profile!r}"
            + (f" for {args.resource_type}" if args.resource_type else "")
            + f"; known: {known}"
        )
    output = Path(args.output).resolve() if args.output else None
    if output is not None and any(Path(p).resolve() == output for p in args.paths if p != "-"):
        return fail(f"--output {args.output} is also an input; choose another file")
    stream: IO[str]
    if output is None:
        stream = sys.stdout
    else:
        import tempfile  # here: a run writing to stdout starts without it (and shutil, random: ~3 ms)

        try:  # the report goes to a temporary file first: a failed run never leaves half a report
            stream = tempfile.NamedTemporaryFile(  # noqa: SIM115
                "w", encoding="utf-8", dir=output.parent, prefix=f".{output.name}.", delete=False
            )
        except OSError as error:
            return fail(f"cannot write {args.output}: {error.strerror}")
    writer = WRITERS[args.format](stream, suite_version)
    checker = Checker(validator, args.resource_type, args.profile, WRITE if args.write else RESOURCE)
    completed = False
    progress = ValidateProgress(sys.stderr, args.paths)
    try:
        for checked in renumbered(ordered(checker.check, units(args.paths, skip=output), args.jobs)):
            writer.checked(checked)
            progress.advance(checked)
        progress.close()
        writer.finish()
        completed = True
    except PoolBroken as broken:
        lost = "the report stops before it, without its summary" if output is None else f"{args.output} was not written"
        return fail(f"{broken} while checking {_where(broken.unit)}; {lost}")
    finally:
        progress.close()
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


def _where(unit: Unit) -> str:
    """The input a unit of work holds, for a message."""
    if isinstance(unit, Span):
        return f"{unit.source} from byte {unit.start}"
    if isinstance(unit, Lines):
        return f"{unit.source} from line {unit.first_line}"
    if isinstance(unit, FileBatch):
        more = f" and {len(unit.paths) - 1} file(s) after it" if len(unit.paths) > 1 else ""
        return f"{unit.paths[0]}{more}"
    sources = [item.source for item in unit.items]
    return sources[0] if sources else "payloads already read"
