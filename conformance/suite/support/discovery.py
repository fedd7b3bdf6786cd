"""Discovering the target's data through its reads: the values a test filters by, taken from items it served."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property, partial
from typing import Any

import httpx

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import Api, not_exercised
from conformance.suite.support.reads import (
    Item,
    ListRead,
    Pair,
    as_list,
    codings,
    identifiers,
    list_read,
    reference_identifiers,
    token,
)
from profiles import Contract
from profiles.validator import Validator

# -- discovery ------------------------------------------------------------------------------------

# Values of the required parameters, from what the target publishes first: the codes of its value sets whose
# url names what the parameter selects (GET /v1/value-sets), each as system|code, then as a bare code. The
# contract names none of these codes, so an implementation may well use codes and a system of its own naming.
REQUIRED_VALUE_SETS: dict[str, tuple[str, ...]] = {
    "/v1/party-roles": ("role",),
    "/v1/party-relationships": ("relationship",),
    "/v1/fixed-asset-allocations": ("allocation", "dimension"),
}
"""Words of which one, in the url of a value set the target lists, says that its codes may be values of the
read's required parameter."""
PUBLISHED_CANDIDATES_LIMIT = 60
"""Codes of value sets tried at most, per read: a large set is not read out code by code."""

# As a last resort, the examples the contract gives ("a Party in a role (customer, supplier, payer,
# employee...)", "relation between two PartyRole (employer-employee, superior-subordinate)", "assignment ...
# to a dimension (location, cost center, responsible person)"), each as a bare code, in the systems of the
# value sets above that publish no codes, and in the conventional vocabulary {vocab_url}/<name>. A candidate
# that does not answer 200 with items is simply not used.
REQUIRED_VALUE_CANDIDATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "/v1/party-roles": (("party-role",), ("employee", "supplier", "customer", "payer", "employer")),
    "/v1/party-relationships": (("party-relationship-type",), ("employer-employee", "superior-subordinate")),
    "/v1/fixed-asset-allocations": (
        ("assets/allocation-category", "fixed-asset-allocation-dimension"),
        ("location", "cost-center", "responsible-person"),
    ),
}
VALUE_SETS = "/v1/value-sets"
PAGE, READ_LIMIT = 100, 2000


