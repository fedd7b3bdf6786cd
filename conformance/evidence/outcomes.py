"""What a conformance test leaves behind: its outcome as evidence about the requirements it cites, and the
findings of a test that judges several requirements apart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

from conformance.evidence.served_warnings import ServedWarning, Tally

__all__ = [
    "NOT_APPLICABLE",
    "TO_EXERCISE",
    "Blocked",
    "Findings",
    "FindingsFailed",
    "TestOutcome",
    "data_selected_by",
    "data_served",
    "what_would_exercise",
]

TO_EXERCISE = " To exercise it: "
"""Joins a skip's reason (what was looked for, and where) and what would exercise the test: a [data] entry, a token,
a feature or an option (conformance.harness.plugin.not_exercised writes it; the reports list the second part as a
to-do)."""


NOT_APPLICABLE = "not applicable: "
"""Begins the skip of a test that does not apply to the target (an optional feature it does not declare): such a
test is evidence of nothing, and never makes a requirement partly exercised."""


def data_served(path: str, what: str = "any item") -> str:
    """What would exercise a test that found no data of a kind in the target's reads: `what`, served by GET `path`.
    The same words wherever a test needs the same data, so that the reports' to-do list names it once."""
    return f"data served by GET {path}: {what}"


def data_selected_by(assumed: frozenset[str], name: str, path: str, what: str) -> str:
    """What would exercise a test that found no data of a kind in what the installation value `name` (nip_system,
    namespaces.contractor, ...) selects: that value, where the run took the example installation's for it (the
    installation's `assumed`: the target showed none), else the data."""
    if name in assumed:
        return (
            f"[installation] {name.removeprefix('namespaces.')} in the target description (the example "
            "installation's value was taken: the target showed none)"
        )
    return data_served(path, what)


def what_would_exercise(message: str) -> tuple[str, str]:
    """(reason, what would exercise it) of a skip message, without the period that joined them; the second is ""
    when the message names nothing."""
    reason, joined, exercise = message.partition(TO_EXERCISE)
    reason = reason.rstrip()
    return (reason.removesuffix(".") if joined else reason), exercise.strip()


@dataclass
class TestOutcome:
    __test__ = False  # a record of a test, not a test class for pytest to collect

    nodeid: str
    outcome: str = "passed"
    """passed, failed, skipped or error (a failure outside the test's own body)."""
    requirements: list[str] = field(default_factory=list)
    message: str = ""
    duration: float = 0.0
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    findings: dict[str, str] = field(default_factory=dict)
    """Requirement id -> what broke it, for a test that judges several requirements apart (the property
    phase), or that met, on its way, a response breaking another requirement's rule: evidence against
    these requirements only."""
    own_failure: bool = False
    """True when the test failed by its own assertions too, not only through its findings (the plugin sets it)."""
    clauses: dict[str, dict[str, str]] = field(default_factory=dict)
    """Requirement id -> clause -> how the test exercised it (Findings.exercised)."""
    unexercised: dict[str, dict[str, str]] = field(default_factory=dict)
    """Requirement id -> clause -> why the test did not exercise it, and what would (Findings.unexercised)."""
    warnings: dict[str, Any] = field(default_factory=dict)
    """The validator's warnings on what the target served to this test, as `Tally.to_json` made them: evidence of
    nothing, listed for the vendor (conformance.evidence.served_warnings)."""

    @property
    def not_applicable(self) -> bool:
        """Skipped because it does not apply to the target (NOT_APPLICABLE)."""
        return self.outcome == "skipped" and self.message.startswith(NOT_APPLICABLE)

    def outcome_for(self, requirement_id: str) -> str:
        """The outcome as evidence about one requirement: a requirement its findings name failed; a test that
        failed only through findings naming others checked this one and found nothing wrong."""
        if requirement_id in self.findings:
            return "failed" if self.outcome in ("passed", "skipped", "failed") else self.outcome
        if self.outcome == "failed" and self.findings and not self.own_failure:
            return "passed"
        return self.outcome

    def message_for(self, requirement_id: str) -> str:
        return self.findings.get(requirement_id, self.message)


class FindingsFailed(AssertionError):
    """Raised by `Findings.check()`: the test failed through what it recorded, each under its requirement."""


class Blocked(FindingsFailed):
    """A precondition of the test broke another requirement, recorded as its finding: the test could not go on,
    and the requirements it cites were not exercised (the plugin reports it skipped, the finding failed)."""


class Findings:
    """What one test found against each requirement. A test that checks many requirements at once records
    each failure here under its requirement, then calls `check()`, which fails the test if anything was found:
    the certification then fails only the requirements named."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}
        self.exercised: dict[str, dict[str, str]] = {}
        """Requirement id -> clause -> how it was exercised: the value sent and the request that sent it."""
        self.unexercised: dict[str, dict[str, str]] = {}
        """Requirement id -> clause -> why it was not exercised, and what would exercise it (joined by TO_EXERCISE)."""
        self.warnings = Tally()
        """The validator's warnings on what the target served this test: never a finding."""

    def warn(self, warning: ServedWarning) -> None:
        self.warnings.add(warning)

    def exercise(self, requirement_id: str, clause: str, evidence: str) -> None:
        """Record that this test exercised `clause` of `requirement_id` (the first evidence of it is kept)."""
        self.exercised.setdefault(requirement_id, {}).setdefault(clause, evidence)

    def leave(self, requirement_id: str, clause: str, reason: str) -> None:
        """Record why this test could not exercise `clause` of `requirement_id` (the first reason is kept)."""
        self.unexercised.setdefault(requirement_id, {}).setdefault(clause, reason)

    def merge(self, other: Findings) -> None:
        """Take what `other` (the findings of one call of the test) recorded, after what this one holds."""
        for requirement_id, messages in other.found.items():
            for message in messages:
                self.add(requirement_id, message)
        for requirement_id, clauses in other.exercised.items():
            for clause, evidence in clauses.items():
                self.exercise(requirement_id, clause, evidence)
        for requirement_id, clauses in other.unexercised.items():
            for clause, reason in clauses.items():
                self.leave(requirement_id, clause, reason)
        self.warnings.take(other.warnings.to_json())

    def add(self, requirement_id: str, message: str) -> None:
        self.found.setdefault(requirement_id, []).append(message)

    def __contains__(self, requirement_id: str) -> bool:
        return requirement_id in self.found

    def summary(self) -> dict[str, str]:
        return {
            requirement_id: messages[0] + (f" (and {len(messages) - 1} more findings)" if len(messages) > 1 else "")
            for requirement_id, messages in sorted(self.found.items())
        }

    def check(self) -> None:
        __tracebackhide__ = True
        if self.found:
            raise self._failed()

    def fail(self, requirement_id: str, message: str) -> NoReturn:
        """`add`, then stop the test: it fails through what it recorded (this and any finding before)."""
        __tracebackhide__ = True
        self.add(requirement_id, message)
        raise self._failed()

    def _failed(self) -> FindingsFailed:
        lines = [f"{requirement_id}: {message}" for requirement_id, message in self.summary().items()]
        return FindingsFailed("\n".join(lines))
