"""The summary `eris certify` prints at the end of a run."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TextIO

from conformance.certification.causes import causes_of
from conformance.certification.document import certified_for
from conformance.certification.judgement import WHOLE_SUITE, Certification
from conformance.certification.todo import UNNAMED, to_do_of

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
    _print_not_exercised(c, out, shown=shown)
    _print_warnings(c, out)
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
    for clause, recorded_by in c.unknown_clauses.items():
        print(f"  a clause recorded by {recorded_by[0]} is not in the catalogue (not judged): {clause}", file=out)
    print("  outputs: " + ", ".join(str(paths[name]) for name in outputs if name in paths), file=out)


IDS_SHOWN = 4
"""Requirement ids named on one line of the to-do list; the rest are counted."""


def _print_not_exercised(c: Certification, out: TextIO, *, shown: int) -> None:
    """Each MUST requirement not exercised with why and what would exercise it, then the to-do list: each thing to
    provide once, with the requirements it would exercise."""
    results = {r.requirement.id: r for r in c.requirements}
    # what a run of the whole suite alone would not exercise first: that is what the vendor has to provide
    incomplete = sorted(c.incomplete.items(), key=lambda item: results[item[0]].to_exercise == [WHOLE_SUITE])
    for requirement_id, why in incomplete[:shown]:
        print(f"  not exercised MUST {requirement_id}: {_shortened(why)}", file=out)
        to_exercise = "; ".join(results[requirement_id].to_exercise) or UNNAMED
        print(f"    to exercise: {_shortened(to_exercise, 160)}", file=out)
    if len(incomplete) > shown:
        more = len(incomplete) - shown
        print(f"  … and {more} more MUST requirements not exercised: see report.html", file=out)
    items = to_do_of(c)
    if not items:
        return
    print(
        f"  to do: {_count(len(items), 'thing')} would exercise the {_count(len(incomplete), 'MUST requirement')} "
        "not exercised",
        file=out,
    )
    for item in items[:shown]:
        ids = item.requirements
        named = ", ".join(ids[:IDS_SHOWN]) + (f" and {len(ids) - IDS_SHOWN} more" if len(ids) > IDS_SHOWN else "")
        print(f"    [ ] {_shortened(item.shown, 160)} ({named})", file=out)
    if len(items) > shown:
        print(f"    … and {len(items) - shown} more things to do: see report.html", file=out)


WARNINGS_SHOWN = 3
"""Codes named on the summary's line; report.html and certification.json list every warning."""


def _print_warnings(c: Certification, out: TextIO) -> None:
    """One line: how many warnings the validator found on served data, of which codes, and the first (they decide
    nothing, so they take no more room than that)."""
    tally = c.warnings
    listed = tally.warnings
    if not listed:
        return
    codes = Counter(w.code for w in listed).most_common()
    named = ", ".join(f"{n} {code}" for code, n in codes[:WARNINGS_SHOWN])
    if len(codes) > WARNINGS_SHOWN or tally.unlisted:
        named += f" and {sum(n for _, n in codes[WARNINGS_SHOWN:]) + tally.unlisted} more"
    first = _shortened(f"{listed[0].item} {listed[0].location or '/'}: {listed[0].message}", 120)
    total = _count(len(listed) + tally.unlisted, "warning")
    print(f"  {total} on served data, never a failure: {named}; first: {first} (see report.html)", file=out)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _shortened(text: str, length: int = 100) -> str:
    line = _one_line(text)
    return line if len(line) <= length else line[: length - 1] + "…"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