class Discovery:
    """The target's data, read once and kept: one per test module (a module-scoped fixture), so that
    each module sees the data as it is when the module starts."""

    def __init__(self, api: Api, contract: Contract, validator: Validator) -> None:
        self.api = api
        self.contract = contract
        self.validator = validator
        self._everything: dict[tuple[str, tuple[tuple[str, str], ...]], list[Item]] = {}
        self._required: dict[str, list[dict[str, str]]] = {}
        self._searched: dict[str, str] = {}
        self._listed: list[Item] | None = None
        self._included: dict[str, list[dict[str, Any]]] = {}
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

    def everything_of(self, path: str, each: list[dict[str, str]]) -> list[list[Item]]:
        """`everything` of `path` with each of these parameters, the reads sent at once (Api.concurrently)."""
        return self.api.concurrently([partial(self.everything, path, params) for params in each])

    def required_values(self, read: ListRead) -> list[dict[str, str]]:
        """Values of the required parameter of `read` that find items, in the form system|value of the
        codings the items carry; the bare candidates only when the items carry none."""
        if not read.required:
            return [{}]
        if read.path not in self._required:
            self._required[read.path] = self._discover_required(read)
        return self._required[read.path]

    def _discover_required(self, read: ListRead) -> list[dict[str, str]]:
        """The values that find items, from the first source that gives any: the codes of the target's value
        sets, then the contract's examples; each code in its forms (system|code, bare), up to the first that finds
        items. Then the codings the items found carry, as the values to use."""
        (parameter,) = read.required  # every list read of the contract has at most one
        sets = self._sets_naming(read.path)

        def first_form_finding(forms: tuple[str, ...]) -> tuple[str | None, int]:
            """The first form of one code that finds items, and how many forms were tried."""
            for tried, value in enumerate(forms, 1):
                if _has_items(self.api.get(read.path, {parameter: value, "count": 1})):
                    return value, tried
            return None, len(forms)

        tried = 0
        found: list[dict[str, str]] = []
        for codes in (self._published_codes(sets)[:PUBLISHED_CANDIDATES_LIMIT], self._example_codes(read.path, sets)):
            # the codes on their own, each code's forms one after another
            for value, forms_tried in self.api.concurrently([partial(first_form_finding, forms) for forms in codes]):
                tried += forms_tried
                if value is not None:
                    found.append({parameter: value})
            if found:
                break
        _, examples = REQUIRED_VALUE_CANDIDATES.get(read.path, ((), ()))
        self._searched[read.path] = (
            f"values of {parameter} taken from the codes of the value sets of GET {VALUE_SETS} whose url names "
            f"{' or '.join(REQUIRED_VALUE_SETS.get(read.path, ()))} ({', '.join(sets) or 'none listed'}), then from "
            f"the contract's examples ({', '.join(examples) or 'none'}): {tried} tried"
        )
        carried = {
            pair
            for items in self.everything_of(read.path, found)
            for item in items
            for pair in codings(item.get(parameter))
        }
        coded = [{parameter: token(*pair)} for pair in sorted(carried)]
        return coded or found

    def searched(self, read: ListRead) -> str:
        """Where the values of `read`'s required parameter were looked for, for a skip's reason."""
        self.required_values(read)
        return self._searched.get(read.path, "")

    def _sets_naming(self, path: str) -> list[str]:
        """The urls of the value sets the target lists whose url names what `path`'s required parameter selects."""
        words = REQUIRED_VALUE_SETS.get(path, ())
        urls = [item.get("url") for item in self._listing()]
        return [url for url in urls if isinstance(url, str) and any(word in url.lower() for word in words)]

    def _listing(self) -> list[Item]:
        """GET /v1/value-sets without url, as far as it answers envelopes (its own test judges it), read once."""
        if self._listed is None:
            self._listed = []
            while len(self._listed) < READ_LIMIT:
                page = _items_of(self.api.get(VALUE_SETS, {"count": PAGE, "offset": len(self._listed)}))
                self._listed += page
                if len(page) < PAGE:
                    break
        return self._listed

    def _includes(self, url: str) -> list[dict[str, Any]]:
        """compose.include[] with a system, of the sets GET /v1/value-sets?url= answers, read once."""
        if url not in self._included:
            self._included[url] = [
                include
                for value_set in _items_of(self.api.get(VALUE_SETS, {"url": url}))
                if isinstance(value_set.get("compose"), dict)
                for include in as_list(value_set["compose"].get("include"))
                if isinstance(include, dict) and isinstance(include.get("system"), str)
            ]
        return self._included[url]

    def _published_codes(self, urls: list[str]) -> list[tuple[str, ...]]:
        """Each concept of the value sets `urls`, as system|code and as the bare code."""
        pairs = [
            (include["system"], concept["code"])
            for url in urls
            for include in self._includes(url)
            for concept in as_list(include.get("concept"))
            if isinstance(concept, dict) and isinstance(concept.get("code"), str)
        ]
        return [(token(system, code), code) for system, code in dict.fromkeys(pairs)]

    def _example_codes(self, path: str, sets: list[str]) -> list[tuple[str, ...]]:
        """Each of the contract's example codes: bare, in the systems the value sets `sets` include without naming
        codes, and in the conventional vocabularies."""
        vocabularies, examples = REQUIRED_VALUE_CANDIDATES.get(path, ((), ()))
        systems = [i["system"] for url in sets for i in self._includes(url) if not i.get("concept")]
        systems = list(dict.fromkeys([*systems, *(f"{self.vocab_url}/{v}" for v in vocabularies)]))
        return [(code, *(token(system, code) for system in systems)) for code in examples]

    def largest_required(self, read: ListRead) -> dict[str, str] | None:
        """The required parameters of `read` with the discovered value that finds the most items."""
        candidates = self.required_values(read)
        if not candidates:
            return None
        sizes = [len(items) for items in self.everything_of(read.path, candidates)]
        return candidates[sizes.index(max(sizes))]

    def items(self, path: str) -> list[Item]:
        """Every item of a list read; for a read with a required parameter, the union over the values
        discovered for it."""
        read = list_read(path)
        merged: dict[Any, Item] = {}
        for items in self.everything_of(path, self.required_values(read)):
            for item in items:
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
        return [url for url in as_list(claimed) if isinstance(url, str)]


def _has_items(response: httpx.Response) -> bool:
    return bool(_items_of(response))


def _items_of(response: httpx.Response) -> list[Item]:
    """The items of a 200 envelope that are objects; none from any other answer."""
    if response.status_code != 200:
        return []
    try:
        body = response.json()
    except ValueError:
        return []
    items = body.get("items") if isinstance(body, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


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


def skip_without(values: list[Any], what: str, path: str) -> None:
    """Not exercised when `values` is empty: the target served no `what` at GET `path`."""
    if not values:
        not_exercised(
            f"the target served no {what} at GET {path}",
            exercise=data_served(path, f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"),
        )
