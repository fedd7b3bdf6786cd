"""Filters of the master-data, fixed-asset and document reads: every query parameter of schemas/openapi.json
whose value form the contract shows, driven by values taken from the target's own items; `attribute`
repeated; the required parameters; and the coded filters `type` and `status` against the vocabularies
declared for the resource (profiles/resources/<Type>.json, filterVocabularies).

Parameters whose value form the contract does not show (parties lastModified, locations contained,
document-references statusDate and issueDateFrom, fixed-asset-documents format: FORM_NOT_SHOWN) are not
sent here: locations contained, fixed-asset-documents format and naming-systems usage are in
test_filter_forms.py, with attribute values of every JSON type; the date filters are sent with the items' own
dates in test_date_filters.py. Capabilities and grant assignments are in access/test_access.py; value sets in
master_data/test_terminology.py. Error bodies of the read side have no shape in the contract: a 400 is checked
for its status and for naming the parameter somewhere in its body.

What a filtered read answers is checked for what the filter selects, not validated: the shape of the
items is the envelope test's (test_reads.py), so that an item of a wrong shape fails its own rows and not
those of every filter that happens to find it."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import Findings, exercised, not_exercised
from conformance.suite.support.discovery import Discovery, skip_without
from conformance.suite.support.filters import (
    FILTERS,
    Filter,
    check_filter_for,
    reference_key_identifiers,
    sound_attributes,
    unchecked_parameters,
)
from conformance.suite.support.reads import (
    UNDECLARED_VOCABULARY,
    ListRead,
    codings,
    identifier_pairs,
    ids,
    list_read,
    list_reads,
    token,
)
from conformance.suite.support.typed_values import typed_attributes
from conformance.suite.support.vocabularies import (
    REFUSED_CODED_FILTERS,
    a_code_of,
    all_codings,
    assert_400_naming,
    codes_carried,
    declared_vocabulary_cases,
    list_read_of,
)
from profiles import load_contract

_UNCHECKED = unchecked_parameters()
assert not _UNCHECKED, f"query parameters of openapi.json that no read-side test covers: {_UNCHECKED}"

ACCESS_PATHS = {"/v1/capabilities", "/v1/grant-assignments", "/v1/naming-systems"}
"""Filtered in access/test_access.py and master_data/test_terminology.py."""

# Requirement rows, named once. Marks are written out in each decorator (no helper builds them): the
# catalogue's coverage (conformance/catalogue/requirements.py) reads them from the source.
FORM = "ERIS-FILTER-004"
PARTIES = "ERIS-FILTER-005"
ROLES = "ERIS-FILTER-007"
RELATIONSHIPS = "ERIS-FILTER-008"
LOCATIONS = "ERIS-LOC-002"
# rows of requirements-writes.toml, where the fixed-asset and document-reference reads are listed
ALLOCATIONS = "ERIS-ASSET-007"
ASSET_DOCUMENTS = "ERIS-ASSET-010"
DOCUMENTS = "ERIS-DOC-004"
ADDRESSED_BY_IDENTIFIER = "ERIS-ROUTE-001"
ATTRIBUTE = "ERIS-BASE-003"
CODED = "ERIS-FILTER-003"


_COVERED: set[tuple[str, str]] = set()


ENDPOINT = {
    "/v1/parties": PARTIES,
    "/v1/party-roles": ROLES,
    "/v1/party-relationships": RELATIONSHIPS,
    "/v1/locations": LOCATIONS,
    "/v1/fixed-asset-allocations": ALLOCATIONS,
    "/v1/fixed-asset-documents": ASSET_DOCUMENTS,
    "/v1/document-references": DOCUMENTS,
}
"""The requirement whose row lists a read's parameters: a filter that does not filter breaks it."""


def _case(path: str, parameter: str, mark: Any, breaks: str | None = None) -> Any:
    _COVERED.add((path, parameter))
    return pytest.param(
        list_read(path),
        FILTERS[path][parameter],
        breaks or ENDPOINT[path],
        marks=mark,
        id=f"{path.removeprefix('/v1/')}?{parameter}",
    )


