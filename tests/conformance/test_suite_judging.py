"""The judging code of the suite, on answers built by hand: each function says yes where the contract is kept and
no where it is broken, so that a check of the suite can neither pass by coincidence nor fail a fair answer."""

from __future__ import annotations

import json

import httpx
import pytest

from conformance.evidence.outcomes import Findings, FindingsFailed, TestOutcome
from conformance.suite.support.filters import Filter, matches
from conformance.suite.support.orders import assert_refused_as_client_fault
from conformance.suite.support.reads import (
    as_object,
    codings,
    identifiers,
    names_parameter,
    reference_identifiers,
)
from conformance.suite.support.typed_values import typed_attributes
from conformance.suite.support.writes import codes, has_coding

TYPE_SYSTEM = "https://erp.example.com/fhir/vocab/party-type"


def _answer(status: int, body: object) -> httpx.Response:
    request = httpx.Request("GET", "http://target.example/v1/parties?type=x")
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, content=content, request=request)


# -- whether an error body names the parameter ----------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"type": "about:blank", "title": "Bad Request", "detail": "parameter 'type': vocabulary not declared"},
        {"error": {"parameter": "type"}},
        {"errors": [{"field": "type", "message": "unknown vocabulary"}]},
        b"bad value for type",
        {"title": "Bad Request", "invalid-params": [{"name": "type", "reason": "vocabulary not declared"}]},
        {"resourceType": "OperationOutcome", "issue": [{"severity": "error", "expression": ["type"]}]},
        {"errors": [{"name": "ValidationError", "message": "bad value for type"}]},
    ],
    ids=[
        "problem-details-detail",
        "nested-value",
        "list-of-errors",
        "plain-text",
        "rfc9457-invalid-params",
        "operation-outcome",
        "error-name-and-text",
    ],
)
def test_an_error_body_naming_the_parameter_in_any_shape_names_it(body):
    assert names_parameter(_answer(400, body), "type", echoed=[f"{TYPE_SYSTEM}|finance"])


@pytest.mark.parametrize(
    "body",
    [
        # Problem Details' own members `type` and `status` are no mention of the parameters of those names
        {"type": "https://tools.ietf.org/html/rfc9110#section-15.5.1", "status": 400, "title": "Bad Request"},
        # the value the request sent, repeated, names nothing
        {"detail": f"unknown vocabulary {TYPE_SYSTEM}|finance"},
        # the word inside another one, or inside a vocabulary URL
        {"detail": "document-type is not declared"},
        {"detail": "see https://erp.example.com/fhir/vocab/finance/type for the codes"},
        {"detail": "parameter 'status' is wrong"},
        # a member naming the parameter at fault names another; the word elsewhere is no naming
        {"detail": "vocabulary not declared for this resource type", "parameter": "status"},
        {"invalid-params": [{"name": "status", "reason": "wrong type of value"}]},
    ],
    ids=[
        "problem-details-members",
        "echoed-value",
        "inside-a-word",
        "inside-a-url",
        "another-parameter",
        "member-names-another",
        "invalid-params-name-another",
    ],
)
def test_an_error_body_that_does_not_name_the_parameter_is_told_apart(body):
    assert not names_parameter(_answer(400, body), "type", echoed=[f"{TYPE_SYSTEM}|finance"])


# -- whether an item matches a filter -------------------------------------------------------------------------

ITEM = {
    "identifier": [{"system": "urn:oid:1.2.616.1.113769.4.7.1", "value": "K-1"}, {"system": "nip"}],
    "type": [{"coding": [{"system": TYPE_SYSTEM, "code": "finance"}]}],
    "status": {"coding": [{"system": "s", "code": "active"}, {"code": "bare"}]},
    "attribute": [{"code": "finance", "value": "42"}, {"code": "x", "value": 7}, {"code": "a|b", "value": "v"}],
    "party": {"identifier": {"system": "nip", "value": "7251801126"}},
}


def test_element_access_takes_what_is_well_formed_and_ignores_the_rest():
    assert identifiers(ITEM) == [("urn:oid:1.2.616.1.113769.4.7.1", "K-1")]
    assert codings(ITEM["type"]) == [(TYPE_SYSTEM, "finance")]
    assert codings(ITEM["status"]) == [("s", "active")]  # a coding without a system is no system|code pair
    # a number in its JSON text; a code holding "|" cannot be told from its value in code|value
    assert typed_attributes(ITEM) == [("finance", "42"), ("x", "7")]
    assert reference_identifiers(ITEM["party"]) == [("nip", "7251801126")]
    assert reference_identifiers([ITEM["party"], {"reference": "Party/1"}]) == [("nip", "7251801126")]


