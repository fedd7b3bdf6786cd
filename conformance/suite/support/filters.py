"""How each query parameter of a list read selects items (x-eris-filter of openapi.json), and the check that a
filter the contract fixes is honoured: a value taken from an item finds it, and only items that match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from conformance.evidence.outcomes import Blocked, what_would_exercise
from conformance.harness.plugin import Findings, exercised
from conformance.suite.support.clauses import leave_parameter, record_parameter
from conformance.suite.support.discovery import Discovery, discriminating, skip_without
from conformance.suite.support.discrimination import check_discrimination
from conformance.suite.support.reads import (
    Item,
    ListRead,
    Pair,
    as_list,
    codings,
    identifiers,
    ids,
    list_reads,
    reference_identifiers,
    token,
)
from conformance.suite.support.typed_values import internal_party_identifiers, typed_attributes
from profiles.openapi_index import list_reads as index_list_reads

# -- filters --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """How one query parameter of a list read selects items.

    kinds: `identifier` (the item's identifier[]), `owner` (owner[] references a Party), `reference`
    (the Reference or References at `element`), `coded` (the CodeableConcept(s) at `element`),
    `attribute` (code|value of attribute[]), `profile` (the profile URL), and `subset`: the contract
    names the parameter but not what it looks at, so a value the item carries (`source`) may only
    narrow the list, never widen it."""

    parameter: str
    kind: str
    element: str = ""
    source: Callable[[Discovery, Item], list[str]] | None = None
    internal_namespaces_only: bool = False
    """participant: "internal Party namespace"; a value in another namespace says nothing."""


def _played_profiles(discovery: Discovery, role: Item) -> list[str]:
    return [
        url
        for pair in reference_identifiers(role.get("party"))
        if (party := discovery.party(pair)) is not None
        for url in discovery.claimed_profiles(party)
    ]


def _basis(_: Discovery, item: Item) -> list[str]:
    return [token(*pair) for pair in codings(item.get("basis"))]


_SUBSET_SOURCES: dict[tuple[str, str], Callable[[Discovery, Item], list[str]]] = {
    # PartyRole has no profiles in the contract; which profile the filter means is not shown.
    ("/v1/party-roles", "profile"): _played_profiles,
    # GrantAssignment has no element basedOn; that it looks at `basis` is not shown.
    ("/v1/grant-assignments", "basedOn"): _basis,
}
"""Parameters whose meaning the contract does not show, but whose values an item carries: such a value may only
narrow the list, never widen it."""


def _filter_table() -> tuple[dict[str, dict[str, Filter]], set[tuple[str, str]]]:
    table: dict[str, dict[str, Filter]] = {}
    form_not_shown: set[tuple[str, str]] = set()
    for read in index_list_reads():
        if read.path == "/v1/value-sets":
            continue  # checked by the value-set tests (VALUE_SET_PARAMETERS)
        for name, described in read.filters.items():
            if described.shown:
                table.setdefault(read.path, {})[name] = Filter(
                    name, described.kind, described.element, internal_namespaces_only=described.namespaces == "internal"
                )
            elif (read.path, name) in _SUBSET_SOURCES:
                table.setdefault(read.path, {})[name] = Filter(
                    name, "subset", source=_SUBSET_SOURCES[(read.path, name)]
                )
            else:
                form_not_shown.add((read.path, name))
    return table, form_not_shown


FILTERS, FORM_NOT_SHOWN = _filter_table()
"""How each query parameter of a list read selects items (x-eris-filter of openapi.json); FORM_NOT_SHOWN: the
parameters whose value form the contract does not show: no value can be sent that must work."""

VALUE_SET_PARAMETERS = {"url", "system", "id", "owner", "status", "attribute"}
"""The parameters of GET /v1/value-sets: checked by the value-set tests, not by the filter table."""


def unchecked_parameters() -> list[tuple[str, str]]:
    """Query parameters of the list reads that neither the filter table nor the value-set tests cover,
    nor FORM_NOT_SHOWN explains: empty, or the suite has fallen behind openapi.json."""
    return [
        (read.path, name)
        for read in list_reads()
        for name in read.filters
        if name not in FILTERS.get(read.path, {})
        and (read.path, name) not in FORM_NOT_SHOWN
        and not (read.path == "/v1/value-sets" and name in VALUE_SET_PARAMETERS)
    ]


def reference_key_identifiers(discovery: Discovery, party: Item) -> list[Pair]:
    """The identifiers of a Party in the namespaces the contract marks as reference keys for its profiles
    (profiles/namespaces.json: not the employer organization id, though employee ids share its space)."""
    profiles = discovery.validator.recognised_profiles(party, "Party")
    return [pair for pair in identifiers(party) if discovery.contract.is_reference_key(pair[0], profiles)]


def values_of(discovery: Discovery, flt: Filter, item: Item, resource_type: str) -> list[str]:
    """The values of `flt` that `item` carries: filtering by any of them must find it. A system holding "|"
    cannot be told from its value in the form `system|value`: no value of it is taken."""
    return [value for value in _values_of(discovery, flt, item, resource_type) if value.count("|") <= 1]


def _values_of(discovery: Discovery, flt: Filter, item: Item, resource_type: str) -> list[str]:
    if flt.kind == "identifier":
        # a Party is read back by its reference keys; whether PESEL or a warehouse copy finds it is open
        pairs = reference_key_identifiers(discovery, item) if resource_type == "Party" else identifiers(item)
        return [token(*pair) for pair in pairs]
    if flt.kind == "owner":
        return [token(*pair) for pair in reference_identifiers(item.get("owner"))]
    if flt.kind == "reference":
        pairs = reference_identifiers(item.get(flt.element))
        if flt.internal_namespaces_only:  # a PartyRole named stands for the Party it plays (GET /v1/party-roles)
            pairs = internal_party_identifiers(discovery, pairs)
        return [token(*pair) for pair in pairs]
    if flt.kind == "coded":
        # "Coded filters type and status are resolved against the vocabularies declared for the resource. A
        # vocabulary outside them gives 400": a code the item carries in another vocabulary cannot be filtered by.
        declared = discovery.contract.resources[resource_type].filter_vocabularies.get(flt.parameter)
        pairs = codings(item.get(flt.element))
        # a code outside its own value set is another requirement's defect; filtering by it tells nothing
        sets = discovery.contract.value_sets
        return [
            token(*pair)
            for pair in pairs
            if (declared is None or pair[0] in declared) and (pair[0] not in sets or sets[pair[0]].contains(*pair))
        ]
    if flt.kind == "attribute":
        return [token(*pair) for pair in sound_attributes(discovery, item, resource_type)]
    if flt.kind == "profile":
        known = {p.url for p in discovery.contract.profiles_of(resource_type)}
        return [url for url in discovery.claimed_profiles(item) if url in known]
    if flt.kind == "subset":
        assert flt.source is not None
        return flt.source(discovery, item)
    raise AssertionError(f"unknown filter kind {flt.kind}")


def sound_attributes(discovery: Discovery, item: Item, resource_type: str) -> list[Pair]:
    """`typed_attributes` of `item` but those the validator finds broken: a code outside its value set is that
    requirement's defect, and a filter by the code served tells nothing about the filter."""
    broken = set()
    for issue in discovery.validator.validate(item, resource_type=resource_type):
        steps = (issue.location or "").split("/")
        if issue.is_error and len(steps) > 2 and steps[1] == "attribute" and steps[2].isdigit():
            broken.add(int(steps[2]))
    kept = [attribute for position, attribute in enumerate(as_list(item.get("attribute"))) if position not in broken]
    return typed_attributes({"attribute": kept})


def matches(discovery: Discovery, flt: Filter, item: Item, value: str, resource_type: str) -> bool:
    """Whether `item` satisfies `flt` = `value` (for `subset`, always: nothing is known)."""
    if flt.kind == "profile":
        return value in discovery.profiles_of(item, resource_type)
    if flt.kind == "subset":
        return True
    system, _, rest = value.partition("|")
    wanted = (system, rest)
    if flt.kind == "identifier":
        return wanted in identifiers(item)
    if flt.kind == "owner":
        return any(discovery.same_party(wanted, pair) for pair in reference_identifiers(item.get("owner")))
    if flt.kind == "reference":
        return any(discovery.same_party(wanted, pair) for pair in reference_identifiers(item.get(flt.element)))
    if flt.kind == "coded":
        return wanted in codings(item.get(flt.element))
    if flt.kind == "attribute":
        return wanted in typed_attributes(item)
    raise AssertionError(f"unknown filter kind {flt.kind}")


FORM = "ERIS-FILTER-004"
ATTRIBUTE = "ERIS-BASE-003"
FORM_CLAUSES = {
    "attribute": "code|value",
    **{kind: "system|value" for kind in ("identifier", "owner", "reference", "coded")},
}
"""The clause of ERIS-FILTER-004 ("Filter parameters have the form system|value; for attribute the form is
code|value") a filter of each kind sends."""


def unmatched(discovery: Discovery, flt: Filter, found: list[Item], value: str, resource_type: str) -> list[Any]:
    """The ids of the items of `found` that do not satisfy `flt` = `value`. An item that breaks the contract
    elsewhere (a code outside its value set) is that requirement's defect, reported by the envelope test: it does
    not count against the filter."""
    return [
        i.get("id")
        for i in found
        if not matches(discovery, flt, i, value, resource_type)
        and discovery.validator.is_valid(i, resource_type=resource_type)
    ]


def check_filter_for(
    discovery: Discovery,
    read: ListRead,
    flt: Filter,
    findings: Findings,
    breaks: str,
    refused: str | None = None,
    *,
    listing: Iterable[str] = (),
) -> None:
    """`check_filter`, its failure recorded against `breaks` (the requirement that lists the parameter for
    the read) rather than every requirement the test cites; a value taken from an item but refused with a
    4xx against `refused` when given (a coded filter's declared vocabularies). Each value sent and held
    exercises the clause naming the parameter in `breaks` and `listing`, and the form it takes (FORM_CLAUSES)."""
    listing = (breaks, *listing)
    try:
        sent = check_filter(discovery, read, flt)
    except Blocked:
        raise  # the read broke another requirement on the way: not a failure of the filter
    except pytest.skip.Exception as skipped:
        reason, exercise = what_would_exercise(str(skipped.msg))
        leave_parameter(listing, flt.parameter, reason, exercise=exercise)
        raise
    except AssertionError as failure:
        message = str(failure).split("\nassert ")[0]
        turned_down = re.search(r"answered 4\d\d\b(?! items)", message) is not None
        findings.add(refused if refused and turned_down else breaks, message)
    else:
        for value, request in sent[:1]:
            record_parameter(listing, flt.parameter, value=value, request=request)
            if flt.kind in FORM_CLAUSES:
                exercised(FORM, FORM_CLAUSES[flt.kind], value=value, request=request)
            if flt.kind == "attribute":
                exercised(ATTRIBUTE, "filtered as code|value", value=value, request=request)
    findings.check()


def check_filter(discovery: Discovery, read: ListRead, flt: Filter) -> list[tuple[str, str]]:
    """Values taken from the target's items: each finds the item it came from, and every item the
    filtered read answers matches the filter (and the required parameters sent with it). The items are
    not validated here: their shape is the envelope test's. Each value sent, with its request."""
    items = discovery.items(read.path)
    chosen = discriminating(
        items,
        lambda item: values_of(discovery, flt, item, read.resource_type),
        lambda item, value: matches(discovery, flt, item, value, read.resource_type),
    )
    skip_without(chosen, f"item with a value for {flt.parameter}", read.path)

    def check(item: Item, value: str) -> tuple[str, str]:
        required = discovery.required_for(read, item)
        params = {**required, flt.parameter: value}
        found = discovery.api.read_all(read.path, params)
        shown = f"GET {read.path}?{'&'.join(f'{k}={v}' for k, v in params.items())}"
        if flt.kind != "subset":
            assert item.get("id") in ids(found), f"{shown} did not find {item.get('id')}, which carries that value"
        wrong = unmatched(discovery, flt, found, value, read.resource_type)
        assert not wrong, f"{shown} answered items that do not match the filter: {wrong}"
        for name, required_value in required.items():
            loose = Filter(name, "coded", name)
            wrong = [i.get("id") for i in found if not matches(discovery, loose, i, required_value, read.resource_type)]
            assert not wrong, f"{shown} answered items that do not match {name}: {wrong}"
        if flt.kind == "subset":
            extra = _not_listed(discovery, read, required, set(ids(found)))
            assert not extra, f"{shown} answered items that the read without {flt.parameter} does not: {extra}"
        if flt.kind == "profile":
            claiming = [i.get("id") for i in items if value in discovery.claimed_profiles(i)]
            missing = set(claiming) - set(ids(found))
            assert not missing, (
                f"{shown} left out items that claim the profile in meta.profile: {sorted(missing, key=str)}"
            )
            outside = _not_listed(discovery, read, required, set(ids(found)))
            assert not outside, (
                f"{shown} found items that the read without profile does not: {sorted(outside, key=str)}"
            )
        return value, shown

    # each value on its own: the first failure in the order of the chosen values is the one reported
    sent = discovery.api.concurrently([partial(check, item, value) for item, value in chosen])
    if flt.kind == "owner":
        _check_an_owner_of_nothing(discovery, read, flt, items)
    match = partial(matches, discovery, flt, resource_type=read.resource_type)
    check_discrimination(discovery, read, flt, chosen, match)
    return sent


def _not_listed(discovery: Discovery, read: ListRead, params: dict[str, str], found: set[Any]) -> set[Any]:
    """Which of `found` the read with `params` alone does not list: against the list read when the module
    started, then, for what is missing there (other tests may have written since), read again."""
    missing = found - set(ids(discovery.everything(read.path, params)))
    if missing:
        missing -= set(ids(discovery.api.read_all(read.path, params)))
    return missing


def _check_an_owner_of_nothing(discovery: Discovery, read: ListRead, flt: Filter, items: list[Item]) -> None:
    """Owner filtered by a Party that owns none of the items: nothing but matching items may come back.
    Where one organization owns everything, this is what shows an owner filter that is ignored."""
    owners = {pair for item in items for pair in reference_identifiers(item.get("owner"))}
    for party in discovery.parties:
        keys = reference_key_identifiers(discovery, party)
        if keys and not any(discovery.same_party(key, owner) for key in keys for owner in owners):
            value = token(*keys[0])
            found = discovery.api.read_all(read.path, {flt.parameter: value})
            wrong = [i.get("id") for i in found if not matches(discovery, flt, i, value, read.resource_type)]
            assert not wrong, (
                f"GET {read.path}?{flt.parameter}={value} (a Party that owns none of the items) answered "
                f"items it does not own: {wrong}"
            )
            return