# -- every filter ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "flt", "breaks"),
    [
        _case(
            "/v1/parties",
            "profile",
            pytest.mark.requirement(FORM, PARTIES, "ERIS-FILTER-006", "ERIS-READ-003"),
            breaks="ERIS-FILTER-006",
        ),
        _case("/v1/parties", "type", pytest.mark.requirement(FORM, PARTIES, CODED, "ERIS-FILTER-001")),
        _case(
            "/v1/parties",
            "identifier",
            pytest.mark.requirement(FORM, PARTIES, ADDRESSED_BY_IDENTIFIER, "ERIS-PARTY-011"),
        ),
        _case("/v1/parties", "owner", pytest.mark.requirement(FORM, PARTIES)),
        _case("/v1/parties", "attribute", pytest.mark.requirement(FORM, PARTIES, ATTRIBUTE)),
        _case("/v1/parties", "status", pytest.mark.requirement(FORM, PARTIES, CODED, "ERIS-FILTER-001")),
        _case("/v1/party-roles", "role", pytest.mark.requirement(FORM, ROLES)),
        _case("/v1/party-roles", "party", pytest.mark.requirement(FORM, ROLES)),
        _case("/v1/party-roles", "profile", pytest.mark.requirement(ROLES)),
        _case("/v1/party-relationships", "type", pytest.mark.requirement(FORM, RELATIONSHIPS, CODED)),
        _case("/v1/party-relationships", "partyFrom", pytest.mark.requirement(FORM, RELATIONSHIPS)),
        _case("/v1/party-relationships", "partyTo", pytest.mark.requirement(FORM, RELATIONSHIPS)),
        _case("/v1/party-relationships", "attribute", pytest.mark.requirement(FORM, RELATIONSHIPS, ATTRIBUTE)),
        _case("/v1/locations", "profile", pytest.mark.requirement(LOCATIONS, "ERIS-LOC-001")),
        _case("/v1/locations", "identifier", pytest.mark.requirement(FORM, LOCATIONS, ADDRESSED_BY_IDENTIFIER)),
        _case("/v1/locations", "owner", pytest.mark.requirement(FORM, LOCATIONS)),
        _case("/v1/locations", "attribute", pytest.mark.requirement(FORM, LOCATIONS, ATTRIBUTE)),
        _case("/v1/locations", "type", pytest.mark.requirement(FORM, LOCATIONS, CODED)),
        _case("/v1/locations", "category", pytest.mark.requirement(FORM, LOCATIONS)),
        _case("/v1/fixed-asset-allocations", "category", pytest.mark.requirement(FORM, ALLOCATIONS)),
        _case("/v1/fixed-asset-documents", "identifier", pytest.mark.requirement(FORM, ASSET_DOCUMENTS)),
        _case("/v1/fixed-asset-documents", "owner", pytest.mark.requirement(FORM, ASSET_DOCUMENTS)),
        _case("/v1/fixed-asset-documents", "attribute", pytest.mark.requirement(FORM, ASSET_DOCUMENTS, ATTRIBUTE)),
        _case("/v1/document-references", "profile", pytest.mark.requirement(DOCUMENTS)),
        _case(
            "/v1/document-references", "identifier", pytest.mark.requirement(FORM, DOCUMENTS, ADDRESSED_BY_IDENTIFIER)
        ),
        _case("/v1/document-references", "attribute", pytest.mark.requirement(FORM, DOCUMENTS, ATTRIBUTE)),
        _case("/v1/document-references", "type", pytest.mark.requirement(FORM, DOCUMENTS, CODED, "ERIS-FILTER-002")),
        _case("/v1/document-references", "participant", pytest.mark.requirement(FORM, DOCUMENTS)),
    ],
)
def test_a_value_taken_from_an_item_finds_it_and_only_matching_items(
    discovery: Discovery, read: ListRead, flt: Filter, breaks: str, findings: Findings
) -> None:
    refused = REFUSED_CODED_FILTERS.get((read.path, flt.parameter))
    check_filter_for(discovery, read, flt, findings, breaks, refused, listing=[ENDPOINT[read.path]])


