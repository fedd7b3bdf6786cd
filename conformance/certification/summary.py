"""The summary `eris certify` prints at the end of a run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TextIO

from conformance.certification.causes import causes_of
from conformance.certification.document import certified_for
from conformance.certification.judgement import Certification

__all__ = ["print_summary"]


def print_summary(
    c: Certification, paths: dict[str, Path], out: TextIO, *, shown: int, outputs: tuple[str, ...]
) -> None:
    """The verdict, what it covers, the counts, and the first `shown` failures and unexercised requirements."""
    counts, tests = c.counts, c.test_counts
    print(f"\neris certify: {c.verdict.upper()} — {c.base_url}", file=out)
    print(f"  certified for: {certified_for(c)}" + (f"; selection: {c.selection}" if c.selection else ""), file=out)
    print(
        f"  requirements: {', '.join(f'{n} {status}' for status, n in counts.items())} (of {len(c.requirements)})",
        file=out,
    )
    seconds = (c.finished - c.started).total_seconds()
    print(f"  tests: {', '.join(f'{n} {outcome}' for outcome, n in tests.items())} in {seconds:.1f} s", file=out)
    if c.properties.get("examples"):
        print(
            f"  property phase: {c.properties['examples']} examples a property, seed {c.properties['seed']} "
            f"(--seed {c.properties['seed']} repeats it)",
            file=out,
        )
    failed = {r.requirement.id: r for r in c.requirements if r.status == "failed"}
    causes = causes_of(c)
    if len(causes) < len(failed):
        print(
            f"  {len(failed)} failed requirements from {len(causes)} causes (grouped by their first failure)", file=out
        )
    for cause in causes[:shown]:
        result = failed[cause.lead]
        mark = " (expected)" if result.expected else ""
        requirement = result.requirement
        print(f"  failed {requirement.level} {requirement.id}{mark}: {_shortened(result.message)}", file=out)
        if len(cause.requirements) > 1:
            print(f"    the same cause also failed: {', '.join(cause.requirements[1:])}", file=out)
    if len(causes) > shown:
        print(f"  … and {len(causes) - shown} more causes of failed requirements: see report.html", file=out)
    incomplete = list(c.incomplete.items())
    for requirement_id, why in incomplete[:shown]:
        print(f"  not exercised MUST {requirement_id}: {_shortened(why)}", file=out)
    if len(incomplete) > shown:
        more = len(incomplete) - shown
        print(f"  … and {more} more MUST requirements not exercised: see report.html", file=out)
    for entry in c.expected.expired:
        print(f"  expected failure expired on {entry.until}: {entry.requirement_id} ({entry.reason})", file=out)
    if c.fixed:
        print(f"  fixed (listed as expected failures, but passed): {', '.join(c.fixed)}", file=out)
    if c.unmatched_expected:
        unmatched = ", ".join(c.unmatched_expected)
        print(f"  expected-failure entries naming no catalogue requirement: {unmatched}", file=out)
    if c.unknown:
        unknown = list(c.unknown)
        more = f" and {len(unknown) - shown} more" if len(unknown) > shown else ""
        print(
            f"  {len(unknown)} requirement ids cited by tests are not in the catalogue (not judged): "
            f"{', '.join(unknown[:shown])}{more}",
            file=out,
        )
    print("  outputs: " + ", ".join(str(paths[name]) for name in outputs if name in paths), file=out)


def _shortened(text: str) -> str:
    line = _one_line(text)
    return line if len(line) <= 100 else line[:99] + "…"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
