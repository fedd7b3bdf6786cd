"""`eris certify` and `eris requirements`: certify a target; list the catalogue with its test coverage."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TypedDict

from conformance.catalogue.requirements import SUITE_DIR, coverage, load_catalogue
from conformance.cli.common import add_answer_bounds
from conformance.configuration.settings import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXAMPLES,
    DEFAULT_RUN_TIMEOUT,
)

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
    certify = commands.add_parser(
        "certify",
        help="run the conformance suite against a target and write a certification report",
        description="Run the conformance suite against an implementation and write certification.json, "
        "report.html, traffic.har and junit.xml. Without --target or --config, the embedded reference "
        "implementation is started and certified. Exit 0: conformant; 1: non-conformant (a MUST requirement "
        "failed); 2: the run could not be made (bad options or description, target unreachable); 3: incomplete "
        "(no MUST failed, but an applicable MUST requirement was skipped, deselected or not exercised).",
    )
    certify.add_argument("--target", metavar="URL", help="base URL of the implementation, without /v1")
    certify.add_argument(
        "--config", metavar="FILE.toml", help="conformance target description (see `eris serve --write-config`)"
    )
    certify.add_argument("--token", help="Bearer token holding the retrospective-report right (overrides the file)")
    certify.add_argument(
        "--report-dir", default="certification", metavar="DIR", help="where the outputs go (default certification)"
    )
    certify.add_argument(
        "--expected-failures",
        metavar="FILE",
        help="requirements known to fail, one a line as `ERIS-XXX-NNN: reason` with an optional "
        "`(until YYYY-MM-DD)`: reported, not counted",
    )
    certify.add_argument(
        "--delivery-timeout",
        type=float,
        metavar="SECONDS",
        help="how long a report delivery or notification is waited for",
    )
    certify.add_argument("--workers", type=int, metavar="N", help="run the tests in N processes (needs pytest-xdist)")
    certify.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests of a test that do not depend on each other sent at once, at most N (default "
        f"{DEFAULT_CONCURRENCY}; 1: one after another)",
    )
    certify.add_argument(
        "--backoff",
        type=float,
        default=DEFAULT_BACKOFF,
        metavar="SECONDS",
        help=f"wait after a 429 without Retry-After, doubled with each 429 in a row up to 30 s (default "
        f"{DEFAULT_BACKOFF:g}); a 429 with Retry-After is waited out as it says",
    )
    certify.add_argument("-k", dest="keyword", metavar="EXPR", help="only the tests matching this pytest -k expression")
    certify.add_argument(
        "--requirement",
        action="append",
        default=[],
        metavar="ID",
        help="only the tests citing this requirement (repeatable; with -k, both must hold)",
    )
    certify.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"generated examples per property in the property phase (default {DEFAULT_EXAMPLES}; 0 leaves it out)",
    )
    certify.add_argument(
        "--seed", type=int, metavar="N", help="seed of the property phase (default: a new one, printed and reported)"
    )
    certify.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME",
        help="certify the embedded reference implementation with this fault (repeatable; `eris deviations`)",
    )
    certify.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="certify the embedded reference implementation with this conformant variant (repeatable)",
    )
    add_answer_bounds(certify)
    certify.add_argument(
        "--run-timeout",
        type=float,
        default=DEFAULT_RUN_TIMEOUT,
        metavar="SECONDS",
        help=f"time for the whole run (default {DEFAULT_RUN_TIMEOUT:g}); past it the run ends with exit 2 and "
        "outputs for what was done",
    )
    certify.add_argument("--quiet", "-q", action="store_true", help="print the summary only, not the progress")
    certify.add_argument("--suite", default=str(SUITE_DIR), help=argparse.SUPPRESS)  # the project's own tests
    certify.set_defaults(run=run_certify_command)

    requirements = commands.add_parser(
        "requirements",
        help="list the requirement catalogue with the number of conformance tests citing each requirement",
        description="List every requirement of the catalogue with its level and the conformance tests that cite "
        "it (read from the suite's source, nothing is run).",
    )
    requirements.add_argument("--untested", action="store_true", help="only the requirements no test cites")
    requirements.add_argument(
        "--trace",
        metavar="ID",
        help="where one requirement is carried: its contract sentence, data, rule functions, tests, faults of the "
        "self-test and the reference implementation's code, as path:line",
    )
    requirements.add_argument("--format", choices=("text", "json"), default="text", help="default text")
    requirements.add_argument("--suite", default=str(SUITE_DIR), help=argparse.SUPPRESS)
    requirements.set_defaults(run=run_requirements)


def run_certify_command(args: argparse.Namespace) -> int:
    from conformance.run.certify import CertifyOptions, run_certify

    return run_certify(
        CertifyOptions(
            target=args.target,
            config=args.config,
            token=args.token,
            report_dir=Path(args.report_dir),
            expected_failures=args.expected_failures,
            delivery_timeout=args.delivery_timeout,
            workers=args.workers,
            concurrency=args.concurrency,
            backoff=args.backoff,
            keyword=args.keyword,
            requirements=tuple(args.requirement),
            examples=args.examples,
            seed=args.seed,
            faults=tuple(args.fault),
            variants=tuple(args.variant),
            request_timeout=args.request_timeout,
            max_answer_size=args.max_answer_size,
            run_timeout=args.run_timeout,
            quiet=args.quiet,
            suite_dir=Path(args.suite),
        )
    )


def run_trace(args: argparse.Namespace) -> int:
    from conformance.catalogue.trace import Tracer, UnknownRequirement

    try:
        found = Tracer(suite_dir=Path(args.suite)).trace(args.trace)
    except UnknownRequirement as error:
        print(f"eris: {error.args[0]}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"eris: {error}", file=sys.stderr)
        return 2
    print(json.dumps(found.to_json(), indent=2, ensure_ascii=False) if args.format == "json" else found.to_text())
    return 0


class _RequirementRow(TypedDict):
    """A row of `eris requirements`: the catalogue's requirement and the tests citing it."""

    id: str
    level: str
    section: str
    text: str
    clauses: list[str]
    tests: list[str]


