"""Clauses of a requirement: recorded by the tests that exercise them, judged into passed or partly-exercised, and
shown in certification.json, the to-do list and report.html."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from conformance.catalogue.requirements import Requirement, load_catalogue
from conformance.certification import certify, to_json
from conformance.certification.clauses import A_TEST_SENDING_IT, NOT_SENT
from conformance.certification.html_report import to_html
from conformance.certification.todo import to_do_of
from conformance.client.concurrent_calls import findings_kept_apart, in_order
from conformance.client.traffic import Traffic
from conformance.evidence.outcomes import NOT_APPLICABLE, TO_EXERCISE, Findings
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it

STARTED = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
FILTERS = Requirement("ERIS-F-001", "Reads", "GET /v1/x: parameters a, b<script>.", "MUST", clauses=("a", "b<script>"))
OTHER = Requirement("ERIS-F-002", "Reads", "Another rule.", "MUST")


def _certify(*outcomes: Outcome, catalogue=(FILTERS, OTHER)):
    return certify(catalogue, outcomes, base_url="http://t.example", started=STARTED, finished=STARTED + timedelta(1))


def _outcome(nodeid: str, outcome: str, *requirements: str, message: str = "", clauses=None, unexercised=None):
    found = Outcome(nodeid, outcome, list(requirements), message)
    found.clauses = clauses or {}
    found.unexercised = unexercised or {}
    return found


def _entry(certification, requirement_id: str) -> dict:
    return next(entry for entry in to_json(certification)["requirements"] if entry["id"] == requirement_id)


def test_a_requirement_whose_every_clause_a_passing_test_exercised_passes_with_each_request_shown():
    c = _certify(
        _outcome("s.py::test_a", "passed", "ERIS-F-001", clauses={"ERIS-F-001": {"a": "GET /v1/x?a=1"}}),
        _outcome(
            "s.py::test_b", "passed", "ERIS-F-001", "ERIS-F-002", clauses={"ERIS-F-001": {"b<script>": "GET /v1/x?b=2"}}
        ),
    )
    entry = _entry(c, "ERIS-F-001")
    assert entry["status"] == "passed" and c.verdict == "conformant"
    assert entry["clauses"] == [
        {"clause": "a", "exercised": "GET /v1/x?a=1", "test": "s.py::test_a"},
        {"clause": "b<script>", "exercised": "GET /v1/x?b=2", "test": "s.py::test_b"},
    ]


def test_a_clause_not_exercised_makes_the_requirement_partly_exercised_and_the_run_incomplete():
    c = _certify(
        _outcome(
            "s.py::test_a",
            "passed",
            "ERIS-F-001",
            "ERIS-F-002",
            clauses={"ERIS-F-001": {"a": "GET /v1/x?a=1"}},
            unexercised={"ERIS-F-001": {"b<script>": f"no item carries b.{TO_EXERCISE}data served by GET /v1/x: b"}},
        )
    )
    entry = _entry(c, "ERIS-F-001")
    assert entry["status"] == "partly-exercised"
    assert entry["clauses"][1] == {
        "clause": "b<script>",
        "not_exercised": "no item carries b",
        "to_exercise": "data served by GET /v1/x: b",
        "test": "s.py::test_a",
    }
    assert c.verdict == "incomplete"
    assert [(item.to_exercise, item.requirements) for item in to_do_of(c)] == [
        ("data served by GET /v1/x: b", ["ERIS-F-001"])
    ]
    assert "clause 'b<script>' not exercised: no item carries b" in c.incomplete["ERIS-F-001"]


def test_a_clause_no_test_sent_nor_explained_is_a_gap_of_the_suite():
    c = _certify(_outcome("s.py::test_a", "passed", "ERIS-F-001", "ERIS-F-002", clauses={"ERIS-F-001": {"a": "GET"}}))
    gaps = c.not_exercised["ERIS-F-001"]
    assert [(gap.reason, gap.to_exercise) for gap in gaps] == [
        (f"clause 'b<script>' not exercised: {NOT_SENT}", A_TEST_SENDING_IT)
    ]


@pytest.mark.parametrize("outcome", ["failed", "skipped"])
def test_a_clause_sent_only_by_a_test_that_did_not_hold_is_not_exercised(outcome):
    sent = {"ERIS-F-001": {"a": "GET /v1/x?a=1", "b<script>": "GET /v1/x?b=2"}}
    c = _certify(
        _outcome("s.py::test_a", "passed", "ERIS-F-001", "ERIS-F-002", clauses={"ERIS-F-001": {"a": "GET /v1/x?a=1"}}),
        _outcome("s.py::test_b", outcome, "ERIS-F-002", clauses=sent, message="no"),
    )
    assert [clause.exercised for clause in c.requirements[0].clauses] == ["GET /v1/x?a=1", ""]


def test_a_skipped_test_beside_a_passing_one_is_never_hidden_under_a_green_requirement():
    c = _certify(
        _outcome("s.py::test_a", "passed", "ERIS-F-002"),
        _outcome("s.py::test_b[x]", "skipped", "ERIS-F-002", message=f"no x served.{TO_EXERCISE}data served: an x"),
        catalogue=(OTHER,),
    )
    entry = _entry(c, "ERIS-F-002")
    assert entry["status"] == "partly-exercised"
    assert c.verdict == "incomplete"
    assert [(gap.reason, gap.to_exercise) for gap in c.not_exercised["ERIS-F-002"]] == [
        ("test_b[x] skipped: no x served", "data served: an x")
    ]


def test_a_test_that_does_not_apply_counts_for_nothing():
    not_offered = f"{NOT_APPLICABLE}the target does not declare blob"
    beside = _certify(
        _outcome("s.py::test_a", "passed", "ERIS-F-002"),
        _outcome("s.py::test_blob", "skipped", "ERIS-F-002", message=not_offered),
        catalogue=(OTHER,),
    )
    alone = _certify(_outcome("s.py::test_blob", "skipped", "ERIS-F-002", message=not_offered), catalogue=(OTHER,))
    assert (beside.requirements[0].status, beside.verdict) == ("passed", "conformant")
    assert (alone.requirements[0].status, alone.verdict) == ("not-applicable", "conformant")


def test_a_clause_outside_the_catalogue_is_reported_and_never_counts():
    c = _certify(
        _outcome("s.py::test_a", "passed", "ERIS-F-001", "ERIS-F-002", clauses={"ERIS-F-001": {"a": "GET", "c": "GET"}})
    )
    assert to_json(c)["unknown_clauses"] == [{"clause": "ERIS-F-001: c", "tests": ["s.py::test_a"]}]
    assert c.requirements[0].status == "partly-exercised"


def test_report_html_shows_each_clause_escaped_with_its_request_or_why_not():
    c = _certify(
        _outcome(
            "s.py::test_a",
            "passed",
            "ERIS-F-001",
            "ERIS-F-002",
            clauses={"ERIS-F-001": {"a": "GET /v1/x?a=<b>"}},
            unexercised={"ERIS-F-001": {"b<script>": f"none.{TO_EXERCISE}an item with b"}},
        )
    )
    page = to_html(c)
    assert "<b>a</b>: exercised by GET /v1/x?a=&lt;b&gt;" in page
    assert "<b>b&lt;script&gt;</b>: not exercised: none; to exercise it: an item with b" in page
    assert "b<script>" not in page


def test_the_clauses_recorded_in_calls_at_once_reach_the_test_in_call_order():
    test = Findings()

    def call(value: str) -> str:
        kept = findings_kept_apart()
        assert kept is not None
        kept.exercise("ERIS-F-001", "a", value)
        kept.leave("ERIS-F-001", "b", f"reason {value}")
        return value

    with ThreadPoolExecutor(4) as threads:
        results = in_order([lambda v=v: call(v) for v in "wxyz"], threads=threads, traffic=Traffic(), test=test)
    assert results == list("wxyz")
    assert test.exercised == {"ERIS-F-001": {"a": "w"}}
    assert test.unexercised == {"ERIS-F-001": {"b": "reason w"}}


@pytest.mark.parametrize(
    ("clauses", "error"),
    [('["a", ""]', "clauses must be a list of non-empty strings"), ('["a", "a"]', "a clause is given twice")],
)
def test_a_malformed_clause_list_is_refused_naming_the_row(tmp_path, clauses, error):
    catalogue = tmp_path / "requirements.toml"
    catalogue.write_text(
        f'[[requirement]]\nid = "ERIS-F-001"\nsection = "s"\ntext = "t"\nlevel = "MUST"\nclauses = {clauses}\n'
    )
    with pytest.raises(ValueError, match=error):
        load_catalogue(catalogue)


def test_the_shipped_clauses_name_parameters_the_requirement_text_names():
    for requirement in load_catalogue():
        for clause in requirement.clauses:
            words = clause.split(" (")[0].removesuffix("[]")
            if requirement.id.startswith(("ERIS-FILTER-00", "ERIS-LOC-", "ERIS-DOC-004", "ERIS-ASSET-01")):
                assert words in requirement.text, (requirement.id, clause)
