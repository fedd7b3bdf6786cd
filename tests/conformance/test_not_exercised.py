"""What an incomplete run leaves to do: every MUST requirement not exercised carries why and what would exercise it,
apart, in certification.json, in the terminal summary and in report.html, where the things to provide are a to-do
list (one item per thing, with the requirements it would exercise). The skips of the suite say what they looked for
and where, and what would exercise them; a run of the real suite against a target serving nothing shows it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from handler_servers import serving_handler
from project_paths import eris_command

from conformance.catalogue.requirements import Requirement
from conformance.certification import certify, to_json
from conformance.certification.html_report import to_html
from conformance.certification.judgement import A_TEST, WHOLE_SUITE
from conformance.certification.summary import print_summary
from conformance.certification.todo import UNNAMED
from conformance.client import recording
from conformance.evidence.outcomes import TO_EXERCISE, Blocked, Findings, what_would_exercise
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it
from conformance.harness import plugin

pytestmark = pytest.mark.slow  # certifications of their own

RUN_TIMEOUT = 240
STARTED = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
WAREHOUSE = "[data] warehouse_document: the identifier (system|value) of a warehouse document"


def _skip_message(reason: str, exercise: str) -> str:
    """The message of a test skipped by conformance.harness.plugin.not_exercised."""
    with pytest.raises(pytest.skip.Exception) as skipped:
        plugin.not_exercised(reason, exercise=exercise)
    return skipped.value.msg


def _requirement(number: int, level: str = "MUST", feature: str | None = None) -> Requirement:
    return Requirement(f"ERIS-T-{number:03}", "Endpoints / Reads", f"Rule {number}.", level, feature)


def _certify(catalogue: list[Requirement], outcomes: list[Outcome], **options):
    return certify(
        catalogue,
        outcomes,
        base_url="http://t.example",
        started=STARTED,
        finished=STARTED + timedelta(seconds=2),
        version="9.9.9",
        **options,
    )


def _skipped(nodeid: str, message: str, *requirements: str) -> Outcome:
    return Outcome(nodeid, "skipped", list(requirements), message)


def _passed(nodeid: str, *requirements: str) -> Outcome:
    return Outcome(nodeid, "passed", list(requirements))


def test_not_exercised_splits_what_was_looked_for_from_what_would_exercise_it():
    message = _skip_message("GET /v1/document-references listed no warehouse document.", WAREHOUSE)
    assert message == f"GET /v1/document-references listed no warehouse document.{TO_EXERCISE}{WAREHOUSE}"
    assert what_would_exercise(message) == ("GET /v1/document-references listed no warehouse document", WAREHOUSE)
    assert what_would_exercise("an old skip. Nothing more") == ("an old skip. Nothing more", "")


def test_each_must_requirement_not_exercised_carries_its_reason_and_what_would_exercise_it_apart():
    catalogue = [_requirement(1), _requirement(2), _requirement(3, "SHOULD")]
    outcomes = [
        _skipped("s.py::test_patch", _skip_message("no warehouse document listed", WAREHOUSE), "ERIS-T-001"),
        _skipped("s.py::test_old", "the target serves none", "ERIS-T-002"),
        _skipped("s.py::test_should", _skip_message("nothing", "[data] x"), "ERIS-T-003"),
    ]

    c = _certify(catalogue, outcomes)
    summary = to_json(c)["summary"]

    assert c.verdict == "incomplete"
    assert summary["not_exercised"] == [
        {"requirement": "ERIS-T-001", "reason": "no warehouse document listed", "to_exercise": WAREHOUSE},
        {"requirement": "ERIS-T-002", "reason": "the target serves none", "to_exercise": ""},
    ]  # a SHOULD is never missing for the verdict
    assert summary["incomplete"] == [  # the earlier key, kept
        {"id": "ERIS-T-001", "reason": "every test was skipped: no warehouse document listed"},
        {"id": "ERIS-T-002", "reason": "every test was skipped: the target serves none"},
    ]
    entry = next(r for r in to_json(c)["requirements"] if r["id"] == "ERIS-T-001")
    assert entry["to_exercise"] == [WAREHOUSE]
    assert entry["not_exercised"] == "every test was skipped: no warehouse document listed"


def test_tests_left_out_and_requirements_no_test_cites_are_given_what_would_exercise_them_too():
    catalogue = [_requirement(1), _requirement(2), _requirement(3)]
    cited = {"ERIS-T-001": ["s.py::test_a", "s.py::test_b"], "ERIS-T-002": ["s.py::test_c"]}

    c = _certify(catalogue, [_passed("s.py::test_a[1]", "ERIS-T-001")], cited=cited, selection="-k test_a")

    assert [
        (gap["requirement"], gap["reason"], gap["to_exercise"]) for gap in to_json(c)["summary"]["not_exercised"]
    ] == [
        ("ERIS-T-001", "1 test citing it deselected", WHOLE_SUITE),
        ("ERIS-T-002", "not run in this selection (1 test deselected)", WHOLE_SUITE),
        ("ERIS-T-003", "no test of the suite cites it", A_TEST),
    ]
    assert "without -k or --requirement" in WHOLE_SUITE


def test_a_requirement_of_a_feature_not_declared_is_not_applicable_and_no_to_do():
    notifications = Requirement("ERIS-T-009", "Events", "Pushed.", "MUST", "notifications")
    feature = "[features] notifications = true, and the receiver's address given to the target"
    outcomes = [
        _passed("s.py::test_a", "ERIS-T-001"),
        _skipped("s.py::test_push", _skip_message("notifications are not declared", feature), "ERIS-T-009"),
    ]

    undeclared = _certify([_requirement(1), notifications], outcomes)
    declared = _certify([_requirement(1), notifications], outcomes, features=["notifications"])

    assert undeclared.verdict == "conformant"
    assert to_json(undeclared)["summary"]["not_exercised"] == [] and to_json(undeclared)["summary"]["to_do"] == []
    assert '<ul class="todo">' not in to_html(undeclared)
    assert to_json(declared)["summary"]["to_do"] == [{"to_exercise": feature, "requirements": ["ERIS-T-009"]}]


def test_identical_to_dos_are_one_item_naming_every_requirement_it_would_exercise():
    catalogue = [_requirement(n) for n in range(1, 6)]
    cited = {"ERIS-T-004": ["s.py::test_d"]}
    outcomes = [
        _skipped("s.py::test_a[1]", _skip_message("no warehouse document in GET /x", WAREHOUSE), "ERIS-T-001"),
        _skipped("s.py::test_a[2]", _skip_message("no warehouse document in GET /y", WAREHOUSE), "ERIS-T-001"),
        _skipped("s.py::test_b", _skip_message("no warehouse document in GET /x", WAREHOUSE), "ERIS-T-002"),
        _skipped("s.py::test_c", "an old skip", "ERIS-T-003"),
        _skipped("s.py::test_e", _skip_message("no token", "[target] token"), "ERIS-T-005"),
    ]

    c = _certify(catalogue, outcomes, cited=cited)
    to_do = to_json(c)["summary"]["to_do"]

    # what the vendor provides first, most requirements first; the run's narrowing, the suite's gaps and what the
    # skipping tests did not name after it
    assert to_do == [
        {"to_exercise": WAREHOUSE, "requirements": ["ERIS-T-001", "ERIS-T-002"]},
        {"to_exercise": "[target] token", "requirements": ["ERIS-T-005"]},
        {"to_exercise": WHOLE_SUITE, "requirements": ["ERIS-T-004"]},
        {"to_exercise": "", "requirements": ["ERIS-T-003"]},
    ]
    assert c.incomplete["ERIS-T-001"] == (
        "every test was skipped: no warehouse document in GET /x (and 1 other reason)"
    )


def test_the_terminal_summary_says_per_requirement_what_would_exercise_it_and_lists_the_to_dos():
    catalogue = [_requirement(n) for n in range(1, 5)]
    cited = {"ERIS-T-001": ["s.py::test_a"]}
    outcomes = [
        _skipped("s.py::test_b", _skip_message("no warehouse document listed", WAREHOUSE), "ERIS-T-002"),
        _skipped("s.py::test_c", _skip_message("no warehouse document at all", WAREHOUSE), "ERIS-T-003"),
        _skipped("s.py::test_d", "an old skip", "ERIS-T-004"),
    ]
    out = io.StringIO()

    print_summary(_certify(catalogue, outcomes, cited=cited), {}, out, shown=10, outputs=())
    lines = out.getvalue().splitlines()

    # what only the vendor can provide first; the requirements the whole suite would exercise last
    start = next(i for i, line in enumerate(lines) if "not exercised MUST" in line)
    assert lines[start : start + 8] == [
        "  not exercised MUST ERIS-T-002: every test was skipped: no warehouse document listed",
        f"    to exercise: {WAREHOUSE}",
        "  not exercised MUST ERIS-T-003: every test was skipped: no warehouse document at all",
        f"    to exercise: {WAREHOUSE}",
        "  not exercised MUST ERIS-T-004: every test was skipped: an old skip",
        f"    to exercise: {UNNAMED}",
        "  not exercised MUST ERIS-T-001: not run in this selection (1 test deselected)",
        f"    to exercise: {WHOLE_SUITE}",
    ]
    assert lines[start + 8 : start + 12] == [
        "  to do: 3 things would exercise the 4 MUST requirements not exercised",
        f"    [ ] {WAREHOUSE} (ERIS-T-002, ERIS-T-003)",
        f"    [ ] {WHOLE_SUITE} (ERIS-T-001)",
        f"    [ ] {UNNAMED} (ERIS-T-004)",
    ]


def test_the_terminal_to_do_list_stays_short():
    catalogue = [_requirement(n) for n in range(1, 8)]
    outcomes = [
        _skipped(f"s.py::test_{n}", _skip_message("nothing", f"[data] entry_{n}"), f"ERIS-T-{n:03}")
        for n in range(1, 8)
    ]
    cited = {f"ERIS-T-{n:03}": ["s.py::test_a"] for n in range(1, 8)}
    out = io.StringIO()
    print_summary(_certify(catalogue, outcomes, cited=cited), {}, out, shown=3, outputs=())
    text = out.getvalue()
    assert text.count("    [ ] ") == 3 and "… and 5 more things to do: see report.html" in text
    assert "[ ] [data] entry_1 (ERIS-T-001)" in text
    assert "… and 4 more MUST requirements not exercised: see report.html" in text


def test_report_html_shows_the_to_dos_as_a_list_of_items_not_a_paragraph():
    catalogue = [_requirement(n) for n in range(1, 4)]
    outcomes = [
        _skipped("s.py::test_a", _skip_message("no <warehouse> document", WAREHOUSE), "ERIS-T-001"),
        _skipped("s.py::test_b", _skip_message("no warehouse document", WAREHOUSE), "ERIS-T-002"),
    ]

    page = to_html(_certify(catalogue, outcomes))

    todo = re.search(r'<ul class="todo">(.*?)\n</ul>', page, re.DOTALL)
    assert todo, "no to-do list"
    items = re.findall(r'<li class="todo-item[^"]*">(.*?)</details></li>', todo[1], re.DOTALL)
    assert len(items) == 2
    assert items[0].startswith(f'<span class="todo-what">{WAREHOUSE}</span>')
    assert re.findall(r'href="#r-([^"]+)"', items[0]) == ["ERIS-T-001", "ERIS-T-002"]
    assert "<li>ERIS-T-001: no &lt;warehouse&gt; document</li>" in items[0]  # the target's words escaped
    assert items[1].startswith(f'<span class="todo-what">{A_TEST}</span>')
    assert re.findall(r'href="#r-([^"]+)"', items[1]) == ["ERIS-T-003"]
    assert "ERIS-T-003: no test of the suite cites it" in items[1]
    assert "MUST requirements not exercised (the verdict is incomplete)" not in page  # the former paragraph
    row = page[page.index('id="r-ERIS-T-001"') : page.index('id="r-ERIS-T-002"')]
    assert f'<a href="#to-do">To exercise</a>: {WAREHOUSE}' in row


def test_a_test_stopped_by_a_failure_on_the_way_names_the_fix_of_that_requirement(monkeypatch):
    monkeypatch.setattr(recording, "_RUNNING", [Findings()])  # a test of the suite running, not this one
    with pytest.raises(Blocked) as stopped:
        plugin.blocked("ERIS-PARTY-015", "PATCH /v1/parties answered 500.")
    reason, to_exercise = what_would_exercise(str(stopped.value))
    assert reason == "not exercised: ERIS-PARTY-015 failed on the way: PATCH /v1/parties answered 500"
    assert to_exercise == "a fix of ERIS-PARTY-015, which failed on the way"


# -- runs of the real suite ---------------------------------------------------------------------------------


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*eris_command(), "certify", "--quiet", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        stdin=subprocess.DEVNULL,
    )


def test_a_run_without_the_property_phase_lists_what_would_exercise_it_everywhere(tmp_path):
    """ERIS-GEN-001 is judged by the property phase alone: with --examples 0 its tests are skipped, and every
    output says that --examples N would exercise it; the requirements the selection left out are one more item."""
    out = tmp_path / "out"
    result = _run("--examples", "0", "--requirement", "ERIS-GEN-001", "--report-dir", str(out), cwd=tmp_path)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]

    lines = result.stdout.splitlines()
    off = "every test was skipped: the property phase is off (--examples 0)"
    first = next(n for n, line in enumerate(lines) if line.startswith("  not exercised MUST ") and off in line)
    assert lines[first + 1].startswith("    to exercise: --examples N, more than 0")
    to_do = next(n for n, line in enumerate(lines) if line.startswith("  to do: 2 things would exercise"))
    assert lines[to_do + 1].startswith("    [ ] --examples N, more than 0") and "ERIS-" in lines[to_do + 1]
    assert lines[to_do + 2].startswith(f"    [ ] {WHOLE_SUITE} (")

    summary = json.loads((out / "certification.json").read_text("utf-8"))["summary"]
    assert summary["verdict"] == "incomplete"
    gen = [gap for gap in summary["not_exercised"] if gap["requirement"] == "ERIS-GEN-001"]
    assert len(gen) == 1 and gen[0]["reason"] == "the property phase is off (--examples 0)"
    assert gen[0]["to_exercise"].startswith("--examples N, more than 0")
    assert [item["to_exercise"] for item in summary["to_do"]] == [gen[0]["to_exercise"], WHOLE_SUITE]
    assert "ERIS-GEN-001" in summary["to_do"][0]["requirements"]
    assert "ERIS-GEN-001" not in summary["to_do"][1]["requirements"]  # the property phase alone tests it
    assert {gap["requirement"] for gap in summary["not_exercised"]} == {entry["id"] for entry in summary["incomplete"]}

    page = (out / "report.html").read_text("utf-8")
    items = re.findall(r'<li class="todo-item[^"]*"><span class="todo-what">([^<]*)</span>', page)
    assert items == [gen[0]["to_exercise"], WHOLE_SUITE]


class _ServesNothing(BaseHTTPRequestHandler):
    """A target with no data: every read an empty envelope, every write refused."""

    def do_GET(self):
        body = b'{"items": [], "nextToken": null}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _refused(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PATCH = do_PUT = do_DELETE = _refused

    def log_message(self, *args):
        pass


@pytest.fixture
def serves_nothing() -> Iterator[str]:
    with serving_handler(_ServesNothing) as url:
        yield url


AUDITED = (
    "test_access",
    "test_notifications",
    "test_resources",
    "test_terminology",
    "test_envelope_and_paging",
)
"""Modules whose skips name what would exercise them (conformance/suite/access, events, robustness has no skip,
master_data/test_resources.py and test_terminology.py, reads/test_envelope_and_paging.py)."""


def test_every_skip_for_want_of_data_names_what_was_looked_for_and_what_would_exercise_it(tmp_path, serves_nothing):
    out = tmp_path / "out"
    selection = " or ".join(AUDITED)
    result = _run(
        "--target", serves_nothing, "--examples", "0", "-k", selection, "--report-dir", str(out), cwd=tmp_path
    )
    assert result.returncode in (1, 3), result.stdout[-3000:] + result.stderr[-3000:]
    document = json.loads((out / "certification.json").read_text("utf-8"))

    messages = _skip_messages(out / "junit.xml")
    assert len(messages) > 50, messages  # the target serves nothing: most tests are skipped
    unnamed = {nodeid: message for nodeid, message in messages.items() if TO_EXERCISE not in message}
    assert unnamed == {}
    exercised = [what_would_exercise(message)[1] for message in messages.values() if TO_EXERCISE in message]
    assert "data served by GET /v1/grant-assignments: any item" in exercised
    assert any(item.startswith("[features] notifications = true") for item in exercised)

    # a feature not declared is not applicable, never a to-do
    not_applicable = {r["id"] for r in document["requirements"] if r["status"] == "not-applicable"}
    assert "ERIS-EVT-001" in not_applicable
    for item in document["summary"]["to_do"]:
        assert not set(item["requirements"]) & not_applicable
        assert not item["to_exercise"].startswith("[features] notifications")
    # the same data wanted by tests of several modules is one item
    to_do = {item["to_exercise"]: item["requirements"] for item in document["summary"]["to_do"]}
    assert {"ERIS-PARTY-001", "ERIS-LIMIT-001"} <= set(to_do["data served by GET /v1/parties: any item"])


def _skip_messages(junit: Path) -> dict[str, str]:
    """Skip messages of the run's tests by node id (pytest's junit.xml keeps them whole)."""
    import xml.etree.ElementTree as ElementTree

    messages = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            messages[f"{case.get('classname')}::{case.get('name')}"] = skipped.get("message") or ""
    return messages


def test_a_data_entry_the_target_answers_404_for_is_not_exercised_and_named(tmp_path):
    """A typo in the vendor's own [data] is not the target's failure: the warehouse document that
    warehouse-documents-not-listed hides from every read, named with a wrong value, is answered 404 by PATCH. The
    run is incomplete, and its message names the entry and its value, so that the vendor tells a typo from a
    defect."""
    from conformance.configuration.target import load_target
    from conformance.run.embedded import EmbeddedReference

    out = tmp_path / "out"
    with EmbeddedReference(("warehouse-documents-not-listed",)) as server:
        named = load_target(server.description).data["warehouse_document"]
        wrong = f"{named.partition('|')[0]}|NO-SUCH-DOCUMENT-eris"
        description = tmp_path / "target.toml"
        text = server.description.read_text("utf-8")
        description.write_text(text.replace(json.dumps(named), json.dumps(wrong)), "utf-8")
        result = _run(
            "--config",
            str(description),
            "--examples",
            "0",
            "-k",
            "test_patch_changes_the_status_of_a_warehouse_document",
            "--report-dir",
            str(out),
            cwd=tmp_path,
        )
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["failed_must"] == []
    gaps = {gap["requirement"]: gap for gap in document["summary"]["not_exercised"]}
    gap = gaps["ERIS-DOC-W-001"]
    assert f'[data] warehouse_document = "{wrong}"' in gap["reason"], gap
    assert "answered 404 to PATCH /v1/document-references" in gap["reason"], gap
    assert gap["to_exercise"].startswith(WAREHOUSE), gap
