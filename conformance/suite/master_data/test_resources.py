"""The served resources have the contract's shape: every item of every kind the statements below
describe is read and checked by the validator (structure, value-set bindings, profiles). The read
tests validate what they read too; these tests name the resource-shape requirements themselves."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import Api, not_exercised


def _all_valid(api: Api, path: str, resource_type: str, params: dict[str, Any] | None = None) -> list[Any]:
    items = api.read_all(path, params, resource_type=resource_type)
    if not items:
        not_exercised(f"GET {path} served no {resource_type}", exercise=data_served(path))
    return items


COMMON_BASE = ("ERIS-BASE-002", "ERIS-BASE-003", "ERIS-TYPE-001")
"""Every resource's owner, attributes and identifiers: each shape test validates them too."""


@pytest.mark.requirement(
    *COMMON_BASE,
    "ERIS-PARTY-001",
    "ERIS-PARTY-002",
    "ERIS-PARTY-003",
    "ERIS-PARTY-004",
    "ERIS-PARTY-005",
    "ERIS-PARTY-006",
)
def test_every_party_has_the_shape_bindings_and_a_profile_of_the_contract(api):
    _all_valid(api, "/v1/parties", "Party")


@pytest.mark.requirement(*COMMON_BASE, "ERIS-ACCESS-001")
def test_every_capability_has_the_shape_of_the_contract(api):
    _all_valid(api, "/v1/capabilities", "Capability")


@pytest.mark.requirement(*COMMON_BASE, "ERIS-ACCESS-002")
def test_every_grant_assignment_has_the_shape_of_the_contract(api):
    _all_valid(api, "/v1/grant-assignments", "GrantAssignment")


@pytest.mark.requirement(*COMMON_BASE, "ERIS-DOC-001", "ERIS-DOC-003")
def test_every_document_reference_has_the_shape_of_the_contract(api):
    _all_valid(api, "/v1/document-references", "DocumentReference")
