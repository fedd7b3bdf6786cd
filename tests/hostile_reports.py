"""A certification whose every value a target or a test can choose carries markup: the page made of it must show
that markup as text (tests/conformance/test_report_escaping.py, and in a browser test_report_browser.py)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

from conformance.catalogue.requirements import Requirement
from conformance.certification import certify
from conformance.certification.judgement import Certification
from conformance.client.traffic import Exchange
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it

SCRIPT = "<script>document.title='run by the page'</script>"
IMAGE = "<img src=x onerror=\"document.title='run by the page'\">"
MARKUP = SCRIPT + IMAGE
"""What a hostile target answers: a script, and an image whose error handler would run one."""
STARTED = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
READS = Requirement("ERIS-X-001", "Reads", "GET /v1/x: parameters a, b.", "MUST", clauses=("a", "b"))
FAILED_TEST = f"s.py::test_x[{MARKUP}]"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hostile_certification() -> Certification:
    """A failed requirement whose test id, message, request, answer headers and body carry MARKUP, beside a
    partly-exercised one whose exercised clause value and reason for the other clause carry it too."""
    body = json.dumps({"detail": MARKUP}).encode()
    exchange = Exchange(
        direction="outbound",
        started=1_700_000_000.0,
        duration=0.01,
        method="GET",
        url=f"http://t.example/v1/x?a={MARKUP}",
        request_headers={},
        request_body="",
        request_body_size=0,
        status=400,
        response_headers={"content-type": "application/json", "x-note": MARKUP},
        response_body=_b64(body),
        response_body_size=len(body),
    ).to_dict()
    failed = Outcome(FAILED_TEST, "failed", ["ERIS-X-002"], f"answered {MARKUP}", 0.1, [exchange])
    partly = Outcome("s.py::test_clauses", "passed", ["ERIS-X-001"], "", 0.1)
    partly.clauses = {"ERIS-X-001": {"a": f"GET /v1/x?a={MARKUP}"}}
    partly.unexercised = {"ERIS-X-001": {"b": f"no item carries {MARKUP}"}}
    catalogue = [READS, Requirement("ERIS-X-002", "Reads", "Errors are Problem Details.", "MUST")]
    return certify(
        catalogue, [failed, partly], base_url="http://t.example", started=STARTED, finished=STARTED + timedelta(1)
    )