_TABLE = {(path, name) for path, filters in FILTERS.items() if path not in ACCESS_PATHS for name in filters}
assert _COVERED == _TABLE, f"filters without a case: {_TABLE - _COVERED}; cases of no filter: {_COVERED - _TABLE}"


@pytest.mark.requirement("ERIS-PARTY-010", "ERIS-PARTY-011", "ERIS-ROUTE-001")
@pytest.mark.parametrize("profile", [p.name for p in load_contract().profiles_of("Party")])
def test_a_party_is_read_back_by_each_of_its_reference_key_identifiers(
    discovery: Discovery, profile: str, findings: Findings
) -> None:
    url = discovery.contract.profiles[profile].url
    candidates = [
        (party, reference_key_identifiers(discovery, party))
        for party in discovery.parties
        if url in discovery.profiles_of(party, "Party")
    ]
    candidates = [(party, keys) for party, keys in candidates if keys]
    skip_without(candidates, f"{profile} party with an identifier in a reference-key namespace", "/v1/parties")
    party, keys = max(candidates, key=lambda candidate: len(candidate[1]))
    installation = f"urn:oid:1.2.616.1.113769.4.{discovery.contract.installation.number}."
    for system, value in keys:
        params = {"identifier": token(system, value)}
        found = discovery.api.read_all("/v1/parties", params)
        # a registry number is a reference key (ERIS-PARTY-010); an installation id is read in its form (-011)
        broken = "ERIS-PARTY-011" if system.startswith(installation) else "ERIS-PARTY-010"
        if party["id"] not in ids(found):
            findings.add(broken, f"GET /v1/parties?identifier={system}|{value} did not find {party['id']}")
        wrong = [p["id"] for p in found if {"system": system, "value": value} not in identifier_pairs(p)]
        if wrong:
            findings.add(broken, f"GET /v1/parties?identifier={system}|{value} answered parties without it: {wrong}")
    findings.check()


@pytest.mark.requirement(FORM, ATTRIBUTE)
@pytest.mark.parametrize("read", [r for r in list_reads() if "attribute" in FILTERS.get(r.path, {})], ids=str)
def test_repeated_attribute_filters_must_all_match(discovery: Discovery, read: ListRead) -> None:
    items = discovery.items(read.path)
    pairs_of = {item.get("id"): set(sound_attributes(discovery, item, read.resource_type)) for item in items}
    best = None
    for item in items:
        pairs = sorted(pairs_of[item.get("id")])
        for first in pairs:
            for second in pairs:
                if first == second:
                    continue
                # one that another item has without the second: an "any of" reading then shows
                telling = sum(1 for p in pairs_of.values() if first in p and second not in p)
                if best is None or telling > best[0]:
                    best = (telling, item, first, second)
    skip_without([best] if best else [], "item with two attributes", read.path)
    assert best is not None
    _, item, first, second = best
    params = {**discovery.required_for(read, item), "attribute": [token(*first), token(*second)]}
    found = discovery.api.read_all(read.path, params)
    shown = f"GET {read.path}?attribute={token(*first)}&attribute={token(*second)}"
    assert item.get("id") in ids(found), f"{shown} did not find {item.get('id')}, which has both"
    wrong = [i.get("id") for i in found if not {first, second} <= set(typed_attributes(i))]
    assert not wrong, f"{shown} answered items that lack one of the two attributes: {wrong}"
    exercised(FORM, "attribute may repeat", value=f"{token(*first)}, {token(*second)}", request=shown)


