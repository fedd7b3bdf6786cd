"""The filters of `eris serve`'s reads: what each finds and nothing more, malformed values, coded vocabularies."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from serve_fixtures import (
    ALL,
    CONTRACT,
    EMPLOYER_NIP,
    NIP_SYSTEM,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    contractor_body,
    ids,
    ns,
    profile_url,
    running,
    seed_of,
)
from serve_read_cases import CONTRACTOR_1, EMPLOYER_ORG_ID, EMPLOYER_REGON, coded, seed_ids

from reference_impl.search import READ_PATHS

# -- seed predicates of the filter table ----------------------------------------------------------


def attributed(*pairs: tuple[str, str]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: all({"code": code, "value": value} in r.get("attribute", []) for code, value in pairs)


def claims(profile: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: profile_url(profile) in r.get("meta", {}).get("profile", [])


def _both(*predicates: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: all(p(r) for p in predicates)


# -- filters --------------------------------------------------------------------------------------

EMPLOYEES = seed_ids("Party", claims("Employee"))

FILTERS = [
    # parties: identifier, owner, profile, attribute, type, status
    ("/v1/parties", {"identifier": CONTRACTOR_1}, ["party-contractor-000001"]),
    ("/v1/parties", {"identifier": f"{ns('contractor-warehouse')}|K-000003"}, ["party-contractor-000003"]),
    ("/v1/parties", {"identifier": EMPLOYER_NIP}, ["party-employer"]),
    ("/v1/parties", {"identifier": EMPLOYER_ORG_ID}, ["party-employer"]),
    ("/v1/parties", {"identifier": f"{ns('contractor')}|K-999999"}, []),
    ("/v1/parties", {"identifier": f"{ns('employee')}|K-000001"}, []),
    ("/v1/parties", {"owner": EMPLOYER_NIP}, seed_ids("Party")),
    ("/v1/parties", {"owner": EMPLOYER_REGON}, seed_ids("Party")),
    ("/v1/parties", {"owner": EMPLOYER_ORG_ID}, seed_ids("Party")),
    ("/v1/parties", {"owner": CONTRACTOR_1}, []),
    ("/v1/parties", {"owner": f"{NIP_SYSTEM}|0000000000"}, []),
    *(("/v1/parties", {"profile": profile_url(p)}, seed_ids("Party", claims(p))) for p in ("Employee", "Employer")),
    *(
        ("/v1/parties", {"profile": profile_url(p)}, seed_ids("Party", claims(p)))
        for p in ("Contractor", "AssetHolder")
    ),
    ("/v1/parties", {"attribute": "finance|vat-payer"}, ["party-employer"]),
    (
        "/v1/parties",
        {"attribute": ["finance|payment-term-days:14", "warehouse|pickup"]},
        seed_ids("Party", attributed(("finance", "payment-term-days:14"), ("warehouse", "pickup"))),
    ),
    ("/v1/parties", {"attribute": ["finance|vat-payer", "assets|internal"]}, []),
    ("/v1/parties", {"type": f"{VOCAB}/party-type|hr"}, EMPLOYEES),
    ("/v1/parties", {"type": "hr"}, EMPLOYEES),
    ("/v1/parties", {"type": "assets"}, seed_ids("Party", coded("type", "assets"))),
    ("/v1/parties", {"status": f"{VOCAB}/party-status|inactive"}, seed_ids("Party", coded("status", "inactive"))),
    ("/v1/parties", {"status": "deleted"}, seed_ids("Party", coded("status", "deleted"))),
    (
        "/v1/parties",
        {"profile": profile_url("Contractor"), "status": "inactive"},
        seed_ids("Party", _both(claims("Contractor"), coded("status", "inactive"))),
    ),
    ("/v1/parties", {"lastModified": "ge2000-01-01T00:00:00Z"}, seed_ids("Party")),
    ("/v1/parties", {"lastModified": "ge2999-01-01T00:00:00Z"}, []),
    ("/v1/parties", {"lastModified": "lt2000-01-01T00:00:00Z"}, []),
    # party roles: role (required), party, profile of the party
    ("/v1/party-roles", {"role": f"{VOCAB}/party-role|customer"}, seed_ids("PartyRole", coded("role", "customer"))),
    ("/v1/party-roles", {"role": "supplier", "party": CONTRACTOR_1}, ["role-contractor-000001"]),
    ("/v1/party-roles", {"role": "customer", "party": CONTRACTOR_1}, []),
    ("/v1/party-roles", {"role": "employer", "party": EMPLOYER_NIP}, ["role-employer"]),
    (
        "/v1/party-roles",
        {"role": "employee", "profile": profile_url("Employee")},
        seed_ids("PartyRole", coded("role", "employee")),
    ),
    ("/v1/party-roles", {"role": "employee", "profile": profile_url("Contractor")}, []),
    (
        "/v1/party-roles",
        {"role": "customer", "profile": profile_url("Contractor")},
        seed_ids("PartyRole", coded("role", "customer")),
    ),
    # party relationships: type (required), partyFrom, partyTo
    (
        "/v1/party-relationships",
        {"type": f"{VOCAB}/party-relationship-type|superior-subordinate", "partyFrom": f"{ns('employee')}|E-0001"},
        ["rel-reporting-0002", "rel-reporting-0003"],
    ),
    (
        "/v1/party-relationships",
        {"type": "employer-employee", "partyFrom": EMPLOYER_NIP},
        seed_ids("PartyRelationship", coded("type", "employer-employee")),
    ),
    ("/v1/party-relationships", {"type": "employer-employee", "partyFrom": f"{ns('employee')}|E-0001"}, []),
    (
        "/v1/party-relationships",
        {"type": "superior-subordinate", "partyTo": f"{ns('employee')}|E-0005"},
        ["rel-reporting-0005"],
    ),
    # locations: profile, category, identifier, contained, owner, attribute
    (
        "/v1/locations",
        {"profile": profile_url("UsagePlace")},
        ["location-up-001", "location-up-002", "location-up-003", "location-up-004"],
    ),
    (
        "/v1/locations",
        {"category": f"{VOCAB}/assets/location-category|usage-place"},
        ["location-up-001", "location-up-002", "location-up-003", "location-up-004"],
    ),
    ("/v1/locations", {"profile": profile_url("Warehouse")}, ["location-wh-01", "location-wh-02"]),
    ("/v1/locations", {"profile": profile_url("StorageLocation")}, seed_ids("Location", claims("StorageLocation"))),
    ("/v1/locations", {"identifier": f"{ns('location')}|WH-02"}, ["location-wh-02"]),
    ("/v1/locations", {"contained": f"{ns('location')}|WH-01-DOCK"}, ["location-wh-01"]),
    ("/v1/locations", {"owner": EMPLOYER_NIP}, seed_ids("Location")),
    ("/v1/locations", {"owner": CONTRACTOR_1}, []),
    ("/v1/locations", {"attribute": "building|B"}, ["location-wh-02", "location-wh-02-b01"]),
    # naming systems: usage
    ("/v1/naming-systems", {"usage": "Contractor"}, ["ns-contractor", "ns-contractor-warehouse", "ns-contractor-12"]),
    ("/v1/naming-systems", {"usage": "Employer"}, ["ns-employee"]),
    ("/v1/naming-systems", {"usage": "Party"}, seed_ids("NamingSystem", lambda r: "Party" in r["usage"])),
    ("/v1/naming-systems", {"usage": "Invoice"}, []),
    # capabilities: identifier
    ("/v1/capabilities", {"identifier": f"{ns('capability')}|hr.leave.approve"}, ["capability-hr-leave-approve"]),
    ("/v1/capabilities", {"identifier": f"{ns('capability')}|no.such.capability"}, []),
    # grant assignments: assignedTo, granted, scope, basedOn, attribute
    ("/v1/grant-assignments", {"assignedTo": f"{ns('employee')}|E-0003"}, ["grant-0001", "grant-0005"]),
    ("/v1/grant-assignments", {"assignedTo": CONTRACTOR_1}, ["grant-0007"]),
    ("/v1/grant-assignments", {"granted": f"{ns('capability')}|hr.leave.approve"}, ["grant-0001", "grant-0002"]),
    ("/v1/grant-assignments", {"scope": f"{ns('employee')}|E-0010"}, ["grant-0001"]),
    (
        "/v1/grant-assignments",
        {"scope": f"{ns('employee')}|E-0010", "granted": f"{ns('capability')}|hr.leave.approve"},
        ["grant-0001"],
    ),
    (
        "/v1/grant-assignments",
        {"scope": f"{ns('employee')}|E-0005", "granted": f"{ns('capability')}|hr.leave.approve"},
        ["grant-0002"],
    ),
    (
        "/v1/grant-assignments",
        {"scope": f"{ns('employee')}|E-0010", "granted": f"{ns('capability')}|warehouse.document.approve"},
        [],
    ),
    (
        "/v1/grant-assignments",
        {"scope": EMPLOYER_NIP, "granted": f"{ns('capability')}|finance.report.order"},
        ["grant-0005", "grant-0006"],
    ),
    ("/v1/grant-assignments", {"basedOn": f"{VOCAB}/grant-basis|delegation"}, ["grant-0004"]),
    ("/v1/grant-assignments", {"basedOn": "position"}, seed_ids("GrantAssignment", coded("basis", "position"))),
    ("/v1/grant-assignments", {"attribute": "direct-only|true"}, ["grant-0002", "grant-0004", "grant-0008"]),
    ("/v1/grant-assignments", {"attribute": ["direct-only|true", "employment-id|UM/2012/0002"]}, ["grant-0002"]),
    # fixed assets, components, allocations (category required), cost centers
    ("/v1/fixed-assets", {"identifier": f"{ns('fixed-asset')}|ST-2019-0002"}, ["fixed-asset-0002"]),
    ("/v1/fixed-assets", {"owner": EMPLOYER_NIP}, seed_ids("FixedAsset")),
    ("/v1/fixed-assets", {"owner": CONTRACTOR_1}, []),
    ("/v1/asset-components", {"identifier": f"{ns('fixed-asset')}|ST-2019-0002/01"}, ["asset-component-0001"]),
    ("/v1/asset-components", {"identifier": f"{ns('fixed-asset')}|ST-2019-0002"}, []),
    (
        "/v1/fixed-asset-allocations",
        {"category": f"{VOCAB}/assets/allocation-category|responsible-person"},
        seed_ids("FixedAssetAllocation", coded("category", "responsible-person")),
    ),
    ("/v1/cost-centers", {"identifier": f"{ns('cost-center')}|CC-210"}, ["cost-center-cc-210"]),
    ("/v1/cost-centers", {"owner": EMPLOYER_REGON}, seed_ids("CostCenter")),
    # fixed-asset documents: identifier, owner (by NIP and by another identifier), attribute, format
    (
        "/v1/fixed-asset-documents",
        {"identifier": f"{ns('fixed-asset-document')}|FAD-2024-0002"},
        ["fixed-asset-document-0002"],
    ),
    ("/v1/fixed-asset-documents", {"owner": EMPLOYER_NIP}, seed_ids("FixedAssetDocument")),
    ("/v1/fixed-asset-documents", {"owner": EMPLOYER_REGON}, seed_ids("FixedAssetDocument")),
    ("/v1/fixed-asset-documents", {"owner": EMPLOYER_ORG_ID}, seed_ids("FixedAssetDocument")),
    ("/v1/fixed-asset-documents", {"owner": CONTRACTOR_1}, []),
    ("/v1/fixed-asset-documents", {"attribute": "schema|OT"}, ["fixed-asset-document-0001"]),
    ("/v1/fixed-asset-documents", {"format": "blob"}, seed_ids("FixedAssetDocument")),
    # document references: profile, identifier, type, participant, issueDateFrom, attribute
    (
        "/v1/document-references",
        {"profile": profile_url("HrInboxDocument")},
        seed_ids("DocumentReference", claims("HrInboxDocument")),
    ),
    (
        "/v1/document-references",
        {"profile": profile_url("WarehouseDocument")},
        seed_ids("DocumentReference", claims("WarehouseDocument")),
    ),
    (
        "/v1/document-references",
        {"identifier": f"{ns('document-reference')}|WD-2025-0002"},
        ["document-warehouse-0002"],
    ),
    ("/v1/document-references", {"type": f"{VOCAB}/hr/document-type|leave-request"}, ["document-hr-0001"]),
    (
        "/v1/document-references",
        {"type": f"{VOCAB}/warehouse/document-type|purchase-order"},
        ["document-warehouse-0001"],
    ),
    ("/v1/document-references", {"type": "goods-receipt"}, ["document-warehouse-0002"]),
    (
        "/v1/document-references",
        {"participant": f"{ns('employee')}|E-0004"},
        seed_ids("DocumentReference", claims("WarehouseDocument")),
    ),
    ("/v1/document-references", {"participant": f"{ns('employee')}|E-0006"}, ["document-hr-0001"]),
    ("/v1/document-references", {"participant": CONTRACTOR_1}, ["document-warehouse-0001", "document-warehouse-0002"]),
    (
        "/v1/document-references",
        {"issueDateFrom": "2025-01-10"},
        seed_ids("DocumentReference", lambda r: r["issueDate"] >= "2025-01-10"),
    ),
    ("/v1/document-references", {"issueDateFrom": "2026-01-01"}, []),
    (
        "/v1/document-references",
        {"attribute": "external-system-name|hr-portal"},
        seed_ids("DocumentReference", attributed(("external-system-name", "hr-portal"))),
    ),
    (
        "/v1/document-references",
        {"profile": profile_url("HrInboxDocument"), "attribute": "external-system-name|e-zla"},
        ["document-hr-0002"],
    ),
]


def _filter_id(case: tuple[str, dict[str, Any], list[str]]) -> str:
    path, params, _ = case
    shown = "&".join(f"{k}={v.rsplit('/', 1)[-1] if isinstance(v, str) else '+'.join(v)}" for k, v in params.items())
    return f"{path.removeprefix('/v1/')}?{shown}"


@pytest.mark.parametrize(("path", "params", "expected"), FILTERS, ids=[_filter_id(c) for c in FILTERS])
def test_a_filter_finds_what_it_should_and_nothing_more(
    server: RunningServer, path: str, params: dict[str, Any], expected: list[str]
) -> None:
    items = assert_envelope(server.client.get(path, params={**params, **ALL}), READ_PATHS[path])
    assert ids(items) == expected


def test_every_filter_case_with_results_finds_fewer_than_all_or_is_an_owner_or_time_filter() -> None:
    """A guard on the table itself: a filter that finds everything proves nothing unless it is meant to."""
    broad = {"owner", "lastModified", "format", "role", "type", "category", "basedOn"}
    for path, params, expected in FILTERS:
        if set(params) <= broad:
            continue
        assert len(expected) < len(seed_of(READ_PATHS[path])), (path, params)


def test_last_modified_finds_what_changed_since() -> None:
    with running() as own:
        before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        created = own.client.post("/v1/parties", json=contractor_body("Zmieniona Firma Sp. z o.o."))
        assert created.status_code == 200, created.text
        since = ids(
            assert_envelope(own.client.get("/v1/parties", params={"lastModified": f"ge{before}", **ALL}), "Party")
        )
        assert since == [created.json()["id"]]
        earlier = ids(
            assert_envelope(own.client.get("/v1/parties", params={"lastModified": f"lt{before}", **ALL}), "Party")
        )
        assert earlier == seed_ids("Party")
        assert_problem(own.client.get("/v1/parties", params={"lastModified": "yesterday"}), 400, "lastModified")


def test_a_last_modified_out_of_range_is_a_400(server: RunningServer) -> None:
    assert_problem(
        server.client.get("/v1/parties", params={"lastModified": "ge9999-12-31T23:59:59-01:00"}), 400, "lastModified"
    )


def test_issue_date_from_is_a_date_not_a_text(server: RunningServer) -> None:
    response = server.client.get("/v1/document-references", params={"issueDateFrom": "2025-1-1", **ALL})
    if response.status_code == 400:
        assert_problem(response, 400, "issueDateFrom")
    else:
        expected = seed_ids("DocumentReference", lambda r: r["issueDate"] >= "2025-01-01")
        assert ids(assert_envelope(response, "DocumentReference")) == expected


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("issueDateFrom", "10.01.2025"),
        ("issueDateFrom", "2025-02-30"),
        ("attribute", "no-pipe"),
        ("lastModified", "soon"),
    ],
)
def test_a_malformed_filter_value_is_a_400_naming_it(server: RunningServer, parameter: str, value: str) -> None:
    path = "/v1/document-references" if parameter == "issueDateFrom" else "/v1/parties"
    assert_problem(server.client.get(path, params={parameter: value}), 400, parameter)


# -- coded filters and their vocabularies -------------------------------------------------------

UNDECLARED = [
    ("/v1/parties", "type", "https://example.com/other-vocabulary|hr"),
    ("/v1/parties", "type", f"{VOCAB}/party-status|active"),
    ("/v1/parties", "status", f"{VOCAB}/party-type|finance"),
    ("/v1/parties", "status", "https://example.com/other-vocabulary|active"),
    ("/v1/document-references", "type", f"{VOCAB}/finance/document-type|invoice"),
    ("/v1/document-references", "type", f"{VOCAB}/hr/document-category|hr-inbox-document"),
    ("/v1/document-references", "type", "https://example.com/other-vocabulary|goods-receipt"),
]


@pytest.mark.parametrize(("path", "parameter", "value"), UNDECLARED, ids=[f"{p}?{n}={v}" for p, n, v in UNDECLARED])
def test_a_coded_filter_in_an_undeclared_vocabulary_is_a_400_naming_it(
    server: RunningServer, path: str, parameter: str, value: str
) -> None:
    body = assert_problem(server.client.get(path, params={parameter: value}), 400, parameter)
    assert body["type"] == "https://tools.ietf.org/html/rfc9110#section-15.5.1"


DECLARED = [
    ("/v1/parties", "type", f"{VOCAB}/party-type|finance"),
    ("/v1/parties", "status", f"{VOCAB}/party-status|active"),
    ("/v1/document-references", "type", f"{VOCAB}/hr/document-type|sick-leave-certificate"),
    ("/v1/document-references", "type", f"{VOCAB}/warehouse/document-type|goods-issue"),
    ("/v1/document-references", "type", f"{VOCAB}/warehouse/document-status|approved"),
    ("/v1/document-references", "type", f"{VOCAB}/warehouse/document-category|warehouse-document"),
]


@pytest.mark.parametrize(("path", "parameter", "value"), DECLARED, ids=[f"{p}?{n}={v}" for p, n, v in DECLARED])
def test_a_coded_filter_in_a_declared_vocabulary_is_accepted(
    server: RunningServer, path: str, parameter: str, value: str
) -> None:
    items = assert_envelope(server.client.get(path, params={parameter: value, **ALL}), READ_PATHS[path])
    system, code = value.split("|")
    assert all(coded(parameter, code, system)(item) for item in items)


def test_the_four_declared_document_vocabularies_are_those_of_the_contract() -> None:
    declared = set(CONTRACT.resources["DocumentReference"].filter_vocabularies["type"])
    names = ("hr/document-type", "warehouse/document-type", "warehouse/document-status", "warehouse/document-category")
    assert declared == {f"{VOCAB}/{name}" for name in names}


def test_an_attribute_code_in_any_form_is_filtered_by_its_code():
    """Attribute's structure is not shown: a code written as a Coding or a CodeableConcept is found by
    attribute=code|value as a bare code is (a write may carry any of the three)."""
    from profiles import load_contract
    from profiles.validator import Validator
    from reference_impl.search import search_tokens

    contract = load_contract()
    forms = [
        "floor",
        {"system": "urn:example:attribute", "code": "floor"},
        {"coding": [{"system": "urn:example:attribute", "code": "floor"}]},
    ]
    for code in forms:
        location = {"resourceType": "Location", "id": "l1", "attribute": [{"code": code, "value": "2"}]}
        assert ("attribute", "floor", "2") in set(search_tokens(location, Validator(contract))), code
