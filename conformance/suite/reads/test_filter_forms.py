"""Filters sent in the forms the contract leaves open, each with a value the target's own items show
(conformance.suite.support.typed_values):

- attribute values of every JSON type served, as code|value;
- NamingSystem `usage` in whatever shape the items carry it;
- Location `contained`, and `format` of the fixed-asset documents, whose meaning the contract does not show;
- document participants in an internal Party namespace, found through the PartyRoles they reference.

Where the contract shows no meaning for a parameter's value, the check is a 2xx envelope of valid items for a
well-formed value, and the record of the exercised clause says so."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import Findings, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.discovery import Discovery, discriminating
from conformance.suite.support.filters import FILTERS, Filter, matches, sound_attributes, unmatched, values_of
from conformance.suite.support.reads import Item, ListRead, as_list, identifiers, ids, list_read, token
from conformance.suite.support.typed_values import (
    contained_values,
    typed_attributes_with_types,
    usage_candidates,
    usage_strings,
)

LOCATIONS = "/v1/locations"
NAMING_SYSTEMS = "/v1/naming-systems"
ASSET_DOCUMENTS = "/v1/fixed-asset-documents"
DOCUMENTS = "/v1/document-references"
TYPED = "typed: each type of value served, filtered as code|value"
PARTICIPANT = "participant (internal Party namespace)"
MEANING_NOT_SHOWN = "meaning not shown: checked for a 2xx envelope of valid items"
FORM_VALUES_LIMIT = 6
"""Values sent of one parameter whose form is open: enough to meet each shape the items show."""


def _shown(path: str, params: dict[str, Any]) -> str:
    return f"GET {path}?{'&'.join(f'{k}={v}' for k, v in params.items())}"


def _accepted(discovery: Discovery, read: ListRead, params: dict[str, Any]) -> list[Item] | None:
    """Every item the read with `params` answers, each judged valid by its own requirement's rule; None when the
    target turns the value down with a 4xx (for a value whose form the contract leaves open, its choice)."""
    response = discovery.api.get(read.path, {**params, "count": 1})
    if 400 <= response.status_code < 500:
        return None
    return discovery.api.read_all(read.path, params, resource_type=read.resource_type)


def _not_listed(discovery: Discovery, read: ListRead, found: list[Item]) -> list[Any]:
    """Items of `found` that the read without the filter does not list: a filter narrows a list, never widens it
    (read again for what is missing: another test may have written since)."""
    missing = set(ids(found)) - set(ids(discovery.items(read.path)))
    if missing:
        missing -= set(ids(discovery.api.read_all(read.path)))
    return sorted(missing, key=str)


# -- attribute values of every type ---------------------------------------------------------------------------


def _attribute_case(path: str, *requirements: str) -> Any:
    return pytest.param(list_read(path), marks=pytest.mark.requirement(*requirements), id=path.removeprefix("/v1/"))


@pytest.mark.requirement("ERIS-BASE-003", "ERIS-FILTER-004")
@pytest.mark.parametrize(
    "read",
    [
        _attribute_case("/v1/parties", "ERIS-FILTER-005"),
        _attribute_case("/v1/party-relationships", "ERIS-FILTER-008"),
        _attribute_case(LOCATIONS, "ERIS-LOC-002"),
        _attribute_case("/v1/grant-assignments", "ERIS-ACCESS-004"),
        _attribute_case(ASSET_DOCUMENTS, "ERIS-ASSET-010"),
        _attribute_case(DOCUMENTS, "ERIS-DOC-004"),
    ],
)
def test_an_attribute_of_each_type_served_finds_its_items_by_code_value(
    discovery: Discovery, read: ListRead, findings: Findings
) -> None:
    """ "attribute[] are typed extra fields: each has a code and a value, and is filtered as code|value." For each
    JSON type the read's items serve an attribute value in (string, number, boolean), one such attribute, sent as
    code|value with the value in its JSON text (`42`, `12.5`, `true`), finds its item, and only items holding it
    (a value served as text or as that number matches alike). An object or an array has no text the contract
    shows: it is not sent."""
    flt = FILTERS[read.path]["attribute"]
    items = discovery.items(read.path)
    by_type: dict[str, list[Item]] = {}
    for item in items:
        sound = set(sound_attributes(discovery, item, read.resource_type))
        for kind in {kind for pair, kind in typed_attributes_with_types(item) if pair in sound}:
            by_type.setdefault(kind, []).append(item)
    if not by_type:
        not_exercised(
            f"GET {read.path} served no item with an attribute whose value is a string, a number or a boolean",
            exercise=data_served(read.path, "an item with an attribute"),
        )
    held: list[str] = []
    for kind, carrying in sorted(by_type.items()):

        def of_kind(item: Item, kind: str = kind) -> list[str]:
            sound = set(sound_attributes(discovery, item, read.resource_type))
            return [
                token(*pair) for pair, served in typed_attributes_with_types(item) if served == kind and pair in sound
            ]

        chosen = discriminating(
            carrying, of_kind, lambda i, v: matches(discovery, flt, i, v, read.resource_type), limit=1
        )
        for item, value in chosen:
            if _finds_only_matching(discovery, read, flt, item, value, findings, f"a {kind} value"):
                held.append(value)
                exercised("ERIS-BASE-003", "filtered as code|value", value=value, request=_request(read, value))
                exercised("ERIS-FILTER-004", "code|value", value=value, request=_request(read, value))
    if len(held) == len(by_type):
        served = ", ".join(f"{kind} {value}" for kind, value in zip(sorted(by_type), held, strict=True))
        exercised("ERIS-BASE-003", TYPED, value=served, request=f"GET {read.path}?attribute=...")
        if read.path == LOCATIONS:
            exercised("ERIS-LOC-002", "attribute", value=served, request=f"GET {read.path}?attribute=...")
    findings.check()


def _request(read: ListRead, value: str) -> str:
    return f"GET {read.path}?attribute={value}"


def _finds_only_matching(
    discovery: Discovery, read: ListRead, flt: Filter, item: Item, value: str, findings: Findings, what: str
) -> bool:
    params = {**discovery.required_for(read, item), flt.parameter: value}
    found = discovery.api.read_all(read.path, params)
    shown = _shown(read.path, params)
    before = len(findings.found.get("ERIS-BASE-003", []))
    if item.get("id") not in ids(found):
        findings.add("ERIS-BASE-003", f"{shown} ({what}) did not find {item.get('id')}, which carries it")
    wrong = unmatched(discovery, flt, found, value, read.resource_type)
    if wrong:
        findings.add("ERIS-BASE-003", f"{shown} ({what}) answered items that do not hold it: {wrong[:5]}")
    return len(findings.found.get("ERIS-BASE-003", [])) == before


# -- usage of the naming systems ------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-NS-001")
def test_naming_systems_are_filtered_by_usage_in_the_forms_their_items_show(
    discovery: Discovery, findings: Findings
) -> None:
    """ "Filterable by usage", and "allowed values of usage and the shape of its items: not shown". Values are
    taken from the items' usage in each shape it comes in: a string as it is, a Coding's code and system|code, an
    object's string members (a resourceType, a profile URL), each item of an array. A string the items serve as
    their usage must be accepted and find its item; a value derived from another shape may be turned down (4xx),
    its form being a guess. Whatever is accepted narrows the list, never widens it (items the read without usage
    does not list); and a filter that never leaves out an item whose usage says nothing of the value sent is no
    filter: "Filterable by usage" means the list can be narrowed by it."""
    read = list_read(NAMING_SYSTEMS)
    items = discovery.items(NAMING_SYSTEMS)
    verbatim = {
        value: item
        for item in items
        for value in as_list(item.get("usage"))
        if isinstance(value, str) and value and value.count("|") <= 1
    }
    derived = {value: item for item in items for value in usage_candidates(item.get("usage")) if value not in verbatim}
    if not verbatim and not derived:
        clause_not_exercised(
            "ERIS-NS-001",
            "usage",
            f"GET {NAMING_SYSTEMS} served no naming system with a usage",
            exercise=data_served(NAMING_SYSTEMS, "a naming system with a usage"),
        )
        not_exercised(
            f"GET {NAMING_SYSTEMS} served no naming system with a usage",
            exercise=data_served(NAMING_SYSTEMS, "a naming system with a usage"),
        )

    def foreign(value: str) -> set[Any]:
        return {i.get("id") for i in items if value not in usage_strings(i.get("usage"))}

    ranked = sorted(
        [*verbatim.items(), *derived.items()], key=lambda entry: (entry[0] not in verbatim, -len(foreign(entry[0])))
    )
    narrowed, accepted = False, 0
    for value, item in ranked[: 2 * FORM_VALUES_LIMIT]:
        params = {"usage": value}
        shown = _shown(NAMING_SYSTEMS, params)
        found = _accepted(discovery, read, params)
        if found is None:
            if value in verbatim:
                findings.add("ERIS-NS-001", f"{shown} (a usage its item {item.get('id')} serves as it is) was refused")
            continue
        accepted += 1
        if value in verbatim and item.get("id") not in ids(found):
            findings.add("ERIS-NS-001", f"{shown} did not find {item.get('id')}, whose usage is {value!r}")
        if outside := _not_listed(discovery, read, found):
            findings.add("ERIS-NS-001", f"{shown} answered items the read without usage does not list: {outside[:5]}")
        narrowed = narrowed or bool(foreign(value) - set(ids(found)))
        exercised("ERIS-NS-001", "usage", value=value, request=shown)
    if accepted and not narrowed and any(foreign(value) for value, _ in ranked):
        findings.add(
            "ERIS-NS-001",
            f"GET {NAMING_SYSTEMS}?usage=... left out no naming system for any of {accepted} values taken from the "
            "items' usage, not even those whose usage says nothing of the value: the filter does not filter",
        )
    if not accepted:
        clause_not_exercised(
            "ERIS-NS-001",
            "usage",
            f"GET {NAMING_SYSTEMS} turned down every value taken from its items' usage ({len(ranked)} forms)",
            exercise=data_served(NAMING_SYSTEMS, "a naming system whose usage is a string"),
        )
    findings.check()


# -- contained of the locations, format of the fixed-asset documents ------------------------------------------


@pytest.mark.requirement("ERIS-LOC-002", "ERIS-FILTER-004")
def test_locations_are_searchable_by_what_their_contained_resources_show(
    discovery: Discovery, findings: Findings
) -> None:
    """ "Searchable by profile, identifier, owner, attribute, contained, type, category." The contract shows no
    meaning for a value of `contained`: the check is a 2xx envelope of valid items for a well-formed value, no
    item the read without it does not list. Values come from the items' contained[]: each contained resource's
    identifier as system|value, well-formed by "Filter parameters have the form system|value", which must be
    accepted; and its id, which may be turned down (no form of it is shown)."""
    read = list_read(LOCATIONS)
    values = {value: item for item in discovery.items(LOCATIONS) for value in contained_values(item)}
    if not values:
        exercise = data_served(LOCATIONS, "a location with contained[]")
        clause_not_exercised(
            "ERIS-LOC-002", "contained", f"GET {LOCATIONS} served no location with contained[]", exercise=exercise
        )
        not_exercised(f"GET {LOCATIONS} served no location with contained[]", exercise=exercise)
    accepted = 0
    for value in sorted(values, key=lambda v: "|" not in v)[:FORM_VALUES_LIMIT]:
        params = {"contained": value}
        shown = _shown(LOCATIONS, params)
        found = _accepted(discovery, read, params)
        if found is None:
            if "|" in value:
                findings.add(
                    "ERIS-LOC-002",
                    f"{shown} (system|value of a contained resource of {values[value].get('id')}) was refused",
                )
            continue
        accepted += 1
        if outside := _not_listed(discovery, read, found):
            findings.add(
                "ERIS-LOC-002", f"{shown} answered items the read without contained does not list: {outside[:5]}"
            )
        exercised("ERIS-LOC-002", "contained", value=f"{value} ({MEANING_NOT_SHOWN})", request=shown)
    if not accepted:
        findings.add(
            "ERIS-LOC-002",
            f"GET {LOCATIONS} turned down every value its items show in contained[]: {sorted(values)[:5]}",
        )
    findings.check()


@pytest.mark.requirement("ERIS-ASSET-010")
def test_fixed_asset_documents_are_read_by_format(discovery: Discovery, findings: Findings) -> None:
    """ "GET /v1/fixed-asset-documents: query identifier, owner, attribute, format; envelope." What `format`
    selects in the list is not shown: the check is a 2xx envelope of valid items for a well-formed value, no item
    the read without it does not list. Values: the one code the contract gives the parameter ("format (optional
    code; blob prefers binary content)", of $document-content) and each contentType the documents' attachments
    show; any one of them may be turned down, not all."""
    read = list_read(ASSET_DOCUMENTS)
    documents = discovery.items(ASSET_DOCUMENTS)
    types = {
        a["contentType"]
        for d in documents
        for a in as_list(d.get("attachment"))
        if isinstance(a, dict) and isinstance(a.get("contentType"), str) and a["contentType"]
    }
    accepted: list[str] = []
    tried = ["blob", *sorted(types)][:FORM_VALUES_LIMIT]
    for value in tried:
        params = {"format": value}
        shown = _shown(ASSET_DOCUMENTS, params)
        found = _accepted(discovery, read, params)
        if found is None:
            continue
        accepted.append(value)
        if outside := _not_listed(discovery, read, found):
            findings.add(
                "ERIS-ASSET-010", f"{shown} answered items the read without format does not list: {outside[:5]}"
            )
        exercised("ERIS-ASSET-010", "format", value=f"{value} ({MEANING_NOT_SHOWN})", request=shown)
    if not accepted:
        findings.add("ERIS-ASSET-010", f"GET {ASSET_DOCUMENTS} turned down every format tried: {', '.join(tried)}")
    findings.check()


# -- participant in an internal Party namespace ---------------------------------------------------------------


@pytest.mark.requirement("ERIS-DOC-004", "ERIS-FILTER-004")
def test_documents_are_read_by_the_party_of_a_participant_in_an_internal_party_namespace(
    discovery: Discovery, findings: Findings
) -> None:
    """ "participant (internal Party namespace)", and a participant is a Reference(PartyRole): a document is found
    by the Party its participant's role is played by (GET /v1/party-roles names each role's `party`), named by an
    identifier in an installation namespace (urn:oid:1.2.616.1.113769.4.<installation>.<key>); the read answers
    only documents with a participant that is that Party or a role of it."""
    read = list_read(DOCUMENTS)
    flt = FILTERS[DOCUMENTS]["participant"]

    def party_values(item: Item) -> list[str]:
        return [
            value
            for value in values_of(discovery, flt, item, read.resource_type)
            if (party := discovery.party(_pair(value))) is not None and _pair(value) in identifiers(party)
        ]

    chosen = discriminating(
        discovery.items(DOCUMENTS), party_values, lambda i, v: matches(discovery, flt, i, v, read.resource_type)
    )
    if not chosen:
        exercise = data_served(
            DOCUMENTS,
            "a document whose participant names a PartyRole of GET /v1/party-roles, or a Party by an "
            "identifier in an installation namespace",
        )
        reason = f"no document listed by GET {DOCUMENTS} names a participant whose Party has an installation identifier"
        clause_not_exercised("ERIS-DOC-004", PARTICIPANT, reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    for item, value in chosen:
        params = {"participant": value}
        shown = _shown(DOCUMENTS, params)
        found = discovery.api.read_all(DOCUMENTS, params)
        failed = False
        if item.get("id") not in ids(found):
            failed = True
            findings.add("ERIS-DOC-004", f"{shown} did not find {item.get('id')}, whose participant is that Party's")
        wrong = unmatched(discovery, flt, found, value, read.resource_type)
        if wrong:
            failed = True
            findings.add("ERIS-DOC-004", f"{shown} answered documents without that Party as participant: {wrong[:5]}")
        if not failed:
            exercised("ERIS-DOC-004", PARTICIPANT, value=value, request=shown)
            exercised("ERIS-FILTER-004", "system|value", value=value, request=shown)
    findings.check()


def _pair(value: str) -> tuple[str, str]:
    system, _, rest = value.partition("|")
    return system, rest
