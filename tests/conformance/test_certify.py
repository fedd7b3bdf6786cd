"""`eris certify` and `eris requirements`: the catalogue and its static coverage, the judgement of each
requirement and the verdict, the three outputs (certification.json, report.html, traffic.har), and the
command as a user runs it: exit codes with a one-line reason, and end-to-end runs against the embedded
reference implementation with a small suite of this file's own (the real suite is tested on its own)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from textwrap import dedent

import pytest
from handler_servers import serving_handler
from markupsafe import escape
from project_paths import eris_command

from conformance.catalogue.requirements import Requirement, coverage, load_catalogue
from conformance.certification import ExpectedFailures, certify, to_json, write_outputs
from conformance.certification.har import to_har
from conformance.certification.html_report import to_html
from conformance.cli import main
from conformance.client.traffic import Exchange
from conformance.configuration.settings import DEFAULT_BACKOFF
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it
from conformance.run.embedded import free_port

pytestmark = pytest.mark.slow  # each test here certifies through eris certify

RUN_TIMEOUT = 240
SCRIPT = "<script>alert('x')</script>"
STARTED = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
CATALOGUE = [
    Requirement("ERIS-A-001", "One", "A must <b>hold</b>.", "MUST"),
    Requirement("ERIS-A-002", "One", "A recommendation.", "SHOULD"),
    Requirement("ERIS-A-003", "Two", "Not shown by the contract.", "INFO"),
    Requirement("ERIS-A-004", "Two", "Nobody tests this.", "MUST"),
    Requirement("ERIS-A-005", "Two", "Only skipped tests.", "MUST"),
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _exchange(
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
        request_body=_b64(request_body),
        request_body_size=len(request_body) if request_size is None else request_size,
        status=200,
        response_headers={"content-type": response_type},
        response_body=_b64(response_body),
        response_body_size=len(response_body) if response_size is None else response_size,
    ).to_dict()


def _outcome(nodeid: str, outcome: str, *requirements: str, message: str = "", exchanges=()) -> Outcome:
    return Outcome(nodeid, outcome, list(requirements), message, 0.1, list(exchanges))


def _certify(outcomes: list[Outcome], expected: str = "", catalogue=CATALOGUE, **options):
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
"""A catalogue whose every MUST requirement the tests below can exercise."""


def _by_id(document: dict) -> dict[str, dict]:
    return {entry["id"]: entry for entry in document["requirements"]}


# -- the catalogue and its coverage -------------------------------------------------------------------------


def test_the_shipped_catalogue_loads_with_unique_ids():
    catalogue = load_catalogue()
    assert catalogue and len({r.id for r in catalogue}) == len(catalogue)
    assert {r.level for r in catalogue} <= {"MUST", "SHOULD", "INFO"}


ROW = '[[requirement]]\nid = "{id}"\nsection = "S"\ntext = "T"\nlevel = "{level}"\n'


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (ROW.format(id="ERIS-X-001", level="MUST") * 2, "ERIS-X-001 is given twice"),
        (ROW.format(id="ERIS-X-001", level="MAY"), "level must be one of MUST, SHOULD, INFO"),
        (ROW.format(id="X-1", level="MUST"), "not of the form ERIS-<AREA>-<NNN>"),
        ('[[requirement]]\nid = "ERIS-X-001"\nsection = "S"\nlevel = "MUST"\n', "text must be a non-empty string"),
        (ROW.format(id="ERIS-X-001", level="MUST") + 'tests = ["x"]\n', "unknown field(s) tests"),
        ("[[requirement]\n", "is not TOML"),
        ("requirement = 3\n", "array of tables"),
    ],
)
def test_a_malformed_catalogue_is_a_value_error_naming_the_problem(tmp_path, text, error):
    path = tmp_path / "requirements.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as raised:
        load_catalogue(path)
    assert error in str(raised.value) and str(path) in str(raised.value)


def _suite(root: Path, files: dict[str, str]) -> Path:
    suite = root / "pkg" / "suite"
    suite.mkdir(parents=True)
    for name, text in files.items():
        (suite / name).write_text(dedent(text), encoding="utf-8")
    return suite


def test_coverage_reads_marks_on_functions_classes_pytestmark_and_params_without_running(tmp_path):
    suite = _suite(
        tmp_path,
        {
            "test_one.py": """
                import pytest
                from pytest import mark

                pytestmark = [pytest.mark.requirement("ERIS-M-001"), pytest.mark.slow]
                BOTH = ("ERIS-C-001", "ERIS-C-002")
                raise SystemExit("coverage must not import the suite")

                @pytest.mark.requirement("ERIS-F-001", "ERIS-F-002")
                def test_function(): ...

                @mark.requirement(*BOTH)
                async def test_async(): ...

                @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.requirement("ERIS-P-001"))])
                def test_param(x): ...

                @pytest.mark.requirement("ERIS-K-001")
                class TestClass:
                    pytestmark = pytest.mark.requirement("ERIS-K-002")

                    @pytest.mark.requirement("ERIS-F-001")
                    def test_method(self): ...

                    def helper(self): ...

                @pytest.mark.requirement("ERIS-H-001")
                def helper(): ...
            """,
            "test_two.py": "def test_unmarked(): ...\n",
            "helpers.py": "import pytest\n@pytest.mark.requirement('ERIS-H-002')\ndef test_not_a_test_file(): ...\n",
        },
    )
    found = coverage(suite)
    one = "pkg/suite/test_one.py"
    assert found == {
        "ERIS-M-001": [
            f"{one}::test_function",
            f"{one}::test_async",
            f"{one}::test_param",
            f"{one}::TestClass::test_method",
        ],
        "ERIS-F-001": [f"{one}::test_function", f"{one}::TestClass::test_method"],
        "ERIS-F-002": [f"{one}::test_function"],
        "ERIS-C-001": [f"{one}::test_async"],
        "ERIS-C-002": [f"{one}::test_async"],
        "ERIS-P-001": [f"{one}::test_param"],
        "ERIS-K-001": [f"{one}::TestClass::test_method"],
        "ERIS-K-002": [f"{one}::TestClass::test_method"],
    }


def test_coverage_of_a_suite_file_that_does_not_parse_is_a_value_error_with_its_line(tmp_path):
    suite = _suite(tmp_path, {"test_bad.py": "def test_x(:\n    pass\n"})
    with pytest.raises(ValueError, match=r"test_bad\.py:1: the suite file does not parse"):
        coverage(suite)


def test_eris_requirements_lists_levels_counts_untested_and_json(tmp_path, capsys):
    first = load_catalogue()[0].id
    suite = _suite(tmp_path, {"test_x.py": f"import pytest\n@pytest.mark.requirement('{first}')\ndef test_x(): ...\n"})
    assert main(["requirements", "--suite", str(suite)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == [first, load_catalogue()[0].level, "1"]
    assert lines[-1].startswith(f"{len(load_catalogue())} requirements: 1 cited by a test")

    assert main(["requirements", "--suite", str(suite), "--untested", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["requirements"]
    assert first not in {row["id"] for row in listed}
    assert len(listed) == len(load_catalogue()) - 1 and all(row["tests"] == [] for row in listed)


def test_eris_requirements_of_a_broken_suite_is_exit_2_in_one_line(tmp_path, capsys):
    suite = _suite(tmp_path, {"test_bad.py": "def test_x(:\n"})
    assert main(["requirements", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not parse" in err


# -- judging requirements, and the verdict ------------------------------------------------------------------


def test_a_failed_must_requirement_makes_the_run_non_conformant():
    c = _certify([_outcome("s.py::test_a", "failed", "ERIS-A-001", message="GET /v1/x answered 500")])
    document = to_json(c)
    assert document["summary"]["verdict"] == "non-conformant"
    assert document["summary"]["failed_must"] == ["ERIS-A-001"]
    entry = _by_id(document)["ERIS-A-001"]
    assert entry["status"] == "failed" and entry["message"] == "GET /v1/x answered 500"
    assert entry["tests"] == [{"nodeid": "s.py::test_a", "outcome": "failed", "expected": False}]


def test_an_error_outside_the_test_body_fails_its_requirement_too():
    assert _certify([_outcome("s.py::test_a", "error", "ERIS-A-001")]).verdict == "non-conformant"


def test_failed_info_and_should_requirements_leave_the_run_conformant():
    outcomes = [
        _outcome("s.py::test_info", "failed", "ERIS-A-003", message="seen something else"),
        _outcome("s.py::test_should", "failed", "ERIS-A-002", message="a 2048-bit key"),
        _outcome("s.py::test_must", "passed", "ERIS-A-001"),
    ]
    c = _certify(outcomes, catalogue=TESTED)
    entries = _by_id(to_json(c))
    assert c.verdict == "conformant"
    assert entries["ERIS-A-003"]["status"] == "skipped"  # INFO is never a failure
    assert "informational" in entries["ERIS-A-003"]["note"]
    assert entries["ERIS-A-003"]["message"] == "seen something else"
    assert entries["ERIS-A-002"]["status"] == "failed"
    assert entries["ERIS-A-001"]["status"] == "passed"


def test_untested_and_only_skipped_must_requirements_make_the_run_incomplete():
    c = _certify(
        [
            _outcome("s.py::test_a", "passed", "ERIS-A-001"),
            _outcome("s.py::test_s", "skipped", "ERIS-A-005", message="the target serves none"),
        ]
    )
    document = to_json(c)
    entries = _by_id(document)
    assert entries["ERIS-A-004"] == entries["ERIS-A-004"] | {"status": "not-tested", "tests": [], "message": ""}
    assert entries["ERIS-A-005"]["status"] == "skipped"
    assert entries["ERIS-A-005"]["message"] == "the target serves none"
    assert document["summary"]["counts"] == {
        "passed": 1,
        "partly-exercised": 0,
        "failed": 0,
        "skipped": 1,
        "not-tested": 3,
        "not-applicable": 0,
    }
    assert c.verdict == "incomplete"
    assert document["summary"]["incomplete"] == [
        {"id": "ERIS-A-004", "reason": "no test of the suite cites it"},
        {"id": "ERIS-A-005", "reason": "every test was skipped: the target serves none"},
    ]


def test_a_must_requirement_some_of_whose_tests_were_deselected_makes_the_run_incomplete():
    cited = {"ERIS-A-001": ["s.py::test_a", "s.py::test_b"], "ERIS-A-003": ["s.py::test_c"]}
    ran = [_outcome("s.py::test_a[x]", "passed", "ERIS-A-001")]

    c = _certify(ran, catalogue=TESTED, cited=cited, selection="-k test_a")

    assert (
        _by_id(to_json(c))["ERIS-A-001"] | {"status": "passed", "deselected": ["s.py::test_b"]}
        == _by_id(to_json(c))["ERIS-A-001"]
    )
    assert c.verdict == "incomplete" and c.incomplete == {"ERIS-A-001": "1 test citing it deselected"}
    assert to_json(c)["summary"]["selection"] == "-k test_a"
    everything = [*ran, _outcome("s.py::test_b", "passed", "ERIS-A-001")]
    assert _certify(everything, catalogue=TESTED, cited=cited).verdict == "conformant"


def test_a_requirement_of_an_undeclared_feature_is_not_applicable_and_does_not_make_the_run_incomplete():
    catalogue = [*TESTED, Requirement("ERIS-N-001", "Events", "Pushed.", "MUST", "notifications")]
    outcomes = [
        _outcome("s.py::test_a", "passed", "ERIS-A-001"),
        _outcome("s.py::test_push", "skipped", "ERIS-N-001", message="notifications not declared"),
    ]

    undeclared = _certify(outcomes, catalogue=catalogue)
    declared = _certify(outcomes, catalogue=catalogue, features=["notifications"])

    assert _by_id(to_json(undeclared))["ERIS-N-001"]["status"] == "not-applicable"
    assert undeclared.verdict == "conformant"
    assert to_json(undeclared)["summary"]["certified_for"] == "the core contract"
    assert _by_id(to_json(declared))["ERIS-N-001"]["status"] == "skipped"
    assert declared.verdict == "incomplete"
    assert to_json(declared)["summary"]["certified_for"] == "the core contract, notifications"


def test_a_requirement_with_a_failing_and_a_passing_test_fails():
    c = _certify([_outcome("s.py::test_a", "passed", "ERIS-A-001"), _outcome("s.py::test_b", "failed", "ERIS-A-001")])
    assert _by_id(to_json(c))["ERIS-A-001"]["status"] == "failed"


def test_expected_failures_are_listed_with_their_reasons_and_do_not_count():
    outcomes = [
        _outcome("s.py::test_a[case-1]", "failed", "ERIS-A-001", message="known"),
        _outcome("s.py::test_c", "failed", "ERIS-A-003"),
    ]
    listed = "# known problems of release 3\nERIS-A-001: count capped at 50 (ticket 12) (until 2027-01-31)\n"
    c = _certify(outcomes, listed, catalogue=TESTED)
    document = to_json(c)
    assert document["summary"]["verdict"] == "conformant"
    entry = _by_id(document)["ERIS-A-001"]
    assert entry["status"] == "failed" and entry["expected"] is True
    assert entry["note"] == "expected failure: count capped at 50 (ticket 12)"
    assert document["summary"]["expected_failures"] == [
        {"id": "ERIS-A-001", "reason": "count capped at 50 (ticket 12)", "until": "2027-01-31"}
    ]
    assert document["summary"]["failed_must"] == []


def test_an_expired_expected_failure_counts_again():
    listed = "ERIS-A-001: count capped at 50 (until 2026-11-23)\n"
    c = _certify([_outcome("s.py::test_a", "failed", "ERIS-A-001")], listed, catalogue=TESTED)
    assert c.verdict == "non-conformant" and c.failed_must == ["ERIS-A-001"]
    assert "expired on 2026-11-23" in _by_id(to_json(c))["ERIS-A-001"]["note"]
    assert to_json(c)["summary"]["expired_expected_failures"][0]["id"] == "ERIS-A-001"


def test_an_expected_failure_of_one_requirement_does_not_excuse_another_the_same_test_fails():
    c = _certify([_outcome("s.py::test_a", "failed", "ERIS-A-001", "ERIS-A-004")], "ERIS-A-001: known\n")
    assert c.verdict == "non-conformant" and c.failed_must == ["ERIS-A-004"]
    entries = _by_id(to_json(c))
    assert entries["ERIS-A-001"]["tests"][0]["expected"] is True
    assert entries["ERIS-A-004"]["tests"][0]["expected"] is False
    assert "failed (expected)" not in to_html(c).split("<h2>Failing tests</h2>")[1]


def test_an_expected_failure_that_passes_is_reported_fixed_and_unknown_entries_are_reported():
    c = _certify([_outcome("s.py::test_a", "passed", "ERIS-A-001")], "ERIS-A-001: known\nERIS-TYPO-001: typo\n")
    document = to_json(c)
    assert document["summary"]["fixed"] == ["ERIS-A-001"]
    assert "fixed" in _by_id(document)["ERIS-A-001"]["note"]
    assert document["expected_failures_unmatched"] == ["ERIS-TYPO-001"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("ERIS-A-001\n", "give the reason ERIS-A-001 is expected to fail"),
        ("s.py::test_a: flaky\n", "expected failures name requirements, not tests"),
        ("ERIS-A-001: one\nERIS-A-001: two\n", "ERIS-A-001 is listed twice (first on line 1)"),
        ("ERIS-A-001: why (until next week)\n", "`until` takes a date YYYY-MM-DD, not 'next week'"),
    ],
)
def test_a_malformed_expected_failures_file_is_refused_naming_the_line(text, error):
    with pytest.raises(ValueError, match=r"list:\d: .*" + re.escape(error)):
        ExpectedFailures.parse(text, "list")


def test_ids_outside_the_catalogue_and_uncited_tests_are_reported_but_not_judged():
    c = _certify([_outcome("s.py::test_u", "failed", "ERIS-ZZ-001"), _outcome("s.py::test_none", "failed")])
    document = to_json(c)
    assert document["summary"]["verdict"] == "incomplete"  # nothing of the catalogue ran; nothing failed
    assert document["unknown_requirements"] == [{"id": "ERIS-ZZ-001", "tests": ["s.py::test_u"]}]
    assert [t["nodeid"] for t in document["tests_without_requirements"]] == ["s.py::test_none"]
    assert document["summary"]["tests"] == {"passed": 0, "failed": 2, "error": 0, "skipped": 0}


def test_certification_json_names_the_target_suite_version_and_times(tmp_path):
    c = _certify([_outcome("s.py::test_a", "passed", "ERIS-A-001")])
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
        _outcome("s.py::test_a", "passed", "ERIS-A-001", exchanges=[_exchange(started=3.0), _exchange(started=1.0)]),
        _outcome(
            "s.py::test_b",
            "failed",
            "ERIS-A-001",
            exchanges=[
                _exchange(
                    direction="inbound",
                    url="http://127.0.0.1:9/reports/r.enc",
                    request_body=artifact,
                    response_body=b"",
                    started=2.0,
                ),
                _exchange(response_body=b"x" * 10, response_type="text/plain", response_size=500, started=4.0),
                _exchange(direction="inbound", request_size=2048, response_body=b"", started=5.0),
            ],
        ),
    ]
    har = json.loads(json.dumps(to_har(_certify(outcomes))))
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
        _outcome(
            f"s.py::test_a[{SCRIPT}]",
            "failed",
            "ERIS-A-001",
            message=f"answered {SCRIPT}",
            exchanges=[_exchange(request_body=body, response_body=body, url=f"http://t.example/v1/x?q={SCRIPT}")],
        ),
        _outcome("s.py::test_b", "passed", "ERIS-A-002"),
    ]
    page = to_html(_certify(outcomes))
    assert page.startswith("<!DOCTYPE html>")
    assert "<h1>Non-conformant</h1>" in page
    _assert_only_the_reports_own_script(page)
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "A must &lt;b&gt;hold&lt;/b&gt;." in page
    assert "curl -i -X POST" in page
    assert 'src="http' not in page and 'href="http' not in page and "<link" not in page  # self-contained
    assert "In traffic.har: entry 1 (log.entries[0])" in page


def _assert_only_the_reports_own_script(page: str) -> None:
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


def test_report_html_groups_requirements_by_part_of_the_contract_failed_first_with_their_first_cause():
    catalogue = [
        Requirement("ERIS-A-001", "Resources / Party", "Parties have names.", "MUST"),
        Requirement("ERIS-A-002", "Endpoints / Reads; Limits", "Reads page.", "MUST"),
        Requirement("ERIS-A-003", "Endpoints / Reads", "Reads filter.", "MUST"),
        Requirement("ERIS-A-004", "Events", "Pushes notify.", "MUST", feature="notifications"),
    ]
    outcomes = [
        _outcome("s.py::test_a", "passed", "ERIS-A-001"),
        _outcome("s.py::test_b", "passed", "ERIS-A-002"),
        _outcome("s.py::test_c", "failed", "ERIS-A-003", message=f"filter ignored: {SCRIPT}", exchanges=[_exchange()]),
    ]
    page = to_html(_certify(outcomes, catalogue=catalogue))
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
    page = to_html(_certify([_outcome("s.py::test_a", "passed", "ERIS-A-001")], catalogue=TESTED))
    assert "<h1>Conformant</h1>" in page and "Failing tests" not in page


def test_report_html_of_an_incomplete_run_names_what_was_not_exercised():
    page = to_html(_certify([_outcome("s.py::test_a", "passed", "ERIS-A-001")]))
    assert "<h1>Incomplete</h1>" in page
    assert "ERIS-A-004: no test of the suite cites it" in page


def test_report_html_folds_the_failing_tests_of_a_requirement_past_ten_and_long_summary_lists():
    outcomes = [_outcome(f"s.py::test_a[{n}]", "failed", "ERIS-A-001") for n in range(12)]
    page = to_html(_certify(outcomes))
    row = page[page.index('id="r-ERIS-A-001"') : page.index('id="r-ERIS-A-002"')]
    assert row.count('<span class="badge s-failed">failed</span> <a href="#t-s-py--test-a-') == 12
    assert "<details><summary>2 more failed</summary>" in row
    many = [Requirement(f"ERIS-B-{n:03}", "One", "Untested.", "MUST") for n in range(1, 14)]
    page = to_html(_certify([_outcome("s.py::test_a", "passed", "ERIS-A-001")], catalogue=[*TESTED, *many]))
    assert "<details><summary>13 requirements</summary>" in page  # the MUST requirements not exercised


# -- the command: exit codes ---------------------------------------------------------------------------------


def _one_error_line(captured: pytest.CaptureResult[str]) -> str:
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("eris: ")
    return lines[0]


def test_an_unreachable_target_is_exit_2_with_the_reason_in_one_line(tmp_path, capsys):
    port = free_port()
    assert main(["certify", "--target", f"http://127.0.0.1:{port}", "--report-dir", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr())
    assert f"the target http://127.0.0.1:{port} cannot be reached" in line
    assert not (tmp_path / "out" / "certification.json").exists()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read the target description"),
        ("[target\nbase_url = 1", "is not TOML"),
        ('[target]\ntoken = "t"\n', "no target"),
        ('[target]\nbase_url = "ftp://x"\n', "must be an absolute http(s) URL"),
        ('target = "x"\n', "[target] must be a table"),
        ('[target]\nbase_url = "http://x"\n[features]\nstorage = "blob"\n', "storage must be a list"),
        ('[target]\nbase_url = "http://x"\n[features]\nstorage = ["ftp"]\n', "names ['ftp']"),
        ('[target]\nbase_url = "http://x"\nstorage = 1\n[storage]\nblob = 2\n', "[blob] must be a table"),
    ],
)
def test_a_bad_target_description_is_exit_2_in_one_line(tmp_path, capsys, content, reason):
    config = tmp_path / "target.toml"
    if content is not None:
        config.write_text(content, encoding="utf-8")
    assert main(["certify", "--config", str(config), "--report-dir", str(tmp_path / "out")]) == 2
    assert reason in _one_error_line(capsys.readouterr())


def test_bad_options_are_exit_2_in_one_line(tmp_path, capsys, monkeypatch):
    out = ["--report-dir", str(tmp_path / "out"), "--target", "http://127.0.0.1:9"]
    assert main(["certify", *out, "--expected-failures", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read the expected failures" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--delivery-timeout", "0"]) == 2
    assert "--delivery-timeout must be more than 0" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--backoff", "0"]) == 2
    assert "--backoff must be more than 0 seconds, not 0" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--suite", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in _one_error_line(capsys.readouterr())
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    assert main(["certify", *out, "--workers", "2"]) == 2
    assert "--workers needs pytest-xdist" in _one_error_line(capsys.readouterr())


# -- the command end to end (subprocesses: each run is a pytest session of its own) --------------------------

PROBE_SUITE = {
    "test_probe.py": f"""
        import pytest

        @pytest.mark.requirement("ERIS-BASE-001")
        def test_parties_are_read(api):
            api.read("/v1/parties")

        @pytest.mark.requirement("ERIS-PARTY-003")
        def test_a_check_that_fails(api):
            response = api.post("/v1/parties", json={{"resourceType": "Party", "comment": "{SCRIPT}"}})
            assert response.status_code == 599, "{SCRIPT} was not answered 599"

        @pytest.mark.requirement("ERIS-PARTY-009")
        def test_an_informational_observation():
            assert False, "an observation"

        @pytest.mark.requirement("ERIS-NS-001")
        def test_a_clause_exercised():
            from conformance.harness.plugin import exercised

            exercised("ERIS-NS-001", "usage", value="Party", request="GET /v1/naming-systems?usage=Party")

        def test_deselected_by_k(api):
            raise AssertionError("-k must deselect this test")
    """,
}


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*eris_command(), "certify", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def embedded_run(tmp_path_factory) -> tuple[subprocess.CompletedProcess[str], Path]:
    root = tmp_path_factory.mktemp("certify")
    suite = _suite(root, PROBE_SUITE)
    out = root / "report"
    return _run("--suite", str(suite), "--report-dir", str(out), "-k", "not deselected", cwd=root), out


def test_end_to_end_the_embedded_reference_is_certified_with_every_output(embedded_run):
    result, out = embedded_run
    assert result.returncode == 1, result.stdout + result.stderr
    assert "certifying the embedded reference implementation at http://127.0.0.1:" in result.stdout
    assert "eris certify: 4 tests in 1 parts of the contract" in result.stdout  # progress as plain lines: a pipe
    assert "eris certify: 4/4 tests (100%), 2 failed" in result.stdout and "[100%]" not in result.stdout
    assert "NON-CONFORMANT" in result.stdout
    assert "failed MUST ERIS-PARTY-003" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["certification.json", "junit.xml", "report.html", "traffic.har"]

    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["target"]["embedded_reference_implementation"] is True
    assert document["summary"]["verdict"] == "non-conformant"
    assert document["summary"]["tests"] == {"passed": 2, "failed": 2, "error": 0, "skipped": 0}
    entries = _by_id(document)
    assert entries["ERIS-BASE-001"]["status"] == "passed"
    assert entries["ERIS-NS-001"]["status"] == "passed"  # its one clause recorded by a test that held
    assert entries["ERIS-NS-001"]["clauses"] == [
        {
            "clause": "usage",
            "exercised": "GET /v1/naming-systems?usage=Party",
            "test": "pkg/suite/test_probe.py::test_a_clause_exercised",
        }
    ]
    assert entries["ERIS-PARTY-003"]["status"] == "failed"
    assert "was not answered 599" in entries["ERIS-PARTY-003"]["message"]
    assert entries["ERIS-PARTY-009"]["status"] == "skipped"  # INFO
    assert entries["ERIS-TYPE-001"]["status"] == "not-tested"
    # the back-off after a 429 without Retry-After is the suite's choice: the report states it
    assert document["run"]["backoff_s"] == DEFAULT_BACKOFF
    assert f"without Retry-After {DEFAULT_BACKOFF:g} s, doubling" in document["run"]["backoff"]
    nodeids = {test["nodeid"] for entry in entries.values() for test in entry["tests"]}
    assert nodeids == {
        "pkg/suite/test_probe.py::test_parties_are_read",
        "pkg/suite/test_probe.py::test_a_check_that_fails",
        "pkg/suite/test_probe.py::test_an_informational_observation",
        "pkg/suite/test_probe.py::test_a_clause_exercised",
    }

    har = json.loads((out / "traffic.har").read_text("utf-8"))
    assert har["log"]["version"] == "1.2"
    entries_har = har["log"]["entries"]
    assert [(e["request"]["method"], e["_eris_test"].split("::")[1]) for e in entries_har] == [
        ("GET", "test_parties_are_read"),
        ("POST", "test_a_check_that_fails"),
    ]
    assert SCRIPT in entries_har[1]["request"]["postData"]["text"]

    page = (out / "report.html").read_text("utf-8")
    assert "<h1>Non-conformant</h1>" in page
    assert "<dt>Back-off</dt>" in page and escape(document["run"]["backoff"]) in page
    _assert_only_the_reports_own_script(page)
    assert "&lt;script&gt;" in page and "curl -i -X POST" in page
    assert "testsuite" in (out / "junit.xml").read_text("utf-8")


LOGGERS_MADE_MEANWHILE_SUITE = {
    "test_loggers.py": """
        import itertools
        import logging
        import threading
        import time

        import pytest

        @pytest.fixture(scope="module", autouse=True)
        def loggers_made_meanwhile():
            done = threading.Event()

            def make_loggers():
                for number in itertools.count():
                    if done.is_set():
                        return
                    logging.getLogger(f"made-meanwhile.{number}")
                    if number % 10 == 0:
                        time.sleep(0.0001)

            maker = threading.Thread(target=make_loggers, daemon=True)
            maker.start()
            yield
            done.set()
            maker.join()

        @pytest.mark.requirement("ERIS-BASE-001")
        @pytest.mark.parametrize("number", range(150))
        def test_nothing_but_time_passing(number):
            pass
    """,
}


def test_loggers_made_by_another_thread_during_the_run_fail_no_test(tmp_path):
    """The embedded target, a store starting or a delivery may make a logger while a test starts: pytest's logging
    plugin iterated the registry of loggers unlocked there, and failed that test (charged to the target)."""
    suite = _suite(tmp_path, LOGGERS_MADE_MEANWHILE_SUITE)
    out = tmp_path / "report"
    result = _run("--suite", str(suite), "--report-dir", str(out), "--quiet", cwd=tmp_path)
    assert (out / "certification.json").exists(), result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["tests"] == {"passed": 150, "failed": 0, "error": 0, "skipped": 0}, result.stdout


def test_end_to_end_expected_failures_are_not_counted_and_quiet_hides_progress(embedded_run, tmp_path):
    _, first = embedded_run
    suite = first.parent / "pkg" / "suite"
    listed = tmp_path / "expected.txt"
    listed.write_text("# the probe suite fails this on purpose\nERIS-PARTY-003: the probe\n", encoding="utf-8")
    out = tmp_path / "report"
    result = _run(
        "--suite", str(suite), "--report-dir", str(out), "-k", "not deselected", "--expected-failures", str(listed),
        "--quiet", cwd=tmp_path,
    )  # fmt: skip
    # The probe suite exercises three requirements of the catalogue: nothing failed but as expected, yet most
    # MUST requirements were not exercised.
    assert result.returncode == 3, result.stdout + result.stderr
    assert "INCOMPLETE" in result.stdout and "(expected)" in result.stdout
    assert "[100%]" not in result.stdout and "eris certify: 3" not in result.stdout  # no progress
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert [entry["id"] for entry in document["summary"]["expected_failures"]] == ["ERIS-PARTY-003"]
    assert _by_id(document)["ERIS-PARTY-003"]["expected"] is True


def test_a_k_selecting_nothing_and_a_bad_k_are_exit_2(embedded_run, stub_target, tmp_path):
    _, first = embedded_run
    common = ["--suite", str(first.parent / "pkg" / "suite"), "--target", stub_target]
    nothing = _run(*common, "--report-dir", str(tmp_path / "a"), "-k", "no_such_test", cwd=tmp_path)
    assert nothing.returncode == 2, nothing.stdout + nothing.stderr
    assert nothing.stderr.strip().splitlines()[-1] == (
        "eris: no conformance test ran (-k 'no_such_test' selected none): a certification needs at least one"
    )
    broken = _run(*common, "--report-dir", str(tmp_path / "b"), "-k", "not (", cwd=tmp_path)
    assert broken.returncode == 2, broken.stdout + broken.stderr
    assert broken.stderr.strip().splitlines()[-1].startswith("eris: pytest refused the options of the run")


class _StubTarget(BaseHTTPRequestHandler):
    """Answers every GET with an empty read envelope: a reachable target for runs that stop early."""

    def do_GET(self):
        body = b'{"items": [], "nextToken": null}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub_target() -> Iterator[str]:
    with serving_handler(_StubTarget) as url:
        yield url


def test_a_stop_of_the_plugin_is_exit_2_with_its_reason_in_one_line(tmp_path, stub_target):
    """The receiver's port is taken: the plugin stops the run with pytest.exit(returncode=2)."""
    suite = _suite(tmp_path, {"test_r.py": "def test_needs_receiver(receiver):\n    pass\n"})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "target.toml"
        config.write_text(f'[target]\nbase_url = "{stub_target}"\n[receiver]\nport = {port}\n', encoding="utf-8")
        started = time.monotonic()
        result = _run("--suite", str(suite), "--config", str(config), "--report-dir", str(tmp_path / "o"), cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"eris: the receiver cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "o" / "certification.json").exists()
    assert time.monotonic() - started < RUN_TIMEOUT


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist is not installed")
def test_end_to_end_with_workers_the_node_ids_are_those_of_a_plain_run(embedded_run, tmp_path):
    _, first = embedded_run
    suite = str(first.parent / "pkg" / "suite")
    out = tmp_path / "report"
    result = _run("--suite", suite, "--report-dir", str(out), "-k", "not deselected", "--workers", "2", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["tests"] == {"passed": 2, "failed": 2, "error": 0, "skipped": 0}
    assert _by_id(document)["ERIS-BASE-001"]["tests"][0]["nodeid"] == "pkg/suite/test_probe.py::test_parties_are_read"


def test_a_must_requirement_no_request_can_exercise_says_why_and_leaves_the_run_complete():
    outside = Requirement(
        "ERIS-A-006", "Two", "500 when the cipher fails.", "MUST", outside="no request fails a cipher"
    )
    catalogue = [*TESTED, outside]
    c = _certify([_outcome("s.py::test_must", "passed", "ERIS-A-001")], catalogue=catalogue)
    entry = _by_id(to_json(c))["ERIS-A-006"]
    assert c.verdict == "conformant"
    assert entry["status"] == "not-tested" and "no request fails a cipher" in entry["note"]
    failing = [_outcome("s.py::test_must", "passed", "ERIS-A-001"), _outcome("s.py::t", "failed", "ERIS-A-006")]
    assert _certify(failing, catalogue=catalogue).verdict == "non-conformant"  # what can be seen still counts


def test_side_findings_fail_their_requirement_and_not_the_tests_own():
    met = Outcome("s.py::test_filter", "failed", ["ERIS-A-001", "ERIS-A-002"], "ERIS-A-002: bad item", 0.1, [])
    met.findings, met.own_failure = {"ERIS-A-002": "bad item"}, False
    assert met.outcome_for("ERIS-A-001") == "passed" and met.outcome_for("ERIS-A-002") == "failed"
    own = Outcome("s.py::test_filter", "failed", ["ERIS-A-001", "ERIS-A-002"], "filter ignored", 0.1, [])
    own.findings, own.own_failure = {"ERIS-A-002": "bad item"}, True
    assert own.outcome_for("ERIS-A-001") == "failed" and own.outcome_for("ERIS-A-002") == "failed"
    skipped = Outcome("s.py::test_filter", "skipped", ["ERIS-A-001", "ERIS-A-002"], "no data", 0.1, [])
    skipped.findings = {"ERIS-A-002": "bad item"}
    assert skipped.outcome_for("ERIS-A-002") == "failed" and skipped.outcome_for("ERIS-A-001") == "skipped"


def test_the_summary_groups_failed_requirements_by_their_first_cause():
    import io

    from conformance.certification.summary import print_summary

    outcomes = [
        _outcome("s.py::test_a", "failed", "ERIS-A-001", message="GET http://h:1/v1/x?count=5: no nextToken"),
        _outcome("s.py::test_b", "failed", "ERIS-A-004", message="GET http://h:2/v1/x?offset=9: no nextToken"),
    ]
    out = io.StringIO()
    c = _certify(outcomes)
    print_summary(c, {}, out, shown=10, outputs=())
    assert "2 failed requirements from 1 causes" in out.getvalue()
    assert "the same cause also failed: ERIS-A-004" in out.getvalue()
    assert to_json(c)["summary"]["causes"] == [
        {"lead": "ERIS-A-001", "requirements": ["ERIS-A-001", "ERIS-A-004"], "message": outcomes[0].message}
    ]


class _FragileTarget(_StubTarget):
    """Reads answer an empty envelope; every write fails inside the service (500), as a target without a strict
    JSON intake does on a body nested 2,000 deep."""

    def _server_error(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PATCH = _server_error


def test_the_robustness_check_reports_server_errors_on_malformed_input_as_a_should_only(tmp_path):
    with serving_handler(_FragileTarget) as target:
        done = _run("--target", target, "--requirement", "ERIS-ROBUST-001", "--report-dir", str(tmp_path), cwd=tmp_path)
    document = json.loads((tmp_path / "certification.json").read_text(encoding="utf-8"))
    robust = next(r for r in document["requirements"] if r["id"] == "ERIS-ROBUST-001")
    assert robust["status"] == "failed" and robust["level"] == "SHOULD", done.stdout[-2000:]
    assert "server error" in robust["message"]
    assert document["summary"]["verdict"] != "non-conformant" and done.returncode != 1


def test_the_runs_bearer_token_is_not_printed_in_the_report():
    exchange = _exchange()
    exchange["request_headers"] = {"authorization": "Bearer eyJ.secret-run-token.sig"}
    page = to_html(_certify([_outcome("s.py::test_a", "failed", "ERIS-A-001", exchanges=[exchange])]))
    assert "curl -i -X GET" in page and "$ERIS_TOKEN" in page
    assert "secret-run-token" not in page
