"""The three outputs of a certification: certification.json, traffic.har and report.html."""

from __future__ import annotations

import base64
import json
import re

import pytest
from markupsafe import escape
from small_certifications import (
    CATALOGUE,
    SCRIPT,
    TESTED,
    assert_only_the_reports_own_script,
    make_exchange,
    make_outcome,
    small_certification,
)

from conformance.catalogue.requirements import Requirement
from conformance.certification import write_outputs
from conformance.certification.har import to_har
from conformance.certification.html_report import to_html

pytestmark = pytest.mark.slow  # each test here certifies


def test_certification_json_names_the_target_suite_version_and_times(tmp_path):
    c = small_certification([make_outcome("s.py::test_a", "passed", "ERIS-A-001")])
    paths = write_outputs(c, tmp_path / "out")
    document = json.loads(paths["certification.json"].read_text("utf-8"))
    assert document["target"]["base_url"] == "http://t.example"
    assert document["suite"] == {"name": "eris", "version": "9.9.9"}
    assert document["started"] == "2026-11-21T12:00:00+00:00" and document["finished"] == "2026-11-21T12:00:03+00:00"
    assert [entry["id"] for entry in document["requirements"]] == [r.id for r in CATALOGUE]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["certification.json", "report.html", "traffic.har"]


# -- traffic.har and report.html ----------------------------------------------------------------------------


def test_har_is_1_2_with_one_entry_per_exchange_inbound_included_and_bodies_as_text_or_base64():
    artifact = bytes(range(256))
    outcomes = [
        make_outcome(
            "s.py::test_a", "passed", "ERIS-A-001", exchanges=[make_exchange(started=3.0), make_exchange(started=1.0)]
        ),
        make_outcome(
            "s.py::test_b",
            "failed",
            "ERIS-A-001",
            exchanges=[
                make_exchange(
                    direction="inbound",
                    url="http://127.0.0.1:9/reports/r.enc",
                    request_body=artifact,
                    response_body=b"",
                    started=2.0,
                ),
                make_exchange(response_body=b"x" * 10, response_type="text/plain", response_size=500, started=4.0),
                make_exchange(direction="inbound", request_size=2048, response_body=b"", started=5.0),
            ],
        ),
    ]
    har = json.loads(json.dumps(to_har(small_certification(outcomes))))
    log = har["log"]
    assert log["version"] == "1.2" and log["creator"]["name"] == "eris"
    entries = log["entries"]
    assert len(entries) == 5
    assert [e["startedDateTime"] for e in entries] == sorted(e["startedDateTime"] for e in entries)
    first, inbound, _, cut, unrecorded = entries
    assert first["_eris_test"] == "s.py::test_a" and first["_eris_direction"] == "outbound"
    assert first["request"]["queryString"] == [{"name": "count", "value": "2"}]
    assert json.loads(first["response"]["content"]["text"]) == {"items": [], "nextToken": None}
    assert "encoding" not in first["response"]["content"]
    assert inbound["_eris_direction"] == "inbound" and "s.py::test_b" in inbound["comment"]
    assert inbound["request"]["postData"]["encoding"] == "base64"
    assert base64.b64decode(inbound["request"]["postData"]["text"]) == artifact
    assert cut["response"]["content"]["text"] == "x" * 10
    assert cut["response"]["content"]["comment"] == "first 10 of 500 bytes kept"
    assert unrecorded["request"]["bodySize"] == 2048
    assert unrecorded["request"]["postData"]["comment"] == "2048 bytes, not recorded"
    for entry in entries:
        assert {"startedDateTime", "time", "request", "response", "cache", "timings"} <= set(entry)
        assert {"method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"} <= set(
            entry["request"]
        )


def test_report_html_shows_the_verdict_the_failure_and_its_exchange_escaping_everything():
    body = json.dumps({"detail": SCRIPT}).encode()
    outcomes = [
        make_outcome(
            f"s.py::test_a[{SCRIPT}]",
            "failed",
            "ERIS-A-001",
            message=f"answered {SCRIPT}",
            exchanges=[make_exchange(request_body=body, response_body=body, url=f"http://t.example/v1/x?q={SCRIPT}")],
        ),
        make_outcome("s.py::test_b", "passed", "ERIS-A-002"),
    ]
    page = to_html(small_certification(outcomes))
    assert page.startswith("<!DOCTYPE html>")
    assert "<h1>Non-conformant</h1>" in page
    assert_only_the_reports_own_script(page)
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "A must &lt;b&gt;hold&lt;/b&gt;." in page
    assert "curl -i -X POST" in page
    assert 'src="http' not in page and 'href="http' not in page and "<link" not in page  # self-contained
    assert "In traffic.har: entry 1 (log.entries[0])" in page


