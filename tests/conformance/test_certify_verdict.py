"""Each requirement judged, and the verdict: MUST, SHOULD, INFO, incomplete, not applicable, expected failures."""

from __future__ import annotations

import re

import pytest
from small_certifications import TESTED, make_outcome, requirements_by_id, small_certification

from conformance.catalogue.requirements import Requirement
from conformance.certification import ExpectedFailures, to_json
from conformance.certification.html_report import to_html
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it

pytestmark = pytest.mark.slow  # each test here certifies


def test_a_failed_must_requirement_makes_the_run_non_conformant():
    c = small_certification([make_outcome("s.py::test_a", "failed", "ERIS-A-001", message="GET /v1/x answered 500")])
    document = to_json(c)
    assert document["summary"]["verdict"] == "non-conformant"
    assert document["summary"]["failed_must"] == ["ERIS-A-001"]
    entry = requirements_by_id(document)["ERIS-A-001"]
    assert entry["status"] == "failed" and entry["message"] == "GET /v1/x answered 500"
    assert entry["tests"] == [{"nodeid": "s.py::test_a", "outcome": "failed", "expected": False}]


def test_an_error_outside_the_test_body_fails_its_requirement_too():
    assert small_certification([make_outcome("s.py::test_a", "error", "ERIS-A-001")]).verdict == "non-conformant"


def test_failed_info_and_should_requirements_leave_the_run_conformant():
    outcomes = [
        make_outcome("s.py::test_info", "failed", "ERIS-A-003", message="seen something else"),
        make_outcome("s.py::test_should", "failed", "ERIS-A-002", message="a 2048-bit key"),
        make_outcome("s.py::test_must", "passed", "ERIS-A-001"),
    ]
    c = small_certification(outcomes, catalogue=TESTED)
    entries = requirements_by_id(to_json(c))
    assert c.verdict == "conformant"
    assert entries["ERIS-A-003"]["status"] == "skipped"  # INFO is never a failure
    assert "informational" in entries["ERIS-A-003"]["note"]
    assert entries["ERIS-A-003"]["message"] == "seen something else"
    assert entries["ERIS-A-002"]["status"] == "failed"
    assert entries["ERIS-A-001"]["status"] == "passed"


def test_untested_and_only_skipped_must_requirements_make_the_run_incomplete():
    c = small_certification(
        [
            make_outcome("s.py::test_a", "passed", "ERIS-A-001"),
            make_outcome("s.py::test_s", "skipped", "ERIS-A-005", message="the target serves none"),
        ]
    )
    document = to_json(c)
    entries = requirements_by_id(document)
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
    ran = [make_outcome("s.py::test_a[x]", "passed", "ERIS-A-001")]

    c = small_certification(ran, catalogue=TESTED, cited=cited, selection="-k test_a")

    assert (
        requirements_by_id(to_json(c))["ERIS-A-001"] | {"status": "passed", "deselected": ["s.py::test_b"]}
        == requirements_by_id(to_json(c))["ERIS-A-001"]
    )
    assert c.verdict == "incomplete" and c.incomplete == {"ERIS-A-001": "1 test citing it deselected"}
    assert to_json(c)["summary"]["selection"] == "-k test_a"
    everything = [*ran, make_outcome("s.py::test_b", "passed", "ERIS-A-001")]
    assert small_certification(everything, catalogue=TESTED, cited=cited).verdict == "conformant"


def test_a_requirement_of_an_undeclared_feature_is_not_applicable_and_does_not_make_the_run_incomplete():
    catalogue = [*TESTED, Requirement("ERIS-N-001", "Events", "Pushed.", "MUST", "notifications")]
    outcomes = [
        make_outcome("s.py::test_a", "passed", "ERIS-A-001"),
        make_outcome("s.py::test_push", "skipped", "ERIS-N-001", message="notifications not declared"),
    ]

    undeclared = small_certification(outcomes, catalogue=catalogue)
    declared = small_certification(outcomes, catalogue=catalogue, features=["notifications"])

    assert requirements_by_id(to_json(undeclared))["ERIS-N-001"]["status"] == "not-applicable"
    assert undeclared.verdict == "conformant"
    assert to_json(undeclared)["summary"]["certified_for"] == "the core contract"
    assert requirements_by_id(to_json(declared))["ERIS-N-001"]["status"] == "skipped"
    assert declared.verdict == "incomplete"
    assert to_json(declared)["summary"]["certified_for"] == "the core contract, notifications"


def test_a_requirement_with_a_failing_and_a_passing_test_fails():
    c = small_certification(
        [make_outcome("s.py::test_a", "passed", "ERIS-A-001"), make_outcome("s.py::test_b", "failed", "ERIS-A-001")]
    )
    assert requirements_by_id(to_json(c))["ERIS-A-001"]["status"] == "failed"


