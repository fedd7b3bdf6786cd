"""Filters shown to discriminate, where the contract fixes what they match. A value taken from an item finds the item
(conformance.suite.support.filters); here the same filter is asked what it must not find:

- the item's value in **another namespace the target publishes** (an identifier system of its items or its parties,
  a system its naming systems name, another vocabulary of the coded element, another attribute code): "Filter
  parameters have the form `system|value`; for `attribute` the form is `code|value`", so the system is part of
  what is matched. An implementation that compares the value only finds the item again; one that answers a 4xx
  finds nothing, which is all this asks.
- **a value no item carries**, in a system the items use: the answer holds no item.

Either way every item answered must match the value sent (an item that carries the pair itself is right to come
back). Filters whose meaning the contract does not show (`subset`, the date filters) are not asked this."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Protocol

from conformance.discovery.served_values import codings as all_codings
from conformance.discovery.served_values import installation_arcs, strings
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import (
    NO_SUCH_VALUE,
    Item,
    ListRead,
    codings,
    identifiers,
    reference_identifiers,
    token,
)
from conformance.suite.support.typed_values import typed_attributes


class Filter(Protocol):
    """What is asked of a filter of the table (conformance.suite.support.filters.Filter, which calls this module)."""

    @property
    def parameter(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def element(self) -> str: ...
    @property
    def internal_namespaces_only(self) -> bool: ...


FIXED_MATCH = ("identifier", "owner", "reference", "coded", "attribute", "profile")
"""The kinds of filter whose match the contract fixes (x-eris-filter of openapi.json)."""
Match = Callable[[Item, str], bool]
"""Whether an item matches a value of the filter (conformance.suite.support.filters.matches)."""


def check_discrimination(
    discovery: Discovery, read: ListRead, flt: Filter, chosen: list[tuple[Item, str]], match: Match
) -> None:
    """For each (item, value) the filter was shown to find: the value in another namespace the target publishes,
    and once a value no item carries; every item the read answers must match what was sent."""
    if flt.kind not in FIXED_MATCH or not chosen:
        return
    items = discovery.items(read.path)
    probes = [probe for item, value in chosen if (probe := _elsewhere(discovery, read, flt, items, item, value, match))]
    item, value = chosen[0]
    if (made_up := _made_up(flt, value)) is not None and not any(match(other, made_up) for other in items):
        probes.append((item, made_up, "a value no item carries"))
    checks = [partial(_assert_only_matching, discovery, read, flt, *probe, match) for probe in probes]
    discovery.api.concurrently(checks)


def _assert_only_matching(
    discovery: Discovery, read: ListRead, flt: Filter, item: Item, value: str, why: str, match: Match
) -> None:
    params = {**discovery.required_for(read, item), flt.parameter: value}
    shown = f"GET {read.path}?{'&'.join(f'{k}={v}' for k, v in params.items())} ({why})"
    response = discovery.api.get(read.path, {**params, "count": 1})
    if 400 <= response.status_code < 500:
        return  # refused: nothing found, and whether the value may be asked for at all is not this check's
    found = discovery.api.read_all(read.path, params)
    # an item that breaks the contract elsewhere is the envelope test's to report, as in the filter check
    wrong = [
        i.get("id")
        for i in found
        if not match(i, value)
        and not _coded_elsewhere(flt, i, value)
        and discovery.validator.is_valid(i, resource_type=read.resource_type)
    ]
    assert not wrong, f"{shown} answered items that do not match it: {sorted(map(str, wrong))[:5]}"


def _coded_elsewhere(flt: Filter, item: Item, value: str) -> bool:
    """Whether a coded filter's system|code is carried anywhere in `item`: which element a code of another
    vocabulary declared for the filter looks at is not shown ("Filter type is resolved against four vocabularies":
    warehouse/document-status is a status), so an item carrying it in any element may come back."""
    system, _, code = value.partition("|")
    return flt.kind == "coded" and (system, code) in set(all_codings(item))


def _elsewhere(
    discovery: Discovery, read: ListRead, flt: Filter, items: list[Item], item: Item, value: str, match: Match
) -> tuple[Item, str, str] | None:
    """(item, the value in another namespace, why) for the first namespace published where `item` does not match
    the value; None where the target publishes no other namespace for it."""
    if flt.kind == "profile":
        return None  # a profile URL is a value of its own, in no namespace
    system, _, bare = value.partition("|")
    for other in _other_namespaces(discovery, read, flt, items, system):
        moved = token(other, bare)
        if not match(item, moved):
            why = f"{item.get('id')}'s {bare!r} of {system}, asked for in {other}, another namespace the target serves"
            return item, moved, why
    return None


def _other_namespaces(discovery: Discovery, read: ListRead, flt: Filter, items: list[Item], system: str) -> list[str]:
    """The namespaces the target publishes for what `flt` looks at, other than `system`: those of the read's own
    items first (the same kind of thing), installation namespaces before others when `system` is one."""
    if flt.kind == "coded":
        rules = discovery.contract.resources.get(read.resource_type)
        declared = rules.filter_vocabularies.get(flt.parameter) if rules else None
        served = [pair[0] for item in items for pair in codings(item.get(flt.element))]
        candidates = list(declared) if declared else served
    elif flt.kind == "attribute":
        candidates = [code for item in items for code, _ in typed_attributes(item)]
    else:
        candidates = [*_systems_of(items), *_systems_of(discovery.parties), *_published(discovery)]
        if flt.internal_namespaces_only:
            candidates = [c for c in candidates if installation_arcs(c) is not None]
    own_kind = installation_arcs(system) is not None
    unique = [c for c in dict.fromkeys(candidates) if c and c != system and "|" not in c]
    # stable: the read's own systems keep their order within each group
    return sorted(unique, key=lambda c: (installation_arcs(c) is not None) != own_kind)


def _systems_of(items: list[Item]) -> Iterator[str]:
    for item in items:
        yield from (system for system, _ in identifiers(item))
        for name in ("owner", "party", "partyFrom", "partyTo", "participant", "assignedTo", "scope", "granted"):
            yield from (system for system, _ in reference_identifiers(item.get(name)))


def _published(discovery: Discovery) -> Iterator[str]:
    """Systems the naming systems name: the shape of a NamingSystem beyond its names is not shown, so every string
    of one that reads as a system (urn:, http:, https:) is taken."""
    for naming_system in discovery.items("/v1/naming-systems"):
        yield from (s for s in strings(naming_system) if s.startswith(("urn:", "http://", "https://")))


def _made_up(flt: Filter, value: str) -> str | None:
    """`value` with its own part replaced by one no item carries, in the same system; for a profile, a profile of
    that name nobody defines."""
    if flt.kind == "profile":
        base, _, _ = value.rpartition("/")
        return f"{base}/ErisConformanceNoSuchProfile" if base else None
    system, bar, _ = value.partition("|")
    return f"{system}{bar}{NO_SUCH_VALUE}" if bar else None
