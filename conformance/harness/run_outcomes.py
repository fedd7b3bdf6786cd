"""How each test's outcome reaches the certification. `record_outcome` writes what a test checked and met into its
report's user_properties, plain data, so that it crosses to the controller under pytest-xdist; there the
`OutcomeCollector` gathers every report of a test into one TestOutcome (`OUTCOMES`). The run's state lives in
pytest's stash: its traffic, its outcomes, and why it stopped before its end (`stop_run`, `run_stop_reason`)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.client.bounded_http import SuiteCouldNotSend
from conformance.client.recording import SUITE_ERROR_EXERCISE
from conformance.client.traffic import Exchange, Traffic
from conformance.evidence.outcomes import TO_EXERCISE, Blocked, Findings, FindingsFailed, TestOutcome

__all__ = [
    "FINDINGS",
    "OUTCOMES",
    "RUN_STOP",
    "STARTED",
    "TRAFFIC",
    "OutcomeCollector",
    "record_outcome",
    "run_stop_reason",
    "stop_run",
]

REQUIREMENTS_PROPERTY = "eris_requirements"
EXCHANGES_PROPERTY = "eris_exchanges"
FINDINGS_PROPERTY = "eris_findings"
OWN_FAILURE_PROPERTY = "eris_own_failure"
CLAUSES_PROPERTY = "eris_clauses"
UNEXERCISED_PROPERTY = "eris_unexercised"
WARNINGS_PROPERTY = "eris_warnings"

FINDINGS = pytest.StashKey[Findings]()
OUTCOMES = pytest.StashKey[dict[str, TestOutcome]]()
TRAFFIC = pytest.StashKey[Traffic]()
STARTED = pytest.StashKey[float]()
RUN_STOP = pytest.StashKey[str]()
"""Why the run stopped before its end (a target that stopped answering, the run's time limit); set where it was
decided and, under pytest-xdist, on the controller from the report carrying it."""
_STOP_REPORTED = pytest.StashKey[bool]()
STOP_PROPERTY = "eris_run_stopped"


def run_stop_reason(config: pytest.Config) -> str | None:
    """Why the run stopped before its end, or None when it ran to its end (or was stopped otherwise)."""
    return config.stash.get(RUN_STOP, None)


def stop_run(session: pytest.Session, reason: str) -> None:
    """No test starts after the running one: the certification is made of what was done, and says why."""
    session.config.stash.setdefault(RUN_STOP, reason)
    session.shouldstop = session.config.stash[RUN_STOP]


def record_outcome(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Write what `item` checked and met into `report`: the requirements it cites and those its findings name, its
    findings and clauses, the exchanges it made, and why the run stopped (once). A test that held but met another
    requirement's defect fails through its findings; one blocked by such a defect, or whose own client could not
    send, is skipped: what it cites was not exercised."""
    marker_ids = [i for marker in item.iter_markers("requirement") for i in marker.args]
    found = item.stash.get(FINDINGS, None)
    if found is not None and report.when == "call":
        summary = found.summary()
        marker_ids += [requirement_id for requirement_id in summary if requirement_id not in marker_ids]
        report.user_properties.append((FINDINGS_PROPERTY, summary))
        report.user_properties.append((CLAUSES_PROPERTY, found.exercised))
        report.user_properties.append((UNEXERCISED_PROPERTY, found.unexercised))
        report.user_properties.append((WARNINGS_PROPERTY, found.warnings.to_json()))
        own = report.failed and not (call.excinfo is not None and call.excinfo.errisinstance(FindingsFailed))
        report.user_properties.append((OWN_FAILURE_PROPERTY, own))
        if summary and report.passed:  # its own checks held; what it met on the way fails other requirements
            report.outcome = "failed"
            report.longrepr = "\n".join(f"E   {rid}: {message}" for rid, message in summary.items())
        elif call.excinfo is not None and call.excinfo.errisinstance(Blocked):
            # the finding fails its requirement (outcome_for); the requirements cited were not exercised
            path, line, _ = item.reportinfo()
            report.outcome = "skipped"
            report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {call.excinfo.value}")
    if report.failed and call.excinfo is not None and call.excinfo.errisinstance(SuiteCouldNotSend):
        # the suite's own client failed: what the test cites was not exercised (its skip says why)
        path, line, _ = item.reportinfo()
        report.outcome = "skipped"
        reason = f"the suite could not send a request: {call.excinfo.value}"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {reason}{TO_EXERCISE}{SUITE_ERROR_EXERCISE}")
    if RUN_STOP in item.config.stash and not item.config.stash.get(_STOP_REPORTED, False):
        item.config.stash[_STOP_REPORTED] = True  # carried to the controller under pytest-xdist
        report.user_properties.append((STOP_PROPERTY, item.config.stash[RUN_STOP]))
    report.user_properties.append((REQUIREMENTS_PROPERTY, marker_ids))
    exchanges: list[Exchange] = item.config.stash[TRAFFIC].take()
    report.user_properties.append((EXCHANGES_PROPERTY, [e.to_dict() for e in exchanges]))


class OutcomeCollector:
    """Gathers each test's outcome where reports arrive (the controller, under pytest-xdist)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes = config.stash[OUTCOMES]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, TestOutcome(report.nodeid))
        # plain data, as pytest_runtest_makereport wrote it (and pytest-xdist carried it to this process)
        properties: dict[str, Any] = dict(report.user_properties)
        if STOP_PROPERTY in properties:
            self.config.stash.setdefault(RUN_STOP, properties[STOP_PROPERTY])
        outcome.requirements = sorted(set(outcome.requirements) | set(properties.get(REQUIREMENTS_PROPERTY, [])))
        outcome.exchanges += properties.get(EXCHANGES_PROPERTY, [])
        outcome.findings.update(properties.get(FINDINGS_PROPERTY, {}))
        for requirement_id, clauses in properties.get(CLAUSES_PROPERTY, {}).items():
            outcome.clauses.setdefault(requirement_id, {}).update(clauses)
        for requirement_id, clauses in properties.get(UNEXERCISED_PROPERTY, {}).items():
            outcome.unexercised.setdefault(requirement_id, {}).update(clauses)
        if WARNINGS_PROPERTY in properties:
            outcome.warnings = properties[WARNINGS_PROPERTY]
        if OWN_FAILURE_PROPERTY in properties:
            outcome.own_failure = properties[OWN_FAILURE_PROPERTY]
        outcome.duration += report.duration
        if report.failed:
            outcome.outcome = "failed" if report.when == "call" else "error"
            outcome.message = _message(report)
        elif report.skipped and outcome.outcome == "passed":
            outcome.outcome = "skipped"
            outcome.message = _message(report)


def _message(report: pytest.TestReport) -> str:
    """The part of a failure a vendor reads first: pytest's `E` lines, else the last line."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    text = (report.longreprtext or "").strip()
    explained = "\n".join(line[1:].strip() for line in text.splitlines() if line.startswith("E "))
    return explained or (text.splitlines()[-1] if text else "")
