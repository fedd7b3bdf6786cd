"""The to-do list of an incomplete run: what would exercise the MUST requirements not exercised, each distinct
thing once with the requirements it would exercise, so that a vendor reads what to provide, not a list of ids."""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.certification.clauses import A_TEST_SENDING_IT
from conformance.certification.judgement import A_RUN_TO_ITS_END, A_TEST, WHOLE_SUITE, Certification

__all__ = ["UNNAMED", "ToDo", "to_do_of"]

UNNAMED = "not named by the tests that skipped: see the reasons"
"""How the reports show what would exercise requirements whose skipping tests named nothing after
outcomes.TO_EXERCISE."""


@dataclass
class ToDo:
    to_exercise: str
    """The thing to provide ("" when the skipping tests did not name it)."""
    reasons: dict[str, str] = field(default_factory=dict)
    """Requirement id -> why it was not exercised, for the requirements this would exercise (catalogue order)."""

    @property
    def requirements(self) -> list[str]:
        return list(self.reasons)

    @property
    def shown(self) -> str:
        return self.to_exercise or UNNAMED


LAST = (A_RUN_TO_ITS_END, WHOLE_SUITE, A_TEST, A_TEST_SENDING_IT, "")
"""Items after what the vendor provides, in this order: the run's own narrowing (the vendor chose it), a gap of the
suite, and what the skipping tests did not name."""


def to_do_of(certification: Certification) -> list[ToDo]:
    """One item per distinct thing to provide: what the vendor provides first, those that would exercise most
    requirements first (ties in the order met); then the LAST ones."""
    items: dict[str, ToDo] = {}
    for requirement_id, gaps in certification.not_exercised.items():
        for gap in gaps:
            item = items.setdefault(gap.to_exercise, ToDo(gap.to_exercise))
            known = item.reasons.get(requirement_id)
            item.reasons[requirement_id] = f"{known}; {gap.reason}" if known else gap.reason
    return sorted(items.values(), key=_rank)


def _rank(item: ToDo) -> tuple[int, int]:
    last = LAST.index(item.to_exercise) + 1 if item.to_exercise in LAST else 0
    return last, -len(item.reasons)
