"""A vendor's first run: `eris certify --target URL` with no token, against the reference implementation served on
a free port. What the suite could not do without a token is not exercised, never the target's failure: the run is
INCOMPLETE with no failed requirement, and every test skipped for want of a token says that a token would exercise
it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator

import pytest
from project_paths import run_certify
from serve_fixtures import RunningServer, running, seeded_settings

pytestmark = pytest.mark.slow  # a certification of its own

RUN_TIMEOUT = 300
PROPERTY_PHASE = ("--seed", "2", "--examples", "3")
"""A few examples of each operation: the property phase is where a run without a token sent `Bearer ` (empty)."""


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with running(seeded_settings(local_root=str(tmp_path_factory.mktemp("deliveries")))) as server:
        yield server


def test_a_run_without_a_token_is_incomplete_with_no_failed_requirement(reference, tmp_path):
    out = tmp_path / "certification"
    done = run_certify(
        "--target", reference.url, "--report-dir", str(out), *PROPERTY_PHASE, "-q", timeout=RUN_TIMEOUT, cwd=tmp_path
    )
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads((out / "certification.json").read_text())["summary"]
    assert summary["verdict"] == "incomplete"
    assert summary["counts"]["failed"] == 0 and summary["failed_must"] == [], summary["causes"]
    assert summary["tests"]["failed"] == 0 and summary["tests"]["error"] == 0
    skipped = {
        case.get("name"): skip.get("message", "")
        for case in ElementTree.parse(out / "junit.xml").iter("testcase")
        for skip in case.iter("skipped")
    }
    for_want_of_a_token = {name: message for name, message in skipped.items() if "gives no token " in message}
    # the orders, their refusals, and the generated orders of the property phase
    assert any("POST /v1/reports" in name for name in for_want_of_a_token), sorted(skipped)
    assert len(for_want_of_a_token) >= 10, sorted(skipped)
    assert all("To exercise it: [target] token" in message for message in for_want_of_a_token.values())
    assert (
        "To exercise it: [target] token_without_report_right" in skipped["test_a_token_without_the_report_right_is_403"]
    )
