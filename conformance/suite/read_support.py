"""What the read-side conformance tests share: the list reads of the contract (from schemas/openapi.json),
reading a whole collection page by page, discovering the target's data through reads, and the small
predicates that say whether an item matches a filter.

Nothing here assumes the reference implementation's data: every value a test filters by is taken from
an item the target served, and a check the target gives no data for is skipped, not passed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import httpx
import pytest

from schemas import SCHEMA_DIR

UNDECLARED_VOCABULARY = "https://eris-conformance.invalid/undeclared-vocabulary"
"""A vocabulary no implementation declares (the .invalid top-level domain is reserved, RFC 2606)."""
NO_SUCH_VALUE = "eris-conformance-no-such-value"

Item = dict[str, Any]
Pair = tuple[str, str]


# -- the list reads of the contract ---------------------------------------------------------------


@dataclass(frozen=True)
class ListRead:
    """One GET operation of openapi.json that is paged with count and offset."""

    path: str
    resource_type: str
    """What each item is validated as: the envelope's item type (ValueSetSummary for the value-set listing)."""
    parameters: tuple[tuple[str, bool], ...]
    """Query parameters other than count and offset: (name, required)."""

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(name for name, required in self.parameters if required)

    @property
    def filters(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.parameters)

    def __str__(self) -> str:
        return self.path


@cache
def openapi() -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / "openapi.json").read_text(encoding="utf-8"))


def _parameter(document: dict[str, Any], parameter: dict[str, Any]) -> dict[str, Any]:
    reference = parameter.get("$ref")
    if reference is None:
        return parameter
    return document["components"]["parameters"][reference.rsplit("/", 1)[-1]]


@cache
def list_reads() -> tuple[ListRead, ...]:
    """Every list read of the contract, in the order of openapi.json."""
    document = openapi()
    found = []
    for path, operations in document["paths"].items():
        operation = operations.get("get")
        if operation is None:
            continue
        parameters = [_parameter(document, p) for p in operation.get("parameters", []) if "in" in p or "$ref" in p]
        names = [(p["name"], bool(p.get("required", False))) for p in parameters if p.get("in") == "query"]
        if "count" not in dict(names):
            continue
        schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        envelope = schema["anyOf"][0] if "anyOf" in schema else schema  # value sets: the listing comes first
        resource_type = envelope["$ref"].rsplit("/", 1)[-1].removesuffix("Envelope")
        found.append(ListRead(path, resource_type, tuple((n, r) for n, r in names if n not in ("count", "offset"))))
    return tuple(found)


def list_read(path: str) -> ListRead:
    return next(read for read in list_reads() if read.path == path)


def operation_paths() -> list[str]:
    return list(openapi()["paths"])


# -- reading --------------------------------------------------------------------------------------


def ids(items: Iterable[Item]) -> list[Any]:
    return [item.get("id", item.get("url")) for item in items]


def assert_not_success(response: httpx.Response, what: str) -> None:
    assert not 200 <= response.status_code < 300, (
        f"{response.request.method} {response.request.url} answered {response.status_code}: {what}"
    )


# -- element access -------------------------------------------------------------------------------


def token(system: str, value: str) -> str:
    return f"{system}|{value}"


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def codings(element: Any) -> list[Pair]:
    """(system, code) of every coding of a CodeableConcept or a list of them."""
    found = []
    for concept in _as_list(element):
        for coding in _as_list(concept.get("coding") if isinstance(concept, dict) else None):
            if (
                isinstance(coding, dict)
                and isinstance(coding.get("system"), str)
                and isinstance(coding.get("code"), str)
            ):
                found.append((coding["system"], coding["code"]))
    return found


def identifiers(item: Item) -> list[Pair]:
    return [
        (i["system"], i["value"])
        for i in _as_list(item.get("identifier"))
        if isinstance(i, dict) and isinstance(i.get("system"), str) and isinstance(i.get("value"), str)
    ]


