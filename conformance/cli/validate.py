"""`eris validate`: check payloads offline against the schemas and profile rules of the contract."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from conformance.cli.checking import Checker, FileBatch, Lines, Span, Unit, renumbered
from conformance.cli.common import EXIT_INVALID, EXIT_OK, EXIT_UNUSABLE, fail, positive_int, suite_version
from conformance.cli.encoding import UnitEncoder
from conformance.cli.output import WRITERS, Writer
from conformance.cli.parallel import PoolBroken, ordered
from conformance.cli.progress import ValidateProgress
from conformance.cli.units import units
from conformance.configuration.settings import usable_cores
from profiles import ConfigError
from profiles.validator import RESOURCE, WRITE, Validator

if TYPE_CHECKING:  # imported when a HAR file is read: a run of payloads starts without them
    from conformance.client.har_exchanges import BaseUrl
    from conformance.exchange_judge import ExchangeJudge

__all__ = ["add_commands"]

HAR_SUFFIX = ".har"


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate",
        help="check JSON payloads, or the exchanges of HAR files, against the contract (offline)",
        description="Check payloads against the schemas and profile rules of the contract. A document may be "
        "one resource, an array of resources, or NDJSON (one resource a line). A HAR file (.har, or any input with "
        "--format-in har) is judged exchange by exchange: the request and the answer of every entry whose path is "
        "an operation of the contract, each finding the client's or the server's. Exit 0: no errors (warnings "
        "allowed); 1: errors; 2: an input could not be read or the options are wrong.",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="file, folder (searched for .json/.ndjson/.jsonl and .har), or - for stdin",
    )
    parser.add_argument(
        "--format-in",
        choices=("json", "har"),
        default="json",
        help="json (the default): payloads, and .har files as HAR; har: every input, stdin too, is a HAR file",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="HAR files: where the service's paths start, e.g. https://erp.example/api (default: the scheme, host "
        "and port of the first entry); entries outside it are reported once, as information",
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
        default=usable_cores(),
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
    # the contract, its schemas and rules live as long as the run: the collector's full passes, which the payloads
    # kept for explanation set off, need not walk them (two such passes took 100 ms of a 3 s run of a warned mix)
    gc.freeze()
    try:
        return _validated(args, validator)
    finally:
        gc.unfreeze()  # a caller in the same process (a test) collects them again


def _validated(args: argparse.Namespace, validator: Validator) -> int:
    if args.resource_type and args.resource_type not in validator.contract.resources:
        return fail(f"unknown --resource-type {args.resource_type!r}; known: {', '.join(validator.resource_types)}")
    if args.profile and validator.resolve_profile(args.profile, args.resource_type) is None:
        known = ", ".join(sorted(validator.contract.profiles))
        return fail(
            f"unknown --profile {args.profile!r}"
            + (f" for {args.resource_type}" if args.resource_type else "")
            + f"; known: {known}"
        )
    base_url = None
    if args.base_url is not None:
        from conformance.client.har_exchanges import BaseUrl

        try:
            base_url = BaseUrl.of(args.base_url)
        except ValueError as error:
            return fail(f"--base-url: {error}")
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
    # the report's text is written where a unit is checked: a worker sends back text, not objects to pickle
    encode = UnitEncoder(checker.check, args.format)
    completed = False
    progress = ValidateProgress(sys.stderr, args.paths)
    exchanges = _HarJudging(validator, base_url)
    try:
        for kind, inputs in _inputs(args.paths, args.format_in, output):
            if kind == "har":
                exchanges.judge(inputs[0], writer)
                continue
            for found in renumbered(ordered(encode, units(inputs, skip=output), args.jobs)):
                writer.encoded(found)
                progress.advance(found.clean + found.reported, found.invalid, found.size)
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


def _inputs(paths: list[str], format_in: str, skip: Path | None) -> Iterator[tuple[str, list[str]]]:
    """The inputs in order, as runs of payload inputs ("json", paths) and HAR files ("har", [path]) one at a time."""
    run: list[str] = []
    for path in paths:
        hars = _hars(path, format_in, skip)
        if not hars:
            run.append(path)
            continue
        if Path(path).is_dir():
            from conformance.cli.inputs import json_file_names

            run += json_file_names(Path(path), skip)
        if run:
            yield "json", run
            run = []
        for har in hars:
            yield "har", [har]
    if run:
        yield "json", run


def _hars(path: str, format_in: str, skip: Path | None) -> list[str]:
    """The HAR files an input is or holds."""
    if path == "-":
        return [path] if format_in == "har" else []
    target = Path(path)
    if target.is_dir():
        return [str(found) for found in _har_files(target) if skip is None or found.resolve() != skip]
    is_har = format_in == "har" or target.suffix.lower() == HAR_SUFFIX
    return [path] if is_har else []


def _har_files(folder: Path) -> list[Path]:
    """The .har files below `folder` (symbolic links to folders not followed), in the order of their paths."""
    found = []
    for root, folders, files in os.walk(folder):
        folders.sort()
        found += [Path(root) / name for name in sorted(files) if name.lower().endswith(HAR_SUFFIX)]
    return found


class _HarJudging:
    """HAR files judged exchange by exchange, in the command's process (the entries of one file stream in order)."""

    def __init__(self, validator: Validator, base_url: BaseUrl | None) -> None:
        self.validator, self.base_url = validator, base_url
        self._judge: ExchangeJudge | None = None

    def judge(self, path: str, writer: Writer) -> None:
        from conformance.cli.har_input import HarUnreadable, judged_entries
        from conformance.cli.inputs import ReadProblem
        from conformance.exchange_judge import ExchangeJudge

        if self._judge is None:
            self._judge = ExchangeJudge(self.validator)
        source = "<stdin>" if path == "-" else path
        try:
            stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
        except OSError as error:
            writer.problem(ReadProblem(source, f"cannot be read: {error.strerror}"))
            return
        try:
            for entry in judged_entries(source, stream, self._judge, self.base_url):
                writer.exchange(entry)
        except HarUnreadable as error:
            writer.problem(ReadProblem(source, str(error)))
        except OSError as error:
            writer.problem(ReadProblem(source, f"cannot be read: {error.strerror}"))
        finally:
            if path != "-":
                stream.close()


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
