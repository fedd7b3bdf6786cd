"""What report.html shows, collected from a certification as plain data for its templates: which facts, which
lists, which requirements in which order, which tests folded, which exchanges and how each body reads. Nothing
here writes markup; the templates beside this module lay the data out (html_report.py renders them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conformance.catalogue.requirements import FEATURES
from conformance.certification.causes import causes_of
from conformance.certification.document import certified_for
from conformance.certification.har import entry_numbers
from conformance.certification.judgement import FAILED, FAILING, STATUSES, TEST_OUTCOMES
from conformance.certification.report_exchanges import ExchangeView, exchange_view
from conformance.certification.todo import UNNAMED, ToDo, to_do_of
from conformance.client.traffic import Exchange

if TYPE_CHECKING:
    from conformance.certification.causes import Cause
    from conformance.certification.clauses import ClauseResult
    from conformance.certification.judgement import Certification, RequirementResult
    from conformance.evidence.outcomes import TestOutcome

__all__ = ["FAILED_FIRST", "FOLDED_LIST", "Page", "anchor_of", "page_of", "test_anchor"]

FOLDED_TESTS = 3
"""More passing or skipped tests of one requirement than this are folded under their counts."""
EXCHANGES_SHOWN = 8
"""The last exchanges of a failing test shown: the failure usually follows the last request."""
FAILING_IN_SIGHT = 10
"""More failing tests of one requirement than this are folded after the first ones."""
FOLDED_LIST = 12
"""Longer lists of the summary (requirements not exercised, ...) are folded under their length."""
ROW_EXCHANGES = 3
"""The last exchanges of a requirement's first failing test shown in its row; all of them are under Failing tests."""
FAILED_FIRST = (FAILED, *(status for status in STATUSES if status != FAILED))
VERDICT_RULE = (
    "non-conformant when a MUST requirement failed (INFO never fails; listed expected failures do not count); "
    "else incomplete when an applicable MUST requirement was not exercised; else conformant"
)


@dataclass(frozen=True)
class IdList:
    """A list of the summary: requirement ids (linked to their rows) or lines of text."""

    title: str
    items: list[str]
    note: str = ""
    linked: bool = False

    @property
    def folded(self) -> bool:
        return len(self.items) > FOLDED_LIST


@dataclass(frozen=True)
class TestItem:
    nodeid: str
    outcome: str
    expected: bool
    failing: bool


@dataclass(frozen=True)
class TestsCell:
    """The tests of a requirement: failing ones in sight (past FAILING_IN_SIGHT folded), the others folded under
    their counts when there are many."""

    in_sight: list[TestItem]
    more_failing: list[TestItem]
    others: list[TestItem]
    others_counts: str
    """"2 passed, 1 skipped" when the others are folded under it; "" when they are in sight."""


@dataclass(frozen=True)
class FirstCause:
    """A failed requirement's first message, the requirements failed by the same cause, and the exchanges of its
    first failing test."""

    message: str
    also_failed: list[str]
    same_as: str
    test: str
    shown: str
    """How many exchanges are shown ("the last 3 of 7 exchanges")."""
    exchanges: list[ExchangeView]


@dataclass(frozen=True)
class Row:
    result: RequirementResult
    first_cause: FirstCause | None
    clauses: list[ClauseResult]
    to_exercise: str
    tests: TestsCell


@dataclass(frozen=True)
class Part:
    name: str
    counts: str
    rows: list[Row]


@dataclass(frozen=True)
class Failure:
    test: TestOutcome
    expected: bool
    cited: list[tuple[str, str]]
    """Each requirement the test cites, with its level."""
    not_counted: str
    """Why the failure does not count against the verdict ("" when it does)."""
    exchange_count: int
    exchanges: list[ExchangeView]


@dataclass(frozen=True)
class Page:
    certification: Certification
    target: str
    facts: list[tuple[str, str]]
    test_counts: list[tuple[str, int]]
    failed_must: IdList
    to_do: list[ToDo]
    lists: list[IdList]
    causes: list[Cause]
    """The failed requirements grouped by cause, when some share one ([] otherwise)."""
    failed_by_causes: int
    status_counts: list[tuple[str, int]]
    """Requirements per status, failed first: the summary's tiles and the filter's boxes."""
    parts: list[Part]
    failures: list[Failure] = field(default_factory=list)


