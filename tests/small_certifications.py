"""What the tests of `eris certify` share: a small catalogue, outcomes, exchanges, certifications, suites, checks."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from textwrap import dedent

from conformance.catalogue.requirements import Requirement
from conformance.certification import ExpectedFailures, certify
from conformance.client.traffic import Exchange
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it

SCRIPT = "<script>alert('x')</script>"
STARTED = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
CATALOGUE = [
    Requirement("ERIS-A-001", "One", "A must <b>hold</b>.", "MUST"),
    Requirement("ERIS-A-002", "One", "A recommendation.", "SHOULD"),
    Requirement("ERIS-A-003", "Two", "Not shown by the contract.", "INFO"),
    Requirement("ERIS-A-004", "Two", "Nobody tests this.", "MUST"),
    Requirement("ERIS-A-005", "Two", "Only skipped tests.", "MUST"),
]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def make_exchange(
    *,
    direction: str = "outbound",
    url: str = "http://t.example/v1/parties?count=2",
    request_body: bytes = b"",
    response_body: bytes = b'{"items": [], "nextToken": null}',
    response_type: str = "application/json",
    response_size: int | None = None,
    request_size: int | None = None,
    started: float = 1_700_000_000.0,
) -> dict:
    return Exchange(
        direction=direction,
        started=started,
        duration=0.012,
        method="POST" if request_body or request_size else "GET",
        url=url,
        request_headers={"content-type": "application/json"} if request_body or request_size else {},
        request_body=b64(request_body),
        request_body_size=len(request_body) if request_size is None else request_size,
        status=200,
        response_headers={"content-type": response_type},
        response_body=b64(response_body),
        response_body_size=len(response_body) if response_size is None else response_size,
    ).to_dict()


def make_outcome(nodeid: str, outcome: str, *requirements: str, message: str = "", exchanges=()) -> Outcome:
    return Outcome(nodeid, outcome, list(requirements), message, 0.1, list(exchanges))


def small_certification(outcomes: list[Outcome], expected: str = "", catalogue=CATALOGUE, **options):
    return certify(
        catalogue,
        outcomes,
        base_url="http://t.example",
        started=STARTED,
        finished=STARTED + timedelta(seconds=3),
        expected=ExpectedFailures.parse(expected, today=date(2026, 11, 24)),
        version="9.9.9",
        **options,
    )


TESTED = CATALOGUE[:3]
"""A catalogue whose every MUST requirement the tests of a certification can exercise."""


def requirements_by_id(document: dict) -> dict[str, dict]:
    return {entry["id"]: entry for entry in document["requirements"]}


def write_suite(root: Path, files: dict[str, str]) -> Path:
    suite = root / "pkg" / "suite"
    suite.mkdir(parents=True)
    for name, text in files.items():
        (suite / name).write_text(dedent(text), encoding="utf-8")
    return suite


def assert_only_the_reports_own_script(page: str) -> None:
    """Text of the target's is escaped, so the page's one script is the report's own; its policy allows that
    script and style by their hashes, and nothing else."""
    assert page.lower().count("<script") == 1 and page.lower().count("<style") == 1
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert policy, "no Content-Security-Policy"
    script = re.search(r"<script>(.*?)</script>", page, re.DOTALL)
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert script and style and "eval(" not in script[1]

    def allowed(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert policy[1] == (
        f"default-src 'none'; style-src {allowed(style[1])}; script-src {allowed(script[1])}; "
        "base-uri 'none'; form-action 'none'"
    )
