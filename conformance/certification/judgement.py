"""The certification of one run: each catalogue requirement judged from the outcomes of the tests citing it, and
the verdict.

Rules:

- a requirement of an optional feature the target does not declare is `not-applicable`;
- a requirement no test cites, or whose tests did not run, is `not-tested`; one whose tests were all
  skipped is `skipped`; one any of whose tests failed or errored is `failed`; one some of whose tests
  skipped, or with a clause no test that held exercised (conformance.certification.clauses), is
  `partly-exercised`; else `passed` (a test that does not apply to the target counts for nothing);
- an INFO requirement is never `failed`: the contract says the thing is not shown, so a failing test of it
  is an observation, reported as `skipped` with the test's message;
- a failure of a requirement listed in the expected failures (with a reason, not expired) is reported with
  `expected: true` and does not count against the verdict; a listed requirement that passed is reported `fixed`;
- the verdict is `non-conformant` when a MUST requirement failed other than as expected; else `incomplete`
  when an applicable MUST requirement was not exercised (skipped, partly exercised, not tested, or some of the
  tests citing it were deselected); else `conformant`;
- each way an applicable MUST requirement was not exercised is a `Gap`: why, and what would exercise it (what a
  skipping test named after outcomes.TO_EXERCISE; a run of the whole suite for tests deselected).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from conformance.catalogue.requirements import Requirement
from conformance.certification.clauses import NOT_SENT, ClauseResult, judge_clauses, unknown_clauses
from conformance.certification.expected import ExpectedFailure, ExpectedFailures
from conformance.configuration.settings import suite_version
from conformance.evidence.outcomes import TestOutcome, what_would_exercise
from conformance.evidence.served_warnings import Tally

FORMAT = "eris-certification/1"
CONFORMANT, INCOMPLETE, NON_CONFORMANT = "conformant", "incomplete", "non-conformant"
VERDICTS = (CONFORMANT, INCOMPLETE, NON_CONFORMANT)
PASSED, FAILED, SKIPPED, NOT_TESTED, NOT_APPLICABLE = "passed", "failed", "skipped", "not-tested", "not-applicable"
PARTLY = "partly-exercised"
STATUSES = (PASSED, PARTLY, FAILED, SKIPPED, NOT_TESTED, NOT_APPLICABLE)
TEST_OUTCOMES = ("passed", "failed", "error", "skipped")
FAILING = ("failed", "error")
INFO_NOTE = "informational: the contract does not fix this, so a failing test is an observation, never a failure"
FIXED_NOTE = "listed as an expected failure, but passed: fixed"
WHOLE_SUITE = "a run of the whole suite: without -k or --requirement"
"""What exercises the tests a selection left out."""
A_RUN_TO_ITS_END = (
    "a run to its end: a target that answers every request within --request-timeout, the whole run within --run-timeout"
)
"""What exercises the tests a run that stopped before its end never reached."""
A_TEST = "a test of the suite citing it (none does: a gap of eris, not of the target)"
"""What exercises a requirement no test cites."""


@dataclass(frozen=True)
class Gap:
    """One way an applicable MUST requirement was not exercised."""

    reason: str
    """What kept it from being exercised: what the skipping test looked for and where, or the tests left out."""
    to_exercise: str
    """What would exercise it: a [data] entry, a token, a feature, an option, data the target serves; "" when the
    skipping test did not say."""


@dataclass
class RequirementResult:
    requirement: Requirement
    status: str
    tests: list[TestOutcome] = field(default_factory=list)
    message: str = ""
    expected: bool = False
    """Failed, and the requirement is listed as an expected failure."""
    note: str = ""
    deselected: list[str] = field(default_factory=list)
    """Tests citing the requirement that this run did not run (left out by -k or --requirement, or never reached)."""
    run_stopped: str = ""
    """Why the run stopped before its end ("" when it ran to its end): its tests not run were never reached."""
    clauses: list[ClauseResult] = field(default_factory=list)
    """Each clause of the requirement: the exchange that exercised it, or why none did."""

    @property
    def counts_against(self) -> bool:
        """Whether this result makes the run non-conformant."""
        return self.requirement.level == "MUST" and self.status == FAILED and not self.expected

    @property
    def gaps(self) -> list[Gap]:
        """Each distinct way an applicable MUST requirement was not fully exercised ([] when it was, or it is not a
        MUST): the reasons its skipped tests gave, tests the selection left out, or no test at all."""
        return self._skipped() + self._left_out()

    @property
    def unexercised(self) -> str:
        """Why an applicable MUST requirement was not fully exercised ("" when it was, or it is not a MUST)."""
        skipped, left_out = self._skipped(), self._left_out()
        if not skipped:
            return left_out[0].reason if left_out else ""
        others = len(skipped) - 1
        lead = "every test was skipped" if self.status == SKIPPED else "partly exercised"
        why = f"{lead}: {skipped[0].reason}"
        if others:
            why += f" (and {others} other reason{'' if others == 1 else 's'})"
        return why + "".join(f"; {gap.reason}" for gap in left_out)

    def _applicable_must(self) -> bool:
        if self.requirement.level != "MUST" or self.status in (FAILED, NOT_APPLICABLE):
            return False
        # a requirement no request can exercise is not missing anything: its note says why
        return not (self.requirement.outside and self.status in (SKIPPED, NOT_TESTED))

    def _skipped(self) -> list[Gap]:
        if self.status not in (SKIPPED, PARTLY) or not self._applicable_must():
            return []
        # a clause no test sent in a narrowed run waits for the tests left out: their gap says so
        gaps = [
            Gap(f"clause {clause.text!r} not exercised: {clause.reason}", clause.to_exercise)
            for clause in self.clauses
            if not clause.exercised and not (self.deselected and clause.reason == NOT_SENT)
        ]
        for test in self.tests:
            if test.outcome_for(self.requirement.id) != "skipped" or test.not_applicable:
                continue
            reason, to_exercise = what_would_exercise(test.message_for(self.requirement.id))
            if self.status == PARTLY:
                reason = f"{test.nodeid.rpartition('::')[2]} skipped: {reason}"
            gaps.append(Gap(reason or "skipped without a reason", to_exercise))
        return list(dict.fromkeys(gaps))

    def _left_out(self) -> list[Gap]:
        if not self._applicable_must():
            return []
        if self.deselected and self.run_stopped:
            return [Gap(f"{_tests(len(self.deselected))} not reached: {self.run_stopped}", A_RUN_TO_ITS_END)]
        if self.deselected:
            left_out = _tests(len(self.deselected))
            if self.status == NOT_TESTED:
                return [Gap(f"not run in this selection ({left_out} deselected)", WHOLE_SUITE)]
            return [Gap(f"{left_out} citing it deselected", WHOLE_SUITE)]
        return [Gap("no test of the suite cites it", A_TEST)] if self.status == NOT_TESTED else []

    @property
    def to_exercise(self) -> list[str]:
        """What would exercise it, each thing once ([] when nothing is missing, or the skipping tests named nothing)."""
        return list(dict.fromkeys(gap.to_exercise for gap in self.gaps if gap.to_exercise))


@dataclass
class Certification:
    base_url: str
    started: datetime
    finished: datetime
    requirements: list[RequirementResult]
    outcomes: list[TestOutcome]
    expected: ExpectedFailures = field(default_factory=ExpectedFailures)
    embedded: bool = False
    """The target is the reference implementation started by `eris certify` itself."""
    properties: dict[str, Any] = field(default_factory=dict)
    """The property phase's budget: {"examples": N, "seed": S} (a rerun with this seed sends the same requests)."""
    deviations: tuple[str, ...] = ()
    """Faults and variants the embedded reference implementation ran with (measuring the suite)."""
    features: tuple[str, ...] = ()
    """Optional features the target declares; requirements of the others are not applicable."""
    selection: str = ""
    """How the run was narrowed (-k, --requirement); "" for the whole suite."""
    run: dict[str, Any] = field(default_factory=dict)
    """How the run was made, which never changes a verdict: its workers and the round trip they were chosen from
    (conformance.run.round_trip.WorkersChoice.to_json)."""
    version: str = field(default_factory=suite_version)
    unknown: dict[str, list[str]] = field(default_factory=dict)
    """Requirement ids cited by tests that ran but absent from the catalogue -> those tests' node ids."""
    unknown_clauses: dict[str, list[str]] = field(default_factory=dict)
    """`requirement id: clause` recorded by tests but not among the catalogue's clauses -> those tests' node ids."""

    @property
    def verdict(self) -> str:
        if any(result.counts_against for result in self.requirements):
            return NON_CONFORMANT
        return INCOMPLETE if self.incomplete else CONFORMANT

    @property
    def warnings(self) -> Tally:
        """The validator's warnings on what the target served, of every test: they never change a status."""
        tally = Tally()
        for test in self.outcomes:
            tally.take(test.warnings)
        return tally

    @property
    def incomplete(self) -> dict[str, str]:
        """Applicable MUST requirements not fully exercised -> why."""
        return {r.requirement.id: r.unexercised for r in self.requirements if r.unexercised}

    @property
    def not_exercised(self) -> dict[str, list[Gap]]:
        """Applicable MUST requirements not fully exercised -> each way, with what would exercise it."""
        return {r.requirement.id: gaps for r in self.requirements if (gaps := r.gaps)}

    @property
    def counts(self) -> dict[str, int]:
        """Requirements per status."""
        return {status: sum(result.status == status for result in self.requirements) for status in STATUSES}

    @property
    def test_counts(self) -> dict[str, int]:
        return {outcome: sum(test.outcome == outcome for test in self.outcomes) for outcome in TEST_OUTCOMES}

    @property
    def failed_must(self) -> list[str]:
        return [result.requirement.id for result in self.requirements if result.counts_against]

    @property
    def expected_failures(self) -> list[ExpectedFailure]:
        """Listed requirements that failed, as expected."""
        return [
            entry
            for r in self.requirements
            if r.status == FAILED and r.expected and (entry := self.expected.entry(r.requirement.id))
        ]

    @property
    def fixed(self) -> list[str]:
        """Listed requirements that passed: the list is out of date."""
        return [
            r.requirement.id for r in self.requirements if r.status == PASSED and r.requirement.id in self.expected.ids
        ]

    @property
    def unmatched_expected(self) -> list[str]:
        """Listed requirement ids that are not in the catalogue (a typo, or a requirement withdrawn)."""
        known = {result.requirement.id for result in self.requirements}
        return [entry for entry in self.expected.ids if entry not in known]

    @property
    def uncited(self) -> list[TestOutcome]:
        """Tests that name no requirement: they count for no requirement and so never for the verdict."""
        return [test for test in self.outcomes if not test.requirements]

    def test_expected(self, test: TestOutcome, requirement_id: str | None = None) -> bool:
        """Whether a failing test is excused by the expected failures: as evidence against `requirement_id`, or
        (None) against every requirement it cites."""
        if requirement_id is not None:
            return test.outcome_for(requirement_id) in FAILING and self.expected.covers(requirement_id)
        return (
            test.outcome in FAILING
            and bool(test.requirements)
            and all(self.expected.covers(r) for r in test.requirements if test.outcome_for(r) in FAILING)
        )

    def test_counts_against(self, test: TestOutcome) -> bool:
        """Whether this test's failure is one that makes the run non-conformant."""
        failed = set(self.failed_must)
        return test.outcome in FAILING and any(
            r in failed and test.outcome_for(r) in FAILING and not self.expected.covers(r) for r in test.requirements
        )