def test_report_html_groups_requirements_by_part_of_the_contract_failed_first_with_their_first_cause():
    catalogue = [
        Requirement("ERIS-A-001", "Resources / Party", "Parties have names.", "MUST"),
        Requirement("ERIS-A-002", "Endpoints / Reads; Limits", "Reads page.", "MUST"),
        Requirement("ERIS-A-003", "Endpoints / Reads", "Reads filter.", "MUST"),
        Requirement("ERIS-A-004", "Events", "Pushes notify.", "MUST", feature="notifications"),
    ]
    outcomes = [
        make_outcome("s.py::test_a", "passed", "ERIS-A-001"),
        make_outcome("s.py::test_b", "passed", "ERIS-A-002"),
        make_outcome(
            "s.py::test_c", "failed", "ERIS-A-003", message=f"filter ignored: {SCRIPT}", exchanges=[make_exchange()]
        ),
    ]
    page = to_html(small_certification(outcomes, catalogue=catalogue))
    summary, requirements = page.index('id="summary"'), page.index('id="requirements"')
    assert summary < requirements < page.index('id="failures"')
    assert "Not offered</dt><dd>notifications, blob-storage" in page
    parts = re.findall(r'<section class="part" data-part="([^"]*)">', page)
    assert parts == ["Endpoints", "Resources", "Events"]  # the part that failed first, then the contract's order
    rows = re.findall(r'<tr class="requirement [^"]*" id="r-([^"]*)" data-status="([^"]*)"', page)
    assert rows == [
        ("ERIS-A-003", "failed"),
        ("ERIS-A-002", "passed"),
        ("ERIS-A-001", "passed"),
        ("ERIS-A-004", "not-applicable"),
    ]
    row = page[page.index('id="r-ERIS-A-003"') : page.index('id="r-ERIS-A-002"')]
    assert "Reads filter." in row and "Endpoints / Reads" in row
    assert f'<pre class="message">filter ignored: {escape(SCRIPT)}</pre>' in row
    assert '<details class="evidence"><summary>Evidence: 1 exchange(s) of s.py::test_c' in row  # closed
    assert "curl -i -X GET" in row
    assert 'value="failed" checked' in page and 'id="search"' in page


def test_report_html_of_a_conformant_run():
    page = to_html(small_certification([make_outcome("s.py::test_a", "passed", "ERIS-A-001")], catalogue=TESTED))
    assert "<h1>Conformant</h1>" in page and "Failing tests" not in page


def test_report_html_of_an_incomplete_run_names_what_was_not_exercised():
    page = to_html(small_certification([make_outcome("s.py::test_a", "passed", "ERIS-A-001")]))
    assert "<h1>Incomplete</h1>" in page
    assert "ERIS-A-004: no test of the suite cites it" in page


def test_report_html_folds_the_failing_tests_of_a_requirement_past_ten_and_long_summary_lists():
    outcomes = [make_outcome(f"s.py::test_a[{n}]", "failed", "ERIS-A-001") for n in range(12)]
    page = to_html(small_certification(outcomes))
    row = page[page.index('id="r-ERIS-A-001"') : page.index('id="r-ERIS-A-002"')]
    assert row.count('<span class="badge s-failed">failed</span> <a href="#t-s-py--test-a-') == 12
    assert "<details><summary>2 more failed</summary>" in row
    many = [Requirement(f"ERIS-B-{n:03}", "One", "Untested.", "MUST") for n in range(1, 14)]
    page = to_html(
        small_certification([make_outcome("s.py::test_a", "passed", "ERIS-A-001")], catalogue=[*TESTED, *many])
    )
    assert "<details><summary>13 requirements</summary>" in page  # the MUST requirements not exercised


def test_the_runs_bearer_token_is_not_printed_in_the_report():
    exchange = make_exchange()
    exchange["request_headers"] = {"authorization": "Bearer eyJ.secret-run-token.sig"}
    page = to_html(small_certification([make_outcome("s.py::test_a", "failed", "ERIS-A-001", exchanges=[exchange])]))
    assert "curl -i -X GET" in page and "$ERIS_TOKEN" in page
    assert "secret-run-token" not in page
