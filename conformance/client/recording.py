"""What the test running now records beside its outcome, and how it stops without failing: findings against the
requirement of a rule it met on its way (`side_finding`, `blocked`), the clauses it exercised or could not
(`exercised`, `clause_not_exercised`), and skips that say what would exercise it (`not_exercised`) or that it does
not apply (`not_applicable`). The plugin starts and ends each test's record (`start_recording`, `end_recording`);
a call of `Api.concurrently` records apart and hands its findings back in call order (concurrent_calls.py)."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from conformance.client.concurrent_calls import findings_kept_apart
from conformance.evidence.outcomes import NOT_APPLICABLE, TO_EXERCISE, Blocked, Findings
from conformance.evidence.served_warnings import ServedWarning
from profiles.issues import Issue

__all__ = [
    "SUITE_ERROR_EXERCISE",
    "TOKEN_EXERCISE",
    "blocked",
    "clause_not_exercised",
    "end_recording",
    "exercised",
    "not_applicable",
    "not_exercised",
    "running_findings",
    "served_warning",
    "side_finding",
    "start_recording",
]

_RUNNING: list[Findings] = []
"""The findings of the test running now (one at a time in a process): where a read records what it met that
breaks another requirement's rule, instead of failing the test for the requirements it cites."""


def running_findings() -> Findings | None:
    return _RUNNING[-1] if _RUNNING else None


def _recording() -> Findings | None:
    kept = findings_kept_apart()
    return kept if kept is not None else running_findings()


def side_finding(requirement_id: str | None, message: str) -> bool:
    """Record `message` against `requirement_id` for the running test; False (nothing recorded) when no test
    runs or the rule names no requirement: the caller then fails as before. In a call of `Api.concurrently`,
    recorded for the call, and handed to the test in call order."""
    found = _recording()
    if found is None or requirement_id is None:
        return False
    found.add(requirement_id, message)
    return True


def served_warning(document: Any, resource_type: str, issue: Issue, where: str) -> None:
    """Tally a warning on a served document for the running test: the report lists it, no status depends on it
    (dirty data the contract allows, such as a registry number with a wrong check digit)."""
    found = _recording()
    if found is None:
        return
    # `where` may end a sentence of its test ("..., the number of the existing party X,")
    where = where.rstrip(" ,.;:")
    key = document.get("id", document.get("url")) if isinstance(document, dict) else None
    item = f"{resource_type}/{key}" if isinstance(key, str) and key else where
    found.warn(ServedWarning(issue.code, issue.message, issue.location, item, where))


def exercised(requirement_id: str, clause: str, *, value: str, request: str) -> None:
    """Record that the running test exercised `clause` of `requirement_id` (a clause of its catalogue row) with
    `value`, taken from the target, in `request` (for example "GET /v1/parties?lastModified=2024-05-01"). A
    requirement with clauses passes only when every one was exercised by a test that held (the judgement)."""
    found = _recording()
    if found is not None:
        found.exercise(requirement_id, clause, f"{value} in {request}" if value not in request else request)


def clause_not_exercised(requirement_id: str, clause: str, reason: str, *, exercise: str) -> None:
    """Record, without stopping the running test, why it could not exercise `clause` of `requirement_id` and what
    would exercise it (the same words as `not_exercised`): the reports' to-do list names the clause with it."""
    found = _recording()
    if found is not None:
        found.leave(requirement_id, clause, f"{reason.rstrip('. ')}.{TO_EXERCISE}{exercise}")


def blocked(requirement_id: str | None, message: str) -> NoReturn:
    """A precondition of the running test broke `requirement_id`: recorded against it (see `side_finding`), and the
    test stops, reported skipped: what it cites was not exercised, and one defect fails its own requirement only.
    With no test running or no requirement, an AssertionError as before."""
    __tracebackhide__ = True
    if side_finding(requirement_id, message):
        raise Blocked(
            f"not exercised: {requirement_id} failed on the way: {message.rstrip('. ')}."
            f"{TO_EXERCISE}a fix of {requirement_id}, which failed on the way"
        )
    raise AssertionError(message)


SUITE_ERROR_EXERCISE = "a suite whose client can send it (report the error to the eris project)"
TOKEN_EXERCISE = "[target] token in the target description, or --token"


def not_exercised(reason: str, *, exercise: str) -> NoReturn:
    """Skip the running test for want of data or means: `reason` says what was looked for and where (a sentence,
    no final period needed), `exercise` what would exercise it: a [data] entry, a token, a feature, an option."""
    __tracebackhide__ = True
    pytest.skip(f"{reason.rstrip('. ')}.{TO_EXERCISE}{exercise}")


def not_applicable(reason: str) -> NoReturn:
    """Skip the running test because it does not apply to the target (an optional feature it does not declare):
    what it cites is neither exercised nor missing."""
    __tracebackhide__ = True
    pytest.skip(f"{NOT_APPLICABLE}{reason}")


def start_recording(found: Findings) -> None:
    """`found` records for the test starting now."""
    _RUNNING.append(found)


def end_recording(found: Findings) -> None:
    if found in _RUNNING:
        _RUNNING.remove(found)