def page_of(c: Certification) -> Page:
    causes = causes_of(c)
    har = entry_numbers(c)
    return Page(
        certification=c,
        target=c.base_url + (" (the embedded reference implementation)" if c.embedded else ""),
        facts=_facts(c),
        test_counts=[(outcome, c.test_counts[outcome]) for outcome in TEST_OUTCOMES],
        failed_must=IdList("MUST requirements failed", c.failed_must, linked=True),
        to_do=to_do_of(c),
        lists=_lists(c),
        causes=[] if all(len(cause.requirements) == 1 for cause in causes) else causes,
        failed_by_causes=sum(len(cause.requirements) for cause in causes),
        status_counts=[(status, c.counts[status]) for status in FAILED_FIRST],
        parts=_parts(c, causes, har),
        failures=_failures(c, har),
    )


def anchor_of(item: str) -> str:
    """The id of the element a requirement id or a test's node id links to."""
    return test_anchor(item) if "::" in item else f"r-{item}"


def test_anchor(nodeid: str) -> str:
    """The id of a failing test's article: letters and digits of its node id, the rest as "-"."""
    return "t-" + "".join(character if character.isalnum() else "-" for character in nodeid)


def _facts(c: Certification) -> list[tuple[str, str]]:
    duration = (c.finished - c.started).total_seconds()
    absent = [feature for feature in FEATURES if feature not in c.features]
    facts = [("Target", c.base_url), ("Certified for", certified_for(c))]
    if absent:
        not_offered = f"{', '.join(absent)}: the target does not declare them, their requirements are not applicable"
        facts.append(("Not offered", not_offered))
    if c.selection:
        facts.append(("Selection", c.selection))
    if c.deviations:
        facts.append(("Deviations", ", ".join(c.deviations)))
    if examples := c.properties.get("examples"):
        facts.append(("Property phase", f"{examples} examples a property, seed {c.properties.get('seed')}"))
    if c.run.get("backoff"):
        facts.append(("Back-off", str(c.run["backoff"])))
    return [
        *facts,
        ("Suite", f"eris {c.version}"),
        ("Started", c.started.isoformat(timespec="seconds")),
        ("Finished", f"{c.finished.isoformat(timespec='seconds')} ({duration:.1f} s)"),
        ("Verdict rule", VERDICT_RULE),
    ]


def _lists(c: Certification) -> list[IdList]:
    """The summary's lists after the to-do list: the expected failures and the ids that matched nothing."""
    return [
        IdList(
            "Failed as expected (listed in the expected failures)",
            [f"{e.requirement_id}: {e.reason}" for e in c.expected_failures],
        ),
        IdList(
            "Expected failures that expired (they count again)",
            [f"{e.requirement_id}: {e.reason} (until {e.until})" for e in c.expected.expired],
        ),
        IdList("Listed as expected failures, but passed: fixed", c.fixed, "Remove them from the list.", linked=True),
        IdList(
            "Expected-failure entries that name no catalogue requirement",
            c.unmatched_expected,
            "A typo, or a requirement withdrawn from the catalogue.",
        ),
        IdList(
            "Requirement ids cited by tests but not in the catalogue",
            list(c.unknown),
            "Their tests do not count for the verdict.",
        ),
    ]


def _part(section: str) -> str:
    """The part of the contract a catalogue section names: its first heading ("Endpoints / Fixed assets;
    Limits" -> "Endpoints")."""
    return section.split(";", 1)[0].split(" / ", 1)[0].strip()


def _rank(result: RequirementResult) -> int:
    """Failures that decide the verdict first, then the other failures, then the rest."""
    if result.counts_against:
        return 0
    return 1 if result.status == FAILED else 2