# -- required parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(list_read("/v1/party-roles"), marks=pytest.mark.requirement(ROLES), id="party-roles"),
        pytest.param(
            list_read("/v1/party-relationships"), marks=pytest.mark.requirement(RELATIONSHIPS), id="party-relationships"
        ),
        pytest.param(
            list_read("/v1/fixed-asset-allocations"),
            marks=pytest.mark.requirement(ALLOCATIONS),
            id="fixed-asset-allocations",
        ),
    ],
)
def test_a_read_without_its_required_parameter_is_refused(discovery: Discovery, read: ListRead) -> None:
    response = discovery.api.get(read.path)
    # The status code is not shown: any client error will do, a success or a server error will not.
    assert 400 <= response.status_code < 500, (
        f"GET {read.path} without {', '.join(read.required)} (required) answered {response.status_code}"
    )


# -- coded filters and their vocabularies ---------------------------------------------------------


@pytest.mark.requirement(CODED, "ERIS-ERR-101")
@pytest.mark.parametrize(
    ("resource_type", "parameter"),
    declared_vocabulary_cases(
        [
            # each case cites the rule of its own resource: a fault of one resource's filter leaves the other's row
            pytest.param("Party", "type", marks=pytest.mark.requirement("ERIS-FILTER-001"), id="Party.type"),
            pytest.param("Party", "status", marks=pytest.mark.requirement("ERIS-FILTER-001"), id="Party.status"),
            pytest.param(
                "DocumentReference",
                "type",
                marks=pytest.mark.requirement("ERIS-FILTER-002"),
                id="DocumentReference.type",
            ),
        ]
    ),
)
def test_a_coded_filter_in_an_undeclared_vocabulary_is_a_400_naming_the_parameter(
    discovery: Discovery, resource_type: str, parameter: str, findings: Findings
) -> None:
    read = list_read_of(resource_type)
    declared = discovery.contract.resources[resource_type].filter_vocabularies
    carried = [code for system, code in codes_carried(discovery, read, parameter) if system in declared[parameter]]
    code = carried[0] if carried else "x"
    # a vocabulary of nobody; those declared for the resource's other coded filters; and a few that the
    # items use in other elements (category, space...): real vocabularies, but not this filter's
    elsewhere = {system for item in discovery.items(read.path) for system, _ in all_codings(item)}
    others = {v for name, vocabularies in declared.items() if name != parameter for v in vocabularies}
    wrong = sorted(others - set(declared[parameter])) + sorted(elsewhere - others - set(declared[parameter]))[:3]
    for vocabulary in [UNDECLARED_VOCABULARY, *wrong]:
        assert_400_naming(discovery, read, parameter, token(vocabulary, code), findings, refused_by=CODED)
    findings.check()


@pytest.mark.requirement(CODED)
@pytest.mark.parametrize(
    ("resource_type", "parameter"),
    declared_vocabulary_cases(
        [
            # each case cites the rule of its own resource: a fault of one resource's filter leaves the other's row
            pytest.param("Party", "type", marks=pytest.mark.requirement("ERIS-FILTER-001"), id="Party.type"),
            pytest.param("Party", "status", marks=pytest.mark.requirement("ERIS-FILTER-001"), id="Party.status"),
            pytest.param(
                "DocumentReference",
                "type",
                marks=pytest.mark.requirement("ERIS-FILTER-002"),
                id="DocumentReference.type",
            ),
        ]
    ),
)
def test_a_coded_filter_in_each_declared_vocabulary_is_accepted(
    discovery: Discovery, resource_type: str, parameter: str
) -> None:
    read = list_read_of(resource_type)
    # a code of each vocabulary wherever the items carry one (warehouse/document-status is a status)
    carried = {system: code for item in discovery.items(read.path) for system, code in all_codings(item)}
    tried = 0
    for vocabulary in discovery.contract.resources[resource_type].filter_vocabularies[parameter]:
        code = carried.get(vocabulary) or a_code_of(discovery, vocabulary)
        if code is None:
            continue
        # The answer must be a read (200 and the envelope); which items a code of a vocabulary that is
        # not the element's own selects is not shown.
        discovery.api.read(read.path, {parameter: token(vocabulary, code)})
        tried += 1
    skip_without([None] * tried, f"code of the vocabularies declared for {resource_type} {parameter}", read.path)