def run_requirements(args: argparse.Namespace) -> int:
    if args.trace:
        return run_trace(args)
    try:
        catalogue = load_catalogue()
        cited = coverage(args.suite)
    except ValueError as error:
        print(f"eris: {error}", file=sys.stderr)
        return 2
    rows: list[_RequirementRow] = [
        {
            "id": r.id,
            "level": r.level,
            "section": r.section,
            "text": r.text,
            "clauses": list(r.clauses),
            "tests": cited.get(r.id, []),
        }
        for r in catalogue
        if not (args.untested and cited.get(r.id))
    ]
    known = {r.id for r in catalogue}
    unknown = {key: tests for key, tests in sorted(cited.items()) if key not in known}
    if args.format == "json":
        print(json.dumps({"requirements": rows, "unknown": unknown}, indent=2, ensure_ascii=False))
        return 0
    width = max((len(row["id"]) for row in rows), default=0)
    for row in rows:
        count = len(row["tests"])
        text = row["text"] if len(row["text"]) <= 70 else row["text"][:69] + "…"
        print(f"{row['id']:<{width}}  {row['level']:<6} {count:>3} test{'' if count == 1 else 's'}  {text}")
        if row["clauses"]:
            print(f"{'':<{width}}  clauses: {'; '.join(row['clauses'])}")
    untested = [r for r in catalogue if not cited.get(r.id)]
    must = sum(r.level == "MUST" for r in untested)
    print(
        f"{len(catalogue)} requirements: {len(catalogue) - len(untested)} cited by a test, "
        f"{len(untested)} by none ({must} of them MUST)"
    )
    for key, tests in unknown.items():
        print(f"eris: {key} is cited by {', '.join(tests)} but is not in the catalogue", file=sys.stderr)
    return 0
