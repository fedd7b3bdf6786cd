"""Reads of the reference implementation (`eris serve`) against the contract: the envelope and its
paging, the filters of every endpoint (what each finds, and nothing more), coded filters and their
vocabularies, required parameters, value sets, `$document-content`, the absence of `{id}` routes and
of DELETE, and Problem Details on every error answer.

One seeded server serves the module's read-only tests; a test that writes (or could write, were the
server wrong) uses a server of its own."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import (
    ALL,
    CONTRACT,
    EMPLOYER_NIP,
    NIP_SYSTEM,
    REGON_SYSTEM,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    contractor_body,
    errors_of,
    identifier_value,
    ids,
    ns,
    profile_url,
    running,
    seed_by_id,
    seed_of,
    seeded_settings,
)

from profiles.contract import PROFILES_DIR
from reference_impl.search import READ_PATHS

EMPLOYER = seed_by_id("party-employer")
EMPLOYER_REGON = f"{REGON_SYSTEM}|{identifier_value(EMPLOYER, REGON_SYSTEM)}"
EMPLOYER_ORG_ID = f"{ns('employee')}|{identifier_value(EMPLOYER, ns('employee'))}"
CONTRACTOR_1 = f"{ns('contractor')}|K-000001"
IMPLEMENTATION_DEFINED = {p.canonical_url for p in CONTRACT.profiles_of("ValueSet")}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with running() as running_server:
        yield running_server


@pytest.fixture(scope="module")
def scratch() -> Iterator[RunningServer]:
    """A server for requests that must change nothing (DELETE, writes missing a parameter): were the
    implementation wrong, the damage stays away from the read-only tests."""
    with running() as running_server:
        yield running_server


# -- seed predicates ------------------------------------------------------------------------------


def seed_ids(resource_type: str, predicate: Callable[[dict[str, Any]], bool] = lambda _: True) -> list[str]:
    return [r["id"] for r in seed_of(resource_type) if predicate(r)]


def _codings(concept: Any) -> set[tuple[str, str]]:
    concepts = concept if isinstance(concept, list) else [concept] if isinstance(concept, dict) else []
    return {(c.get("system"), c.get("code")) for cc in concepts for c in cc.get("coding", [])}


def coded(element: str, code: str, system: str | None = None) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(c == code and system in (None, s) for s, c in _codings(r.get(element)))


def attributed(*pairs: tuple[str, str]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: all({"code": code, "value": value} in r.get("attribute", []) for code, value in pairs)


def claims(profile: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: profile_url(profile) in r.get("meta", {}).get("profile", [])


def _both(*predicates: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda r: all(p(r) for p in predicates)


# -- every read endpoint --------------------------------------------------------------------------

# Every list read with the required parameters it needs, and the seed items the answer must hold.
ENDPOINTS = [
    ("/v1/parties", {}, seed_ids("Party")),
    ("/v1/party-roles", {"role": "employee"}, seed_ids("PartyRole", coded("role", "employee"))),
    ("/v1/party-roles", {"role": "supplier"}, seed_ids("PartyRole", coded("role", "supplier"))),
    (
        "/v1/party-relationships",
        {"type": "employer-employee"},
        seed_ids("PartyRelationship", coded("type", "employer-employee")),
    ),
    (
        "/v1/party-relationships",
        {"type": "superior-subordinate"},
        seed_ids("PartyRelationship", coded("type", "superior-subordinate")),
    ),
    ("/v1/locations", {}, seed_ids("Location")),
    ("/v1/naming-systems", {}, seed_ids("NamingSystem")),
    ("/v1/capabilities", {}, seed_ids("Capability")),
    ("/v1/grant-assignments", {}, seed_ids("GrantAssignment")),
    ("/v1/fixed-assets", {}, seed_ids("FixedAsset")),
    ("/v1/asset-components", {}, seed_ids("AssetComponent")),
    *(
        ("/v1/fixed-asset-allocations", {"category": code}, seed_ids("FixedAssetAllocation", coded("category", code)))
        for code in ("location", "cost-center", "responsible-person")
    ),
    ("/v1/cost-centers", {}, seed_ids("CostCenter")),
    ("/v1/fixed-asset-documents", {}, seed_ids("FixedAssetDocument")),
    ("/v1/document-references", {}, seed_ids("DocumentReference")),
]


def test_the_endpoint_table_covers_every_read_path() -> None:
    assert {path for path, _, _ in ENDPOINTS} == set(READ_PATHS)


@pytest.mark.parametrize(
    ("path", "params", "expected"), ENDPOINTS, ids=[f"{p}?{'&'.join(q.values())}" for p, q, _ in ENDPOINTS]
)
def test_every_read_answers_the_envelope_of_valid_items(
    server: RunningServer, path: str, params: dict[str, str], expected: list[str]
) -> None:
    assert expected, "the seed has items for every read"
    items = assert_envelope(server.client.get(path, params={**params, **ALL}), READ_PATHS[path])
    assert ids(items) == expected


def test_the_required_role_and_category_filters_together_cover_every_seed_item(server: RunningServer) -> None:
    roles = {c for r in seed_of("PartyRole") for _, c in _codings(r["role"])}
    found = [
        i
        for role in sorted(roles)
        for i in ids(server.client.get("/v1/party-roles", params={"role": role, **ALL}).json()["items"])
    ]
    assert sorted(found) == sorted(seed_ids("PartyRole"))
    categories = {c for r in seed_of("FixedAssetAllocation") for _, c in _codings(r["category"])}
    found = [
        i
        for category in sorted(categories)
        for i in ids(
            server.client.get("/v1/fixed-asset-allocations", params={"category": category, **ALL}).json()["items"]
        )
    ]
    assert sorted(found) == sorted(seed_ids("FixedAssetAllocation"))


# -- paging ---------------------------------------------------------------------------------------


def test_count_defaults_to_20(server: RunningServer) -> None:
    parties = seed_ids("Party")
    assert len(parties) > 20
    items = assert_envelope(server.client.get("/v1/parties"), "Party")
    assert ids(items) == parties[:20]


def test_count_and_offset_page_through_disjoint_pages(server: RunningServer) -> None:
    parties = seed_ids("Party")
    pages = []
    for offset in range(0, len(parties), 7):
        page = ids(assert_envelope(server.client.get("/v1/parties", params={"count": 7, "offset": offset}), "Party"))
        assert len(page) == min(7, len(parties) - offset)
        pages.append(page)
    seen = [item for page in pages for item in page]
    assert len(seen) == len(set(seen)), "pages overlap"
    assert seen == parties
    assert ids(assert_envelope(server.client.get("/v1/parties", params={"offset": 3}), "Party")) == parties[3:23]


@pytest.mark.parametrize("offset", [len(seed_of("Party")), len(seed_of("Party")) + 1, 100_000])
def test_an_offset_beyond_the_end_gives_an_empty_page(server: RunningServer, offset: int) -> None:
    assert assert_envelope(server.client.get("/v1/parties", params={"offset": offset}), "Party") == []


def test_an_offset_too_large_for_the_database_is_still_an_answer(server: RunningServer) -> None:
    response = server.client.get("/v1/parties", params={"offset": "9" * 25})
    if response.status_code == 200:
        assert assert_envelope(response, "Party") == []
    else:
        assert_problem(response, 400, "offset")


@pytest.mark.parametrize("path", ["/v1/parties", "/v1/locations", "/v1/value-sets", "/v1/document-references"])
@pytest.mark.parametrize(("parameter", "value"), [("count", "-1"), ("count", "abc"), ("offset", "-1"), ("offset", "x")])
def test_a_bad_count_or_offset_is_a_400_naming_it(server: RunningServer, path: str, parameter: str, value: str) -> None:
    assert_problem(server.client.get(path, params={parameter: value}), 400, parameter)


# -- filters --------------------------------------------------------------------------------------

EMPLOYEES = seed_ids("Party", claims("Employee"))
CONTRACTORS = seed_ids("Party", claims("Contractor"))

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


# -- required parameters ------------------------------------------------------------------------

REQUIRED = [
    ("/v1/party-roles", {}, "role"),
    ("/v1/party-roles", {"role": "", "party": CONTRACTOR_1}, "role"),
    ("/v1/party-relationships", {"partyFrom": EMPLOYER_NIP}, "type"),
    ("/v1/fixed-asset-allocations", {}, "category"),
    ("/v1/fixed-asset-documents/$document-content", {"owner": EMPLOYER_NIP}, "identifier"),
]


@pytest.mark.parametrize(("path", "params", "parameter"), REQUIRED, ids=[f"{p}-{n}" for p, _, n in REQUIRED])
def test_a_read_without_a_required_parameter_is_a_400_naming_it(
    server: RunningServer, path: str, params: dict[str, str], parameter: str
) -> None:
    assert_problem(server.client.get(path, params=params), 400, parameter)


@pytest.mark.parametrize(
    ("params", "missing"),
    [
        ({"owner": EMPLOYER_NIP}, ("identifier",)),
        ({"identifier": f"{ns('contractor')}|K-000002"}, ("owner",)),
        ({}, ("identifier", "owner")),
    ],
    ids=["no-identifier", "no-owner", "neither"],
)
def test_patch_parties_without_identifier_or_owner_is_a_400_and_changes_nothing(
    scratch: RunningServer, params: dict[str, str], missing: tuple[str, ...]
) -> None:
    target = {"identifier": f"{ns('contractor')}|K-000002", **ALL}
    before = scratch.client.get("/v1/parties", params=target).json()
    body = contractor_body("Nazwa Zmieniona S.A.", comment="must not be stored")
    response = scratch.client.patch("/v1/parties", params=params, json=body)
    problem = assert_problem(response, 400)
    assert problem.get("parameter") in missing and problem["parameter"] in problem["detail"]
    assert scratch.client.get("/v1/parties", params=target).json() == before
    assert scratch.count() == len(seed_of("Party"))


# -- value sets ---------------------------------------------------------------------------------


def test_value_sets_without_url_list_url_and_version_of_every_set(server: RunningServer) -> None:
    items = assert_envelope(server.client.get("/v1/value-sets", params=ALL), None)
    assert sorted(item["url"] for item in items) == sorted(CONTRACT.value_set_resources)
    assert IMPLEMENTATION_DEFINED and {item["url"] for item in items} >= IMPLEMENTATION_DEFINED
    for item in items:
        assert set(item) == {"url", "version"}, item
        if item["url"] in IMPLEMENTATION_DEFINED:
            assert item["version"] is None, item
        else:
            assert isinstance(item["version"], str) and item["version"], item
            assert item["version"] == CONTRACT.value_set_resources[item["url"]]["version"]
        assert errors_of(item, "ValueSetSummary") == [], item
    default_page = assert_envelope(server.client.get("/v1/value-sets"), None)
    assert default_page == items[:20]


def _terminology_files() -> list[Path]:
    return sorted((PROFILES_DIR / "terminology").rglob("*.json"))


@pytest.mark.parametrize("path", _terminology_files(), ids=lambda p: str(p.relative_to(PROFILES_DIR / "terminology")))
@pytest.mark.parametrize("parameter", ["url", "system"])
def test_a_value_set_by_url_is_the_terminology_file_with_placeholders_filled(
    server: RunningServer, path: Path, parameter: str
) -> None:
    expected = CONTRACT.installation.substitute(json.loads(path.read_text(encoding="utf-8")))
    items = assert_envelope(server.client.get("/v1/value-sets", params={parameter: expected["url"]}), "ValueSet")
    assert items == [expected]
    assert re.search(r"\{[A-Za-z_][A-Za-z0-9_.-]*\}", json.dumps(items)) is None, "a placeholder was left unfilled"


@pytest.mark.parametrize(
    "params",
    [{"url": f"{VOCAB}/no-such-set"}, {"system": f"{VOCAB}/no-such-set"}, {"url": f"{VOCAB}/finance/document-type-x"}],
    ids=["url", "system", "near-miss"],
)
def test_an_unknown_value_set_is_a_404(server: RunningServer, params: dict[str, str]) -> None:
    assert_problem(server.client.get("/v1/value-sets", params=params), 404)


def test_an_implementation_defined_value_set_by_url_and_id(server: RunningServer) -> None:
    url = f"{VOCAB}/employment-type"
    expected = CONTRACT.value_set_resources[url]
    items = assert_envelope(server.client.get("/v1/value-sets", params={"url": url, "id": expected["id"]}), "ValueSet")
    assert items == [expected]
    assert items[0]["version"] is None


@pytest.mark.parametrize(
    ("parameter", "value"),
    [("owner", CONTRACTOR_1), ("status", f"{VOCAB}/party-status|deleted"), ("attribute", "no-such-code|x")],
)
def test_value_set_filters_of_implementation_defined_sets_restrict_the_answer(
    server: RunningServer, parameter: str, value: str
) -> None:
    response = server.client.get("/v1/value-sets", params={"url": f"{VOCAB}/employment-type", parameter: value})
    if response.status_code == 404:
        assert_problem(response, 404)
    else:
        assert assert_envelope(response, "ValueSet") == []


# -- $document-content --------------------------------------------------------------------------

WITH_CONTENT = seed_ids("FixedAssetDocument", lambda r: any(a.get("data") for a in r.get("attachment", [])))
WITHOUT_CONTENT = seed_ids("FixedAssetDocument", lambda r: not any(a.get("data") for a in r.get("attachment", [])))
CONTENT = "/v1/fixed-asset-documents/$document-content"


def _document_identifier(document_id: str) -> str:
    return f"{ns('fixed-asset-document')}|{identifier_value(seed_by_id(document_id), ns('fixed-asset-document'))}"


def test_the_seed_has_documents_with_and_without_content() -> None:
    assert len(WITH_CONTENT) >= 2 and len(WITHOUT_CONTENT) >= 1


@pytest.mark.parametrize("document_id", WITH_CONTENT)
@pytest.mark.parametrize(
    "extra",
    [{}, {"owner": EMPLOYER_NIP}, {"format": "blob"}, {"owner": EMPLOYER_REGON}],
    ids=["plain", "owner", "blob", "regon"],
)
def test_document_content_has_exactly_one_attachment_with_base64_data(
    server: RunningServer, document_id: str, extra: dict[str, str]
) -> None:
    response = server.client.get(CONTENT, params={"identifier": _document_identifier(document_id), **extra})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert document["resourceType"] == "FixedAssetDocument" and document["id"] == document_id
    assert errors_of(document, "FixedAssetDocument") == []
    assert len(document["attachment"]) == 1
    attachment = document["attachment"][0]
    assert isinstance(attachment["contentType"], str) and attachment["contentType"]
    data = base64.b64decode(attachment["data"], validate=True)
    stored = next(a for a in seed_by_id(document_id)["attachment"] if a.get("data"))
    assert data == base64.b64decode(stored["data"]) and data
    assert attachment["contentType"] == stored["contentType"]
    if attachment["contentType"] == "application/pdf":
        assert data.startswith(b"%PDF-")


@pytest.mark.parametrize("document_id", WITHOUT_CONTENT)
def test_document_content_of_a_document_without_content_is_a_404(server: RunningServer, document_id: str) -> None:
    assert_problem(server.client.get(CONTENT, params={"identifier": _document_identifier(document_id)}), 404)


@pytest.mark.parametrize(
    "params",
    [
        {"identifier": f"{ns('fixed-asset-document')}|FAD-1999-9999"},
        {"identifier": f"{ns('document-reference')}|FAD-2023-0001"},
        {"identifier": f"{ns('fixed-asset-document')}|FAD-2023-0001", "owner": CONTRACTOR_1},
    ],
    ids=["unknown", "other-namespace", "other-owner"],
)
def test_document_content_of_an_unknown_document_is_a_404(server: RunningServer, params: dict[str, str]) -> None:
    assert_problem(server.client.get(CONTENT, params=params), 404)


# -- no {id} routes, no DELETE ------------------------------------------------------------------

ID_PATHS = [(path, seed_of(resource_type)[0]["id"]) for path, resource_type in READ_PATHS.items()]
ID_PATHS.append(("/v1/value-sets", "party-status"))


@pytest.mark.parametrize(("path", "resource_id"), ID_PATHS, ids=[p for p, _ in ID_PATHS])
@pytest.mark.parametrize("suffix", ["", "/x", "/"])
def test_there_are_no_id_routes(server: RunningServer, path: str, resource_id: str, suffix: str) -> None:
    for method in ("GET", "PATCH", "PUT"):
        response = server.client.request(method, f"{path}/{resource_id}{suffix}")
        assert_problem(response, (404, 405))


EVERY_PATH = [*READ_PATHS, "/v1/value-sets", CONTENT, "/v1/reports"]


@pytest.mark.parametrize("path", EVERY_PATH)
def test_delete_is_not_an_operation_anywhere(scratch: RunningServer, path: str) -> None:
    resource_type = READ_PATHS.get(path)
    target = seed_of(resource_type)[0] if resource_type else None
    params = {}
    if target is not None and target.get("identifier"):
        first = target["identifier"][0]
        params = {"identifier": f"{first['system']}|{first['value']}", "owner": EMPLOYER_NIP}
    for url in (path, f"{path}/{target['id']}" if target else f"{path}/x"):
        assert_problem(scratch.client.delete(url, params=params), (404, 405))
    if resource_type is not None:
        assert scratch.count(path, **_required_for(path)) == len(
            [r for r in seed_of(resource_type) if _matches_required(path, r)]
        )


def _required_for(path: str) -> dict[str, str]:
    return {
        "/v1/party-roles": {"role": "employee"},
        "/v1/party-relationships": {"type": "employer-employee"},
        "/v1/fixed-asset-allocations": {"category": "location"},
    }.get(path, {})


def _matches_required(path: str, resource: dict[str, Any]) -> bool:
    return all(coded(name, code)(resource) for name, code in _required_for(path).items())


# -- every error answer is Problem Details ------------------------------------------------------

ERRORS = [
    ("GET", "/v1/parties/party-employer", {}, 404),
    ("GET", "/v1/nothing-here", {}, 404),
    ("DELETE", "/v1/parties", {}, (404, 405)),
    ("GET", "/v1/parties", {"count": "abc"}, 400),
    ("GET", "/v1/parties", {"type": "https://example.com/x|hr"}, 400),
    ("GET", "/v1/document-references", {"type": f"{VOCAB}/finance/document-type|invoice"}, 400),
    ("GET", "/v1/party-roles", {}, 400),
    ("GET", "/v1/value-sets", {"url": "https://example.com/none"}, 404),
    ("GET", CONTENT, {"identifier": f"{ns('fixed-asset-document')}|FAD-2025-0005"}, 404),
    ("POST", "/v1/reports", {}, 401),
]


@pytest.mark.parametrize(("method", "path", "params", "status"), ERRORS, ids=[f"{m} {p} {s}" for m, p, _, s in ERRORS])
def test_every_error_answer_is_problem_details(
    server: RunningServer, method: str, path: str, params: dict[str, str], status: int | tuple[int, ...]
) -> None:
    response = server.client.request(method, path, params=params)
    body = assert_problem(response, status)
    assert body["title"] and body["detail"]
    assert body["type"].startswith("https://") or body["type"] == "about:blank"


def test_two_servers_of_the_seed_answer_alike() -> None:
    """Two servers of the same seed answer the same: the data set is deterministic."""
    first = RunningServer(seeded_settings())
    try:
        second = RunningServer(seeded_settings())
        try:
            for path, params, _ in ENDPOINTS:
                a = first.client.get(path, params={**params, **ALL}).json()
                b = second.client.get(path, params={**params, **ALL}).json()
                assert a == b, path
        finally:
            second.stop()
    finally:
        first.stop()


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
