"""The clauses of the catalogue's requirements a request of the suite exercises, and their record
(conformance.plugin.exercised): a requirement passes only when each of its clauses was sent with the target's own
data by a test that held."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from conformance.plugin import clause_not_exercised, exercised
from conformance.requirements import load_catalogue

__all__ = ["clause_named", "leave_parameter", "record_parameter"]


@cache
def _clauses() -> dict[str, tuple[str, ...]]:
    return {requirement.id: requirement.clauses for requirement in load_catalogue()}


def clause_named(requirement_id: str, name: str) -> str | None:
    """The clause of `requirement_id` that names the parameter `name` (as `name`, `name[]` or `name (...)`)."""
    for clause in _clauses().get(requirement_id, ()):
        if clause in (name, f"{name}[]") or clause.startswith(f"{name} ("):
            return clause
    return None


def record_parameter(requirement_ids: Iterable[str], parameter: str, *, value: str, request: str) -> None:
    """`parameter` sent with `value` in `request`: the clause naming it exercised, for each requirement listing it."""
    for requirement_id in requirement_ids:
        if (clause := clause_named(requirement_id, parameter)) is not None:
            exercised(requirement_id, clause, value=value, request=request)


def leave_parameter(requirement_ids: Iterable[str], parameter: str, reason: str, *, exercise: str) -> None:
    """`parameter` could not be sent: why, and what would send it, for each requirement listing it."""
    for requirement_id in requirement_ids:
        if (clause := clause_named(requirement_id, parameter)) is not None:
            clause_not_exercised(requirement_id, clause, reason, exercise=exercise)
