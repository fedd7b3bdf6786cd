"""The property phase's judgement of a resource answer (conformance.generation.properties.judge): the validator speaks
for it, so a form the contract leaves open and openapi.json does not show (null for an element without a value) is no
finding, while an element the contract breaks is one, under its own requirement."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from case_files import load_tests

from conformance.generation.properties import Sent, judge, load_schema
from profiles.validator import Validator

BASE = "http://target.example"
CONTRACTOR = next(t.data for t in load_tests() if t.file == "party/contractor.json" and t.test["valid"])


@pytest.fixture(scope="module")
def case():
    return load_schema(BASE)["/v1/parties"]["POST"].Case(body={"resourceType": "Party"})


def _judged(case, answer: dict) -> list:
    response = httpx.Response(200, json=answer, request=httpx.Request("POST", f"{BASE}/v1/parties"))
    response.elapsed = timedelta(0)  # set by a transport; schemathesis' checks read it
    found = judge(Sent(case, response), validator=Validator(), api=None)
    return [(finding.requirement, finding.check) for finding in found]


def test_a_created_party_with_null_for_elements_without_a_value_is_no_finding(case):
    assert _judged(case, {**CONTRACTOR, "comment": None, "number": None, "partOf": None}) == []


def test_a_created_party_that_breaks_an_element_is_a_finding_of_its_requirement(case):
    assert _judged(case, {**CONTRACTOR, "comment": 5}) == [("ERIS-PARTY-001", "answer_valid_by_contract")]