def certify(
    catalogue: Iterable[Requirement],
    outcomes: Iterable[TestOutcome],
    *,
    base_url: str,
    started: datetime,
    finished: datetime,
    expected: ExpectedFailures | None = None,
    embedded: bool = False,
    version: str | None = None,
    properties: dict[str, Any] | None = None,
    deviations: tuple[str, ...] = (),
    features: Iterable[str] = (),
    cited: Mapping[str, list[str]] | None = None,
    selection: str = "",
    run: dict[str, Any] | None = None,
    run_stopped: str = "",
) -> Certification:
    """Judge every catalogue requirement from the outcomes of the tests that ran.

    `cited`: requirement id -> node ids (without parameters) of every test of the suite citing it, whether run or
    not (conformance.catalogue.requirements.coverage); the ones that did not run make a MUST requirement not fully
    exercised. None: nothing is known of tests that did not run. `run_stopped`: why the run stopped before its end, if
    it did (its tests not run were never reached, not deselected)."""
    expected = expected or ExpectedFailures()
    tests = list(outcomes)
    catalogue = list(catalogue)
    declared = tuple(sorted(set(features)))
    by_requirement: dict[str, list[TestOutcome]] = {}
    for test in tests:
        for requirement_id in test.requirements:
            by_requirement.setdefault(requirement_id, []).append(test)
    ran = {test.nodeid.split("[", 1)[0] for test in tests}
    known = {requirement.id for requirement in catalogue}
    results = []
    for requirement in catalogue:
        result = _judge(requirement, by_requirement.get(requirement.id, []), expected, declared)
        result.deselected = [nodeid for nodeid in (cited or {}).get(requirement.id, []) if nodeid not in ran]
        result.run_stopped = run_stopped
        results.append(result)
    return Certification(
        base_url=base_url,
        started=started,
        finished=finished,
        requirements=results,
        outcomes=tests,
        expected=expected,
        embedded=embedded,
        version=version or suite_version(),
        properties=properties or {},
        deviations=deviations,
        features=declared,
        selection=selection,
        run=run or {},
        unknown={
            requirement_id: [test.nodeid for test in cited_by]
            for requirement_id, cited_by in sorted(by_requirement.items())
            if requirement_id not in known
        },
        unknown_clauses=unknown_clauses(catalogue, tests),
    )


