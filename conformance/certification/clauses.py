"""Each clause of a requirement judged from what the tests citing it recorded: the exchange that exercised it, or
why none did and what would.

A clause is exercised when a test that held for the requirement recorded it (`conformance.harness.plugin.exercised`):
a clause sent only by a test that failed, skipped or was not applicable shows nothing about a target that
passes. A clause no test exercised takes the reason a test recorded for it (`clause_not_exercised`), else
that no test sent it (a test that skipped is a gap of its own)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conformance.catalogue.requirements import Requirement
from conformance.evidence.outcomes import TestOutcome, what_would_exercise

__all__ = ["A_TEST_SENDING_IT", "NOT_SENT", "ClauseResult", "judge_clauses", "unknown_clauses"]

NOT_SENT = "no test of this run sent it with a value taken from the target"
A_TEST_SENDING_IT = "a test of the suite sending it with the target's data (none did: a gap of eris, not of the target)"
"""What exercises a clause no test sent and no test said why."""


@dataclass(frozen=True)
class ClauseResult:
    text: str
    """The clause, in the contract's words (the catalogue's `clauses`)."""
    exercised: str = ""
    """The value sent and the request that sent it ("" when not exercised)."""
    test: str = ""
    """The node id of the test that exercised it, or that said why it could not."""
    reason: str = ""
    """Why it was not exercised ("" when it was)."""
    to_exercise: str = ""
    """What would exercise it ("" when it was exercised, or nothing is known)."""

    def to_json(self) -> dict[str, str]:
        if self.exercised:
            return {"clause": self.text, "exercised": self.exercised, "test": self.test}
        return {"clause": self.text, "not_exercised": self.reason, "to_exercise": self.to_exercise, "test": self.test}


def judge_clauses(requirement: Requirement, tests: Iterable[TestOutcome]) -> list[ClauseResult]:
    """One result per clause of `requirement`, in catalogue order ([] for a requirement without clauses)."""
    if not requirement.clauses:
        return []
    tests = list(tests)
    held = [test for test in tests if test.outcome_for(requirement.id) == "passed"]
    results = []
    for clause in requirement.clauses:
        done = next((test for test in held if clause in test.clauses.get(requirement.id, {})), None)
        if done is not None:
            results.append(ClauseResult(clause, done.clauses[requirement.id][clause], done.nodeid))
        else:
            results.append(_not_exercised(requirement.id, clause, tests))
    return results


def _not_exercised(requirement_id: str, clause: str, tests: list[TestOutcome]) -> ClauseResult:
    for test in tests:
        said = test.unexercised.get(requirement_id, {}).get(clause)
        if said:
            reason, to_exercise = what_would_exercise(said)
            return ClauseResult(clause, test=test.nodeid, reason=reason, to_exercise=to_exercise)
    return ClauseResult(clause, reason=NOT_SENT, to_exercise=A_TEST_SENDING_IT)


def unknown_clauses(catalogue: Iterable[Requirement], tests: Iterable[TestOutcome]) -> dict[str, list[str]]:
    """`requirement id: clause` recorded by a test but not in the catalogue's clauses of that requirement -> the
    tests that recorded it: a slip of the suite (a misspelt clause never counts)."""
    listed = {requirement.id: set(requirement.clauses) for requirement in catalogue}
    unknown: dict[str, list[str]] = {}
    for test in tests:
        for recorded in (test.clauses, test.unexercised):
            for requirement_id, clauses in recorded.items():
                for clause in clauses:
                    if clause not in listed.get(requirement_id, set()):
                        unknown.setdefault(f"{requirement_id}: {clause}", []).append(test.nodeid)
    return unknown
