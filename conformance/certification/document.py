"""certification.json: a certification as the JSON document of format `eris-certification/1`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from conformance.certification.causes import causes_of
from conformance.certification.expected import ExpectedFailure
from conformance.certification.judgement import FORMAT, Certification
from conformance.certification.todo import to_do_of

__all__ = ["certified_for", "to_json"]


def _time(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def certified_for(certification: Certification) -> str:
    """What the verdict covers, in words: the contract's core and every declared optional feature."""
    return ", ".join(["the core contract", *certification.features])


def _entry(entry: ExpectedFailure) -> dict[str, Any]:
    return {
        "id": entry.requirement_id,
        "reason": entry.reason,
        "until": entry.until.isoformat() if entry.until else None,
    }


def to_json(certification: Certification) -> dict[str, Any]:
    """The document of `certification.json`."""
    c = certification
    warnings = c.warnings
    return {
        "format": FORMAT,
        "target": {
            "base_url": c.base_url,
            "embedded_reference_implementation": c.embedded,
            **({"deviations": list(c.deviations)} if c.deviations else {}),
        },
        "properties": c.properties,
        "run": c.run,
        "suite": {"name": "eris", "version": c.version},
        "started": _time(c.started),
        "finished": _time(c.finished),
        "duration_seconds": round((c.finished - c.started).total_seconds(), 3),
        "summary": {
            "verdict": c.verdict,
            "certified_for": certified_for(c),
            "features": list(c.features),
            "selection": c.selection,
            "counts": c.counts,
            "tests": c.test_counts,
            "failed_must": c.failed_must,
            "causes": [
                {"lead": cause.lead, "requirements": cause.requirements, "message": cause.message}
                for cause in causes_of(c)
            ],
            "incomplete": [{"id": key, "reason": reason} for key, reason in c.incomplete.items()],
            "not_exercised": [
                {"requirement": key, "reason": gap.reason, "to_exercise": gap.to_exercise}
                for key, gaps in c.not_exercised.items()
                for gap in gaps
            ],
            "to_do": [{"to_exercise": item.to_exercise, "requirements": item.requirements} for item in to_do_of(c)],
            "expected_failures": [_entry(entry) for entry in c.expected_failures],
            "expired_expected_failures": [_entry(entry) for entry in c.expected.expired],
            "fixed": c.fixed,
            "warnings": [warning.to_json() for warning in warnings.warnings],
            "warnings_not_listed": warnings.unlisted,
        },
        "requirements": [
            {
                "id": r.requirement.id,
                "level": r.requirement.level,
                "section": r.requirement.section,
                "text": r.requirement.text,
                "status": r.status,
                "expected": r.expected,
                "tests": [
                    {
                        "nodeid": test.nodeid,
                        "outcome": test.outcome_for(r.requirement.id),
                        "expected": c.test_expected(test, r.requirement.id),
                    }
                    for test in r.tests
                ],
                "message": r.message,
                "note": r.note,
                **({"clauses": [clause.to_json() for clause in r.clauses]} if r.clauses else {}),
                **({"deselected": r.deselected} if r.deselected else {}),
                **({"not_exercised": r.unexercised, "to_exercise": r.to_exercise} if r.unexercised else {}),
            }
            for r in c.requirements
        ],
        "unknown_requirements": [{"id": key, "tests": nodeids} for key, nodeids in c.unknown.items()],
        "unknown_clauses": [{"clause": key, "tests": nodeids} for key, nodeids in c.unknown_clauses.items()],
        "tests_without_requirements": [
            {"nodeid": test.nodeid, "outcome": test.outcome, "message": test.message} for test in c.uncited
        ],
        "expected_failures_unmatched": c.unmatched_expected,
    }
