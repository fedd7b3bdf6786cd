"""The access reads: capabilities and grant assignments with their filters and the two access queries of the
contract; and the read-only master data refuse writes."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import Findings, not_exercised
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.filters import FILTERS, check_filter_for
from conformance.suite.support.reads import (
    ListRead,
    assert_not_success,
    identifiers,
    ids,
    list_read,
    reference_identifiers,
    token,
)

VALUE_SETS = "/v1/value-sets"
GRANTS = "/v1/grant-assignments"
FORM = "ERIS-FILTER-004"
CAPABILITIES = "ERIS-ACCESS-003"
ASSIGNMENTS = "ERIS-ACCESS-004"


# -- capabilities and grant assignments -----------------------------------------------------------


def _case(path: str, parameter: str, mark: Any) -> Any:
    breaks = CAPABILITIES if path == "/v1/capabilities" else ASSIGNMENTS  # the row listing the parameter
    return pytest.param(
        list_read(path), FILTERS[path][parameter], breaks, marks=mark, id=f"{path.removeprefix('/v1/')}?{parameter}"
    )


@pytest.mark.parametrize(
    ("read", "flt", "breaks"),
    [
        _case("/v1/capabilities", "identifier", pytest.mark.requirement(CAPABILITIES, FORM, "ERIS-ROUTE-001")),
        _case(GRANTS, "assignedTo", pytest.mark.requirement(ASSIGNMENTS, FORM)),
        _case(GRANTS, "granted", pytest.mark.requirement(ASSIGNMENTS, FORM)),
        _case(GRANTS, "basedOn", pytest.mark.requirement(ASSIGNMENTS)),
        _case(GRANTS, "scope", pytest.mark.requirement(ASSIGNMENTS, FORM)),
        _case(GRANTS, "attribute", pytest.mark.requirement(ASSIGNMENTS, FORM, "ERIS-BASE-003")),
    ],
)
def test_an_access_filter_value_taken_from_an_item_finds_it_and_only_matching_items(
    discovery: Discovery, read: ListRead, flt: Any, breaks: str, findings: Findings
) -> None:
    check_filter_for(discovery, read, flt, findings, breaks)


def _party_identifiers(discovery: Discovery, references: Any) -> list[tuple[str, str]]:
    """The identifiers of `references` that name a Party the target serves: "<Party namespace>|<id>"."""
    return [pair for pair in reference_identifiers(references) if discovery.party(pair) is not None]


@pytest.mark.requirement("ERIS-ACCESS-005")
def test_the_assignments_of_one_holder(discovery: Discovery) -> None:
    grants = discovery.items(GRANTS)
    holders = sorted({pair for grant in grants for pair in _party_identifiers(discovery, grant.get("assignedTo"))})
    if not holders:
        not_exercised(
            f"GET {GRANTS} served no assignment whose assignedTo names a Party that GET /v1/parties serves",
            exercise=data_served(GRANTS, "an assignment assigned to a Party of the target (assignedTo)"),
        )
    chosen = holders[:5]
    answers = discovery.api.concurrently(
        [partial(discovery.api.read_all, GRANTS, {"assignedTo": token(*holder)}) for holder in chosen]
    )
    for holder, found in zip(chosen, answers, strict=True):
        shown = f"GET {GRANTS}?assignedTo={token(*holder)}"
        theirs = {g.get("id") for g in grants if holder in reference_identifiers(g.get("assignedTo"))}
        missing = theirs - set(ids(found))
        assert not missing, f"{shown} left out assignments of that holder: {sorted(missing, key=str)}"
        wrong = [
            g.get("id")
            for g in found
            if not any(discovery.same_party(holder, pair) for pair in reference_identifiers(g.get("assignedTo")))
        ]
        assert not wrong, f"{shown} answered assignments of other holders: {wrong}"


@pytest.mark.requirement("ERIS-ACCESS-006")
def test_who_holds_a_capability_over_a_person(discovery: Discovery) -> None:
    grants = discovery.items(GRANTS)
    scopes_of = {g.get("id"): set(reference_identifiers(g.get("scope"))) for g in grants}
    granted_of = {g.get("id"): set(reference_identifiers(g.get("granted"))) for g in grants}
    queries = sorted(
        {
            (person, capability)
            for grant in grants
            for person in _party_identifiers(discovery, grant.get("scope"))
            for capability in granted_of[grant.get("id")]
        },
        # those that some assignment matches on one half only first: an "either" reading then shows
        # then the query itself: the set's order changes from one process to another, the queries sent must not
        key=lambda q: (
            -sum(1 for g in grants if (q[0] in scopes_of[g.get("id")]) != (q[1] in granted_of[g.get("id")])),
            q,
        ),
    )
    if not queries:
        not_exercised(
            f"GET {GRANTS} served no assignment with a Party of GET /v1/parties in its scope and a capability granted",
            exercise=data_served(
                GRANTS, "an assignment granting a capability (granted) over a Party of the target (scope)"
            ),
        )
    chosen = queries[:5]
    asked = [{"scope": token(*person), "granted": token(*capability)} for person, capability in chosen]
    answers = discovery.api.concurrently([partial(discovery.api.read_all, GRANTS, params) for params in asked])
    for (person, capability), params, found in zip(chosen, asked, answers, strict=True):
        shown = f"GET {GRANTS}?scope={params['scope']}&granted={params['granted']}"
        holding = {
            g.get("id") for g in grants if person in scopes_of[g.get("id")] and capability in granted_of[g.get("id")]
        }
        missing = holding - set(ids(found))
        assert not missing, f"{shown} left out assignments that grant it over that person: {sorted(missing, key=str)}"
        wrong = [
            g.get("id")
            for g in found
            if capability not in set(reference_identifiers(g.get("granted")))
            or not any(discovery.same_party(person, pair) for pair in reference_identifiers(g.get("scope")))
        ]
        assert not wrong, f"{shown} answered assignments without both: {wrong}"


# -- read-only ------------------------------------------------------------------------------------

READ_ONLY = [
    "/v1/party-roles",
    "/v1/party-relationships",
    "/v1/locations",
    VALUE_SETS,
    "/v1/naming-systems",
    "/v1/capabilities",
    GRANTS,
]


def _a_resource(discovery: Discovery, path: str) -> dict[str, Any]:
    if path == VALUE_SETS:
        listing = discovery.items(path)
        found = discovery.value_set(listing[0]["url"]) if listing else []
        if not found:
            not_exercised(
                f"GET {path} listed no value set that GET {path}?url= then served, to send back",
                exercise=data_served(path),
            )
    else:
        found = discovery.items(path)
        if not found:
            not_exercised(f"GET {path} served no item to send back", exercise=data_served(path))
    return found[0]


# Last in the module: a target that wrongly accepts a write changes data only after the reads have run.
@pytest.mark.requirement("ERIS-ACCESS-007")
@pytest.mark.parametrize("path", READ_ONLY)
def test_read_only_master_data_refuse_writes(discovery: Discovery, path: str) -> None:
    resource = _a_resource(discovery, path)
    named = identifiers(resource)
    params = {"identifier": token(*named[0])} if named else {}
    body = {key: value for key, value in resource.items() if key != "id"}
    assert_not_success(discovery.api.post(path, json=body), f"{path} is read-only")
    for method in ("PATCH", "PUT"):
        response = discovery.api.request(method, path, params=params, json={**body, "comment": "eris conformance"})
        assert_not_success(response, f"{path} is read-only")