def reference_identifiers(element: Any) -> list[Pair]:
    """(system, value) of the identifier of a Reference or of each Reference of a list."""
    found = []
    for reference in _as_list(element):
        identifier = reference.get("identifier") if isinstance(reference, dict) else None
        if (
            isinstance(identifier, dict)
            and isinstance(identifier.get("system"), str)
            and isinstance(identifier.get("value"), str)
        ):
            found.append((identifier["system"], identifier["value"]))
    return found


def string_attributes(item: Item) -> list[Pair]:
    """(code, value) of the attributes whose value is a string: `code|value` says nothing of other values."""
    return [
        (a["code"], a["value"])
        for a in _as_list(item.get("attribute"))
        if isinstance(a, dict)
        and isinstance(a.get("code"), str)
        and isinstance(a.get("value"), str)
        and "|" not in a["code"]
    ]


# -- error bodies ---------------------------------------------------------------------------------


def _texts(node: Any, *, top: bool = True) -> Iterator[str]:
    """The strings of a JSON body: values anywhere, keys below the top level. Top-level keys are left out
    because Problem Details has members named `type` and `status`, which would name those parameters
    for every body."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value, top=False)
    elif isinstance(node, dict):
        for key, value in node.items():
            if not top:
                yield key
            yield from _texts(value, top=False)


def names_parameter(response: httpx.Response, parameter: str, echoed: Iterable[str] = ()) -> bool:
    """Whether an error body names `parameter`, whatever its shape. The filter value the request sent
    (`echoed`) is removed first, so that a body that only repeats the value does not count; the name
    must stand as a word of its own (`type` in `document-type` does not count)."""
    try:
        texts = list(_texts(response.json()))
    except ValueError:
        texts = [response.text]
    word = re.compile(rf"(?<![\w/.\-]){re.escape(parameter)}(?![\w/\-])")
    removed = sorted({e for e in echoed if e}, key=len, reverse=True)
    for text in texts:
        for value in removed:
            text = text.replace(value, " ")
        if word.search(text):
            return True
    return False


# -- discovery ------------------------------------------------------------------------------------

# Values of the required parameters to try when nothing else tells the suite which exist: the examples
# the contract gives ("a Party in a role (customer, supplier, payer, employee...)", "relation between
# two PartyRole (employer-employee, superior-subordinate)", "assignment ... to a dimension (location,
# cost center, responsible person)"), each as a bare code and in the conventional vocabulary
# {vocab_url}/<name>. The vocabularies of these codes are not shown, so a candidate that does not
# answer 200 is simply not used.
REQUIRED_VALUE_CANDIDATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "/v1/party-roles": (("party-role",), ("employee", "supplier", "customer", "payer", "employer")),
    "/v1/party-relationships": (("party-relationship-type",), ("employer-employee", "superior-subordinate")),
    "/v1/fixed-asset-allocations": (
        ("assets/allocation-category", "fixed-asset-allocation-dimension"),
        ("location", "cost-center", "responsible-person"),
    ),
}


class Discovery:
    """The target's data, read once and kept: one per test module (a module-scoped fixture), so that
    each module sees the data as it is when the module starts."""

    def __init__(self, api: Any, contract: Any, validator: Any) -> None:
        self.api = api
        self.contract = contract
        self.validator = validator
        self._everything: dict[tuple[str, tuple[tuple[str, str], ...]], list[Item]] = {}
        self._required: dict[str, list[dict[str, str]]] = {}
        self._value_sets: dict[str, list[Item]] = {}

    @property
    def vocab_url(self) -> str:
        return self.contract.installation.values["vocab_url"]

    def everything(self, path: str, params: dict[str, str] | None = None) -> list[Item]:
        """Every item of a read with these parameters, read once. Not validated: what the suite learns the
        target's data from is judged by the tests that cite the shape (the envelope test of each read, the
        resource tests), so that an item of a wrong shape fails their rows and not those of every test that
        happens to look at the data."""
        key = (path, tuple(sorted((params or {}).items())))
        if key not in self._everything:
            self._everything[key] = self.api.read_all(path, params)
        return self._everything[key]

    def required_values(self, read: ListRead) -> list[dict[str, str]]:
        """Values of the required parameter of `read` that find items, in the form system|value of the
        codings the items carry; the bare candidates only when the items carry none."""
        if not read.required:
            return [{}]
        if read.path not in self._required:
            self._required[read.path] = self._discover_required(read)
        return self._required[read.path]

    def _discover_required(self, read: ListRead) -> list[dict[str, str]]:
        (parameter,) = read.required  # every list read of the contract has at most one
        vocabularies, codes = REQUIRED_VALUE_CANDIDATES.get(read.path, ((), ()))
        found: list[dict[str, str]] = []
        for code in codes:
            for value in (code, *(token(f"{self.vocab_url}/{v}", code) for v in vocabularies)):
                response = self.api.get(read.path, {parameter: value, "count": 1})
                if response.status_code == 200 and _has_items(response):
                    found.append({parameter: value})
                    break
        carried = {
            pair
            for params in found
            for item in self.everything(read.path, params)
            for pair in codings(item.get(parameter))
        }
        coded = [{parameter: token(*pair)} for pair in sorted(carried)]
        return coded or found

    def largest_required(self, read: ListRead) -> dict[str, str] | None:
        """The required parameters of `read` with the discovered value that finds the most items."""
        candidates = self.required_values(read)
        if not candidates:
            return None
        return max(candidates, key=lambda params: len(self.everything(read.path, params)))

    def items(self, path: str) -> list[Item]:
        """Every item of a list read; for a read with a required parameter, the union over the values
        discovered for it."""
        read = list_read(path)
        merged: dict[Any, Item] = {}
        for params in self.required_values(read):
            for item in self.everything(path, params):
                merged.setdefault(item.get("id", item.get("url")), item)
        return list(merged.values())

    def value_set(self, url: str) -> list[Item]:
        """GET /v1/value-sets?url=..., valid ValueSet items, read once."""
        if url not in self._value_sets:
            self._value_sets[url] = self.api.read("/v1/value-sets", {"url": url}, resource_type="ValueSet")
        return self._value_sets[url]

    def required_for(self, read: ListRead, item: Item) -> dict[str, str]:
        """The required parameters of `read` with the values `item` carries (its own coding)."""
        params = {}
        for parameter in read.required:
            pairs = codings(item.get(parameter))
            if pairs:
                params[parameter] = token(*pairs[0])
        return params

    @cached_property
    def parties(self) -> list[Item]:
        return self.items("/v1/parties")

    @cached_property
    def _party_of(self) -> dict[Pair, Any]:
        """Which Party an identifier names: every identifier of every Party, and of every PartyRole (a
        role named by its own identifier stands for the Party it plays). Ambiguous identifiers are left
        out: they name no Party for sure."""
        owners: dict[Pair, set[Any]] = {}
        for party in self.parties:
            for pair in identifiers(party):
                owners.setdefault(pair, set()).add(party.get("id"))
        named = {pair: next(iter(found)) for pair, found in owners.items() if len(found) == 1}
        for role in self.items("/v1/party-roles"):
            played = {named.get(pair) for pair in reference_identifiers(role.get("party"))} - {None}
            for pair in identifiers(role):
                if len(played) == 1 and pair not in owners:
                    named.setdefault(pair, next(iter(played)))
        return named

    def same_party(self, a: Pair, b: Pair) -> bool:
        """Whether two identifiers name the same resource: equal, or both identifiers of one Party
        (the contract lets a Party be referenced by any of its identifiers)."""
        if a == b:
            return True
        party = self._party_of.get(a)
        return party is not None and party == self._party_of.get(b)

    def party(self, pair: Pair) -> Item | None:
        party_id = self._party_of.get(pair)
        return next((p for p in self.parties if p.get("id") == party_id), None) if party_id else None

    def profiles_of(self, item: Item, resource_type: str) -> list[str]:
        return [p.url for p in self.validator.recognised_profiles(item, resource_type)]

    def claimed_profiles(self, item: Item) -> list[str]:
        meta = item.get("meta")
        claimed = meta.get("profile") if isinstance(meta, dict) else None
        return [url for url in _as_list(claimed) if isinstance(url, str)]


def _has_items(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("items"), list) and bool(body["items"])


# -- choosing values to filter by -----------------------------------------------------------------


def discriminating(
    items: list[Item], values_of: Callable[[Item], list[Any]], matches: Callable[[Item, Any], bool], limit: int = 3
) -> list[tuple[Item, Any]]:
    """Up to `limit` (item, value) pairs to filter by, distinct values, those that match the fewest items
    first: a filter that is ignored then shows, because other items do not match."""
    seen: dict[Any, tuple[int, int, Item]] = {}
    for position, item in enumerate(items):
        for value in values_of(item):
            if value not in seen:
                seen[value] = (sum(1 for other in items if matches(other, value)), position, item)
    ranked = sorted(seen.items(), key=lambda entry: entry[1][:2])
    return [(item, value) for value, (_, _, item) in ranked[:limit]]


def skip_without(values: list[Any], what: str) -> None:
    if not values:
        pytest.skip(f"the target served no {what}: nothing to check")


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


def _usage(_: Discovery, item: Item) -> list[str]:
    return [u for u in _as_list(item.get("usage")) if isinstance(u, str) and u]


def _basis(_: Discovery, item: Item) -> list[str]:
    return [token(*pair) for pair in codings(item.get("basis"))]


FILTERS: dict[str, dict[str, Filter]] = {
    "/v1/parties": {
        "profile": Filter("profile", "profile"),
        "type": Filter("type", "coded", "type"),
        "identifier": Filter("identifier", "identifier"),
        "owner": Filter("owner", "owner"),
        "attribute": Filter("attribute", "attribute"),
        "status": Filter("status", "coded", "status"),
    },
    "/v1/party-roles": {
        "role": Filter("role", "coded", "role"),
        "party": Filter("party", "reference", "party"),
        # PartyRole has no profiles in the contract; which profile the filter means is not shown.
        "profile": Filter("profile", "subset", source=_played_profiles),
    },
    "/v1/party-relationships": {
        "type": Filter("type", "coded", "type"),
        "partyFrom": Filter("partyFrom", "reference", "partyFrom"),
        "partyTo": Filter("partyTo", "reference", "partyTo"),
        "attribute": Filter("attribute", "attribute"),
    },
    "/v1/locations": {
        "profile": Filter("profile", "profile"),
        "identifier": Filter("identifier", "identifier"),
        "owner": Filter("owner", "owner"),
        "attribute": Filter("attribute", "attribute"),
        "type": Filter("type", "coded", "type"),
        "category": Filter("category", "coded", "category"),
    },
    # "allowed values of usage and the shape of its items: not shown"
    "/v1/naming-systems": {"usage": Filter("usage", "subset", source=_usage)},
    "/v1/capabilities": {"identifier": Filter("identifier", "identifier")},
    "/v1/grant-assignments": {
        "assignedTo": Filter("assignedTo", "reference", "assignedTo"),
        "granted": Filter("granted", "reference", "granted"),
        # GrantAssignment has no element basedOn; that it looks at `basis` is not shown.
        "basedOn": Filter("basedOn", "subset", source=_basis),
        "scope": Filter("scope", "reference", "scope"),
        "attribute": Filter("attribute", "attribute"),
    },
    "/v1/fixed-asset-allocations": {"category": Filter("category", "coded", "category")},
    "/v1/fixed-asset-documents": {
        "identifier": Filter("identifier", "identifier"),
        "owner": Filter("owner", "owner"),
        "attribute": Filter("attribute", "attribute"),
    },
    "/v1/document-references": {
        "profile": Filter("profile", "profile"),
        "identifier": Filter("identifier", "identifier"),
        "attribute": Filter("attribute", "attribute"),
        "type": Filter("type", "coded", "type"),
        "participant": Filter("participant", "reference", "participant", internal_namespaces_only=True),
    },
}

FORM_NOT_SHOWN = {
    ("/v1/parties", "lastModified"),
    ("/v1/locations", "contained"),
    ("/v1/document-references", "statusDate"),
    ("/v1/document-references", "issueDateFrom"),
    ("/v1/fixed-asset-documents", "format"),
}
"""Parameters whose value form the contract does not show: no value can be sent that must work."""

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


def _installation_prefix(discovery: Discovery) -> str:
    return f"urn:oid:1.2.616.1.113769.4.{discovery.contract.installation.number}."


def values_of(discovery: Discovery, flt: Filter, item: Item, resource_type: str) -> list[str]:
    """The values of `flt` that `item` carries: filtering by any of them must find it."""
    if flt.kind == "identifier":
        # a Party is read back by its reference keys; whether PESEL or a warehouse copy finds it is open
        pairs = reference_key_identifiers(discovery, item) if resource_type == "Party" else identifiers(item)
        return [token(*pair) for pair in pairs]
    if flt.kind == "owner":
        return [token(*pair) for pair in reference_identifiers(item.get("owner"))]
    if flt.kind == "reference":
        pairs = reference_identifiers(item.get(flt.element))
        if flt.internal_namespaces_only:
            pairs = [p for p in pairs if p[0].startswith(_installation_prefix(discovery))]
        return [token(*pair) for pair in pairs]
    if flt.kind == "coded":
        return [token(*pair) for pair in codings(item.get(flt.element))]
    if flt.kind == "attribute":
        return [token(*pair) for pair in string_attributes(item)]
    if flt.kind == "profile":
        known = {p.url for p in discovery.contract.profiles_of(resource_type)}
        return [url for url in discovery.claimed_profiles(item) if url in known]
    if flt.kind == "subset":
        assert flt.source is not None
        return flt.source(discovery, item)
    raise AssertionError(f"unknown filter kind {flt.kind}")


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
        return wanted in string_attributes(item)
    raise AssertionError(f"unknown filter kind {flt.kind}")


def check_filter(discovery: Discovery, read: ListRead, flt: Filter) -> None:
    """Values taken from the target's items: each finds the item it came from, and every item the
    filtered read answers matches the filter (and the required parameters sent with it). The items are
    not validated here: their shape is the envelope test's."""
    items = discovery.items(read.path)
    chosen = discriminating(
        items,
        lambda item: values_of(discovery, flt, item, read.resource_type),
        lambda item, value: matches(discovery, flt, item, value, read.resource_type),
    )
    skip_without(chosen, f"item on {read.path} with a value for {flt.parameter}")
    for item, value in chosen:
        required = discovery.required_for(read, item)
        params = {**required, flt.parameter: value}
        found = discovery.api.read_all(read.path, params)
        shown = f"GET {read.path}?{'&'.join(f'{k}={v}' for k, v in params.items())}"
        if flt.kind != "subset":
            assert item.get("id") in ids(found), f"{shown} did not find {item.get('id')}, which carries that value"
        wrong = [i.get("id") for i in found if not matches(discovery, flt, i, value, read.resource_type)]
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
            assert not missing, f"{shown} left out items that claim the profile in meta.profile: {sorted(missing)}"
            outside = _not_listed(discovery, read, required, set(ids(found)))
            assert not outside, f"{shown} found items that the read without profile does not: {sorted(outside)}"
    if flt.kind == "owner":
        _check_an_owner_of_nothing(discovery, read, flt, items)


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