def test_expected_failures_are_listed_with_their_reasons_and_do_not_count():
    outcomes = [
        make_outcome("s.py::test_a[case-1]", "failed", "ERIS-A-001", message="known"),
        make_outcome("s.py::test_c", "failed", "ERIS-A-003"),
    ]
    listed = "# known problems of release 3\nERIS-A-001: count capped at 50 (ticket 12) (until 2027-01-31)\n"
    c = small_certification(outcomes, listed, catalogue=TESTED)
    document = to_json(c)
    assert document["summary"]["verdict"] == "conformant"
    entry = requirements_by_id(document)["ERIS-A-001"]
    assert entry["status"] == "failed" and entry["expected"] is True
    assert entry["note"] == "expected failure: count capped at 50 (ticket 12)"
    assert document["summary"]["expected_failures"] == [
        {"id": "ERIS-A-001", "reason": "count capped at 50 (ticket 12)", "until": "2027-01-31"}
    ]
    assert document["summary"]["failed_must"] == []


def test_an_expired_expected_failure_counts_again():
    listed = "ERIS-A-001: count capped at 50 (until 2026-11-23)\n"
    c = small_certification([make_outcome("s.py::test_a", "failed", "ERIS-A-001")], listed, catalogue=TESTED)
    assert c.verdict == "non-conformant" and c.failed_must == ["ERIS-A-001"]
    assert "expired on 2026-11-23" in requirements_by_id(to_json(c))["ERIS-A-001"]["note"]
    assert to_json(c)["summary"]["expired_expected_failures"][0]["id"] == "ERIS-A-001"


def test_an_expected_failure_of_one_requirement_does_not_excuse_another_the_same_test_fails():
    c = small_certification([make_outcome("s.py::test_a", "failed", "ERIS-A-001", "ERIS-A-004")], "ERIS-A-001: known\n")
    assert c.verdict == "non-conformant" and c.failed_must == ["ERIS-A-004"]
    entries = requirements_by_id(to_json(c))
    assert entries["ERIS-A-001"]["tests"][0]["expected"] is True
    assert entries["ERIS-A-004"]["tests"][0]["expected"] is False
    assert "failed (expected)" not in to_html(c).split("<h2>Failing tests</h2>")[1]


def test_an_expected_failure_that_passes_is_reported_fixed_and_unknown_entries_are_reported():
    c = small_certification(
        [make_outcome("s.py::test_a", "passed", "ERIS-A-001")], "ERIS-A-001: known\nERIS-TYPO-001: typo\n"
    )
    document = to_json(c)
    assert document["summary"]["fixed"] == ["ERIS-A-001"]
    assert "fixed" in requirements_by_id(document)["ERIS-A-001"]["note"]
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
    c = small_certification(
        [make_outcome("s.py::test_u", "failed", "ERIS-ZZ-001"), make_outcome("s.py::test_none", "failed")]
    )
    document = to_json(c)
    assert document["summary"]["verdict"] == "incomplete"  # nothing of the catalogue ran; nothing failed
    assert document["unknown_requirements"] == [{"id": "ERIS-ZZ-001", "tests": ["s.py::test_u"]}]
    assert [t["nodeid"] for t in document["tests_without_requirements"]] == ["s.py::test_none"]
    assert document["summary"]["tests"] == {"passed": 0, "failed": 2, "error": 0, "skipped": 0}


def test_a_must_requirement_no_request_can_exercise_says_why_and_leaves_the_run_complete():
    outside = Requirement(
        "ERIS-A-006", "Two", "500 when the cipher fails.", "MUST", outside="no request fails a cipher"
    )
    catalogue = [*TESTED, outside]
    c = small_certification([make_outcome("s.py::test_must", "passed", "ERIS-A-001")], catalogue=catalogue)
    entry = requirements_by_id(to_json(c))["ERIS-A-006"]
    assert c.verdict == "conformant"
    assert entry["status"] == "not-tested" and "no request fails a cipher" in entry["note"]
    failing = [make_outcome("s.py::test_must", "passed", "ERIS-A-001"), make_outcome("s.py::t", "failed", "ERIS-A-006")]
    assert (
        small_certification(failing, catalogue=catalogue).verdict == "non-conformant"
    )  # what can be seen still counts


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
        make_outcome("s.py::test_a", "failed", "ERIS-A-001", message="GET http://h:1/v1/x?count=5: no nextToken"),
        make_outcome("s.py::test_b", "failed", "ERIS-A-004", message="GET http://h:2/v1/x?offset=9: no nextToken"),
    ]
    out = io.StringIO()
    c = small_certification(outcomes)
    print_summary(c, {}, out, shown=10, outputs=())
    assert "2 failed requirements from 1 causes" in out.getvalue()
    assert "the same cause also failed: ERIS-A-004" in out.getvalue()
    assert to_json(c)["summary"]["causes"] == [
        {"lead": "ERIS-A-001", "requirements": ["ERIS-A-001", "ERIS-A-004"], "message": outcomes[0].message}
    ]