def _judge(
    requirement: Requirement, tests: list[TestOutcome], expected: ExpectedFailures, features: tuple[str, ...]
) -> RequirementResult:
    result = RequirementResult(requirement, NOT_TESTED, tests)
    failing = [test for test in tests if test.outcome_for(requirement.id) in FAILING]
    applying = [test for test in tests if not test.not_applicable]
    if requirement.feature and requirement.feature not in features and not failing:
        result.status = NOT_APPLICABLE
        result.note = f"the target does not declare the optional feature {requirement.feature}"
    elif failing:
        result.message = failing[0].message_for(requirement.id)
        if requirement.level == "INFO":
            result.status, result.note = SKIPPED, INFO_NOTE
        else:
            result.status, result.expected = FAILED, expected.covers(requirement.id)
            if entry := expected.entry(requirement.id):
                excused = "expected failure" if result.expected else f"the expected failure expired on {entry.until}"
                result.note = f"{excused}: {entry.reason}"
    elif any(test.outcome_for(requirement.id) == "passed" for test in tests):
        result.clauses = judge_clauses(requirement, applying)
        skipped = [test for test in applying if test.outcome_for(requirement.id) == "skipped"]
        missing = [clause.text for clause in result.clauses if not clause.exercised]
        result.status = PARTLY if skipped or missing else PASSED
        if result.status == PARTLY:
            result.message = _partly(skipped, missing)
        elif requirement.id in expected.ids:
            result.note = FIXED_NOTE
    elif applying:
        result.status = SKIPPED
        result.message = applying[0].message
    elif tests:
        result.status, result.note = NOT_APPLICABLE, tests[0].message
    if requirement.outside and result.status in (SKIPPED, NOT_TESTED):
        result.note = f"cannot be tested from outside the implementation: {requirement.outside}"
    return result


def _partly(skipped: list[TestOutcome], missing: list[str]) -> str:
    parts = [f"not exercised: {', '.join(repr(clause) for clause in missing)}"] if missing else []
    if skipped:
        parts.append(f"{_tests(len(skipped))} skipped: {skipped[0].message}")
    return "; ".join(parts)


def _tests(count: int) -> str:
    return f"{count} test{'' if count == 1 else 's'}"
