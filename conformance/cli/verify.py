"""`eris verify DIR`: re-derive a certification's statuses offline from its recorded traffic."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
    verify = commands.add_parser(
        "verify",
        help="re-derive a certification's statuses offline from its traffic.har",
        description="Run the suite that made the certification in DIR again, with its seeds and options, against a "
        "replay of its traffic.har (no target needed), and print each requirement's recorded and re-derived status. "
        "Exit 0: every status and the verdict re-derived as recorded; 1: a difference, named (a changed file, "
        "another suite or contract, the first status that differs); 2: no certification to re-check in DIR.",
    )
    verify.add_argument("directory", metavar="DIR", type=Path, help="the folder eris certify --report-dir wrote")
    verify.add_argument(
        "--with-installed-suite",
        action="store_true",
        help="re-derive even when the certification was made by another version of eris or on other contract data",
    )
    verify.add_argument(
        "--report-dir",
        type=Path,
        metavar="OUT",
        help="keep the re-derived certification's outputs there (its report shows why a status differs)",
    )
    verify.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from conformance.run.verify import VerifyOptions, run_verify

    return run_verify(
        VerifyOptions(args.directory, with_installed_suite=args.with_installed_suite, report_dir=args.report_dir)
    )