@pytest.mark.requirement("ERIS-FILTER-002", "ERIS-ERR-102", "ERIS-ERR-101")
def test_the_finance_document_type_filter_on_document_references_is_a_400(
    discovery: Discovery, findings: Findings
) -> None:
    vocabulary = f"{discovery.vocab_url}/finance/document-type"
    code = a_code_of(discovery, vocabulary) or "invoice"
    read = list_read("/v1/document-references")
    assert_400_naming(discovery, read, "type", token(vocabulary, code), findings, refused_by="ERIS-ERR-102")
    findings.check()


# -- every profile the target lists ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "breaks"),
    [
        pytest.param(list_read("/v1/locations"), LOCATIONS, marks=pytest.mark.requirement(LOCATIONS), id="locations"),
        pytest.param(
            list_read("/v1/document-references"), DOCUMENTS, marks=pytest.mark.requirement(DOCUMENTS), id="documents"
        ),
    ],
)
def test_a_read_by_each_profile_the_items_claim_answers_every_item_claiming_it(
    discovery: Discovery, read: ListRead, breaks: str, findings: Findings
) -> None:
    """The filter cases above try a few profiles of the contract; here every profile URL the target's items claim in
    meta.profile, its own included: the read by it answers each item that claims it, and, for a profile of the
    contract, only items of that profile (recognised by its claim or its evidence). Parties: test_parties.py."""
    items = discovery.items(read.path)
    claimed = sorted({url for item in items for url in discovery.claimed_profiles(item)})
    if not claimed:
        not_exercised(
            f"GET {read.path} served no item that claims a profile in meta.profile",
            exercise=data_served(read.path, "an item that claims its profile in meta.profile"),
        )
    known = {profile.url for profile in discovery.contract.profiles_of(read.resource_type)}
    for url in claimed:
        found = discovery.api.read_all(read.path, {"profile": url})
        missing = {i.get("id") for i in items if url in discovery.claimed_profiles(i)} - set(ids(found))
        if missing:
            findings.add(
                breaks, f"GET {read.path}?profile={url} left out items that claim it: {sorted(missing, key=str)[:5]}"
            )
        if url in known:
            # an item that breaks the contract elsewhere is the envelope test's to report
            wrong = [
                i.get("id")
                for i in found
                if url not in discovery.profiles_of(i, read.resource_type)
                and discovery.validator.is_valid(i, resource_type=read.resource_type)
            ]
            if wrong:
                findings.add(breaks, f"GET {read.path}?profile={url} answered items not of that profile: {wrong[:5]}")
    findings.check()


# -- locations ------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ASSET-009", "ERIS-LOC-001", LOCATIONS)
def test_usage_places_are_read_by_the_usage_place_profile(discovery: Discovery, findings: Findings) -> None:
    """The read by the UsagePlace profile answers the usage places (ERIS-ASSET-009), each with its category
    usage-place (ERIS-LOC-001)."""
    url = discovery.contract.profiles["UsagePlace"].url
    found = discovery.api.read_all("/v1/locations", {"profile": url})
    category = (f"{discovery.vocab_url}/assets/location-category", "usage-place")
    for location in found:
        if url not in discovery.profiles_of(location, "Location"):
            findings.add("ERIS-ASSET-009", f"{location.get('id')} is not a usage place")
        elif category not in codings(location.get("category")):
            findings.add(
                "ERIS-LOC-001", f"usage place {location.get('id')} has no category usage-place in {category[0]}"
            )
    claiming = {i.get("id") for i in discovery.items("/v1/locations") if url in discovery.claimed_profiles(i)}
    missing = claiming - set(ids(found))
    if missing:
        findings.add(
            "ERIS-ASSET-009", f"GET /v1/locations?profile={url} left out usage places: {sorted(missing, key=str)}"
        )
    findings.check()
