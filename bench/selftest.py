"""The self-test of the conformance suite, in full: one complete `eris certify` (property phase included) of
the embedded reference implementation per fault and per conformant variant of conformance.deviations.

    python bench/selftest.py [--jobs 2] [--examples 20] [--seed 1] [--only NAME ...] [--markdown]

Prints one line per deviation as it finishes, then the kill rate (faults whose certification failed and named
the fault's requirement) and the false-positive count (variants whose certification was not conformant), the
wall time, and with --markdown a table of each deviation's certification (bench/README.md gives the latest run).
Target: every fault killed, no false positive.
Exit 1 when a fault survived, a variant was failed, or a run could not be made.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from machine import checkout_state, load_average

# bench/ is first on the path when this file runs as a script, and bench/reports.py would hide the reports
# package that the reference implementation imports
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

from conformance.catalogue.requirements import load_catalogue  # noqa: E402
from conformance.deviations import FAULT, catalogue  # noqa: E402
from conformance.generation.key_pairs import use_stock  # noqa: E402
from conformance.selftest.runner import Outcome, isolation_line, kill_table, run_selftest, summary_line  # noqa: E402


def _line(outcome: Outcome) -> str:
    d = outcome.deviation
    failed = ", ".join(outcome.failed[:4]) + (" …" if len(outcome.failed) > 4 else "")
    extra = f"  [{outcome.detail}]" if outcome.detail else ""
    head = f"{outcome.result:15} {d.kind:7} {d.name:55} {d.requirement or '':17}"
    return f"{head} {outcome.seconds:5.1f} s  {failed}{extra}"


def markdown(outcomes: list[Outcome]) -> str:
    rows = [
        "| deviation | kind | breaks | what it does | certification |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        d = o.deviation
        others = len(o.failed) - 1
        spread = f" (and {others} more MUST, {o.causes} causes)" if others > 0 else ""
        verdict = {
            "killed": f"non-conformant, {d.requirement} failed{spread}",
            "passed": "conformant",
        }.get(o.result, o.result)
        rows.append(f"| `{d.name}` | {d.kind} | {d.requirement or '(open)'} | {d.summary} | {verdict} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="certifications at a time (default 2)")
    parser.add_argument(
        "--examples", type=int, default=20, help="property-phase examples (default 20, as bench/README.md's run)"
    )
    parser.add_argument("--seed", type=int, default=1, help="property-phase seed (default 1)")
    parser.add_argument("--only", nargs="*", metavar="NAME", help="these deviations only")
    parser.add_argument("--markdown", action="store_true", help="print a table of the certifications too")
    args = parser.parse_args()
    chosen = [d for d in catalogue() if not args.only or d.name in args.only]
    faults = sum(d.kind == FAULT for d in chosen)
    state = checkout_state(["conformance", "reference_impl"], "the suite or the reference implementation")
    print(f"machine: load {load_average()}; commit {state}")
    print(
        f"{faults} faults, {len(chosen) - faults} variants; full certification each, {args.jobs} at a time, "
        f"--examples {args.examples} --seed {args.seed}"
    )
    use_stock()
    started = time.monotonic()
    outcomes = run_selftest(
        chosen,
        focused=False,
        examples=args.examples,
        seed=args.seed,
        jobs=args.jobs,
        progress=lambda outcome: print(_line(outcome), flush=True),
    )
    wall = time.monotonic() - started
    seconds = [o.seconds for o in outcomes]
    print(f"\n{summary_line(outcomes)}")
    print(isolation_line(outcomes))
    if not args.only:
        print("\nkill table, per MUST requirement:")
        print("\n".join(kill_table(outcomes, load_catalogue())))
    print(
        f"wall time {wall:.0f} s; a certification: median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s"
    )
    if args.markdown:
        print("\n" + markdown(outcomes))
    return 0 if all(o.as_expected for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