def _parts(c: Certification, causes: list[Cause], har: dict[tuple[int, int], int]) -> list[Part]:
    by_part: dict[str, list[RequirementResult]] = {}
    for result in c.requirements:  # the catalogue's order, which follows the contract
        by_part.setdefault(_part(result.requirement.section), []).append(result)
    # sorted() is stable: inside a rank, parts and rows keep the catalogue's order
    ordered = sorted(by_part.items(), key=lambda item: min(map(_rank, item[1])))
    led = {cause.lead: cause for cause in causes}
    same_cause = {r: cause for cause in causes for r in cause.requirements[1:]}
    positions = {id(test): position for position, test in enumerate(c.outcomes)}
    parts = []
    for name, results in ordered:
        results = sorted(results, key=_rank)
        counts = ", ".join(f"{n} {status}" for status in STATUSES if (n := sum(r.status == status for r in results)))
        rows = [
            Row(
                result=result,
                first_cause=_first_cause(result, led, same_cause, positions, har) if result.status == FAILED else None,
                clauses=result.clauses,
                to_exercise="; ".join(result.to_exercise) or UNNAMED,
                tests=_tests_cell(c, result),
            )
            for result in results
        ]
        parts.append(Part(name, counts, rows))
    return parts


def _first_cause(
    result: RequirementResult,
    led: dict[str, Cause],
    same_cause: dict[str, Cause],
    positions: dict[int, int],
    har: dict[tuple[int, int], int],
) -> FirstCause:
    requirement_id = result.requirement.id
    also_failed, same_as = [], ""
    if (cause := led.get(requirement_id)) and len(cause.requirements) > 1:
        also_failed = cause.requirements[1:]
    elif cause := same_cause.get(requirement_id):
        same_as = cause.lead
    failing = next(test for test in result.tests if test.outcome_for(requirement_id) in FAILING)
    total = len(failing.exchanges)
    first = max(total - ROW_EXCHANGES, 0)
    return FirstCause(
        message=result.message or "(no message)",
        also_failed=also_failed,
        same_as=same_as,
        test=failing.nodeid,
        shown=f"the last {total - first} of {total} exchanges" if first else f"{total} exchange(s)",
        exchanges=[
            exchange_view(
                Exchange.from_dict(failing.exchanges[position]),
                open_=position == total - 1,
                har_entry=har.get((positions[id(failing)], position)),
            )
            for position in range(first, total)
        ],
    )


def _tests_cell(c: Certification, result: RequirementResult) -> TestsCell:
    requirement_id = result.requirement.id

    def item(test: TestOutcome) -> TestItem:
        outcome = test.outcome_for(requirement_id)
        return TestItem(test.nodeid, outcome, c.test_expected(test, requirement_id), outcome in FAILING)

    items = [item(test) for test in result.tests]
    failing = [i for i in items if i.failing]
    others = [i for i in items if not i.failing]
    counts = ""
    if len(others) > FOLDED_TESTS:
        counts = ", ".join(
            f"{n} {outcome}" for outcome in TEST_OUTCOMES if (n := sum(i.outcome == outcome for i in others))
        )
    # one defect can fail dozens of tests of a requirement: the row must stay readable
    return TestsCell(failing[:FAILING_IN_SIGHT], failing[FAILING_IN_SIGHT:], others, counts)


def _failures(c: Certification, har: dict[tuple[int, int], int]) -> list[Failure]:
    """The failing tests, those that decide the verdict first; then the others, in the order they ran."""
    failing = sorted(
        ((position, t) for position, t in enumerate(c.outcomes) if t.outcome in FAILING),
        key=lambda pair: not c.test_counts_against(pair[1]),
    )
    results = {result.requirement.id: result for result in c.requirements}
    failures = []
    for test_position, test in failing:
        cited = [
            (r, results[r].requirement.level if r in results else "not in the catalogue") for r in test.requirements
        ]
        total = len(test.exchanges)
        first = max(total - EXCHANGES_SHOWN, 0)
        exchanges = [
            exchange_view(
                Exchange.from_dict(test.exchanges[position]),
                open_=position == total - 1,
                har_entry=har.get((test_position, position)),
            )
            for position in range(first, total)
        ]
        failures.append(Failure(test, c.test_expected(test), cited, _not_counted(c, test, results), total, exchanges))
    return failures


def _not_counted(c: Certification, test: TestOutcome, results: dict[str, RequirementResult]) -> str:
    if c.test_counts_against(test):
        return ""
    levels = {results[r].requirement.level for r in test.requirements if r in results}
    if c.test_expected(test):
        return "a listed expected failure"
    if not levels:
        return "it cites no requirement of the catalogue"
    if levels == {"INFO"}:
        return "informational: what it checks is not fixed by the contract"
    return "what it checks is not a MUST requirement, or its failure is listed as expected"