def test_codes_are_the_text_codes_of_a_concept_whatever_else_its_codings_hold():
    # a coding without a text code adds none: sorted() over the codes, and a PATCH sending one back, need text
    concept = {"coding": [{"system": "s", "code": "active"}, {"system": "s"}, {"system": "s", "code": 7}, "x"]}
    assert codes(concept) == codes(concept, "s") == {"active"}
    assert codes(concept, "other") == set()
    assert codes(["not", "a", "concept"]) == set()


def test_an_element_in_the_other_shape_is_read_as_served():
    """A shape defect fails the shape's requirement, not a check that reads the element: `category` served as one
    CodeableConcept where the contract has `category[]` failed ERIS-ASSET-007 (its filter) in the field too."""
    concept = {"coding": [{"system": "s", "code": "LOK"}]}
    assert codes(concept, "s") == codes([concept], "s") == {"LOK"}
    assert codes({"coding": {"system": "s", "code": "LOK"}}, "s") == {"LOK"}  # a Coding where coding[] is
    assert codings(concept) == codings([concept]) == [("s", "LOK")]
    assert has_coding(concept, "s", "LOK") and has_coding([concept], "s", "LOK")
    one = {"identifier": [{"system": "nip", "value": "7251801126"}]}  # an Identifier array where one is expected
    assert reference_identifiers(one) == [("nip", "7251801126")]
    allocation = {"category": concept}
    category = Filter("category", "coded", "category")
    assert matches(None, category, allocation, "s|LOK", "FixedAssetAllocation")  # type: ignore[arg-type]
    assert not matches(None, category, allocation, "s|MPK", "FixedAssetAllocation")  # type: ignore[arg-type]


def test_a_member_in_another_shape_than_an_object_holds_nothing():
    assert as_object({"type": "Party"}) == {"type": "Party"}
    assert as_object(["Party"]) == as_object(None) == as_object("Party") == {}


@pytest.mark.parametrize(
    ("flt", "value", "expected"),
    [
        (Filter("identifier", "identifier"), "urn:oid:1.2.616.1.113769.4.7.1|K-1", True),
        (Filter("identifier", "identifier"), "urn:oid:1.2.616.1.113769.4.7.1|K-2", False),
        (Filter("type", "coded", "type"), f"{TYPE_SYSTEM}|finance", True),
        (Filter("type", "coded", "type"), f"{TYPE_SYSTEM}|hr", False),
        (Filter("type", "coded", "type"), "finance", False),
        (Filter("attribute", "attribute"), "finance|42", True),
        (Filter("attribute", "attribute"), "finance|43", False),
        (Filter("profile", "subset"), "anything", True),
    ],
)
def test_an_item_matches_a_filter_exactly_when_it_carries_the_value(flt, value, expected):
    assert matches(None, flt, ITEM, value, "Party") is expected  # type: ignore[arg-type]


# -- a refusal whose status the contract does not name --------------------------------------------------------


@pytest.mark.parametrize("status", [400, 409, 415, 422])
def test_any_client_error_whose_condition_is_not_false_is_a_fair_refusal(status):
    assert_refused_as_client_fault(_answer(status, {"detail": "no"}), "an order without format")


@pytest.mark.parametrize("status", [202, 200, 500, 503, 401, 403, 404])
def test_an_acceptance_a_server_error_or_a_status_whose_condition_is_false_is_not(status):
    with pytest.raises(AssertionError, match="an order without format"):
        assert_refused_as_client_fault(_answer(status, {"detail": "no"}), "an order without format")


# -- whether a requirement holds, from a test that judges several ---------------------------------------------


def test_a_test_with_findings_fails_only_the_requirements_it_names():
    findings = Findings()
    findings.add("ERIS-READ-002", "count ignored")
    findings.add("ERIS-READ-002", "count ignored again")
    outcome = TestOutcome("s.py::t", "failed", ["ERIS-READ-001", "ERIS-READ-002"], findings=findings.summary())

    assert outcome.outcome_for("ERIS-READ-002") == "failed"
    assert outcome.outcome_for("ERIS-READ-001") == "passed"
    assert outcome.message_for("ERIS-READ-002") == "count ignored (and 1 more findings)"
    with pytest.raises(AssertionError, match="ERIS-READ-002: count ignored"):
        findings.check()


def test_a_failing_finding_stops_the_test_with_every_finding_before_it():
    findings = Findings()
    findings.add("ERIS-READ-001", "first")
    with pytest.raises(FindingsFailed) as stopped:
        findings.fail("ERIS-READ-002", "second")
    assert str(stopped.value) == "ERIS-READ-001: first\nERIS-READ-002: second"


def test_a_failed_test_without_findings_fails_every_requirement_it_cites():
    outcome = TestOutcome("s.py::t", "failed", ["ERIS-READ-001", "ERIS-READ-002"], message="boom")
    assert outcome.outcome_for("ERIS-READ-001") == outcome.outcome_for("ERIS-READ-002") == "failed"
