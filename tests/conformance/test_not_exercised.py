"""What an incomplete run leaves to do: every MUST requirement not exercised carries why and what would exercise it,
apart, in certification.json, in the terminal summary and in report.html, where the things to provide are a to-do
list (one item per thing, with the requirements it would exercise). A skip says what it looked for and where, apart
from what would exercise it (runs of the real suite: test_not_exercised_runs.py)."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest

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
