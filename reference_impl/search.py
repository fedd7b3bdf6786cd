"""What each read can filter on, how a filter value is parsed, and the search tokens of a resource.

Which parameters an operation has, which are required, and what a filter of the contract looks at are contract data
(`schemas/openapi.json`, read through profiles.openapi_index); where the contract leaves that open, the table
below says what this implementation chose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from profiles import Contract
from profiles.coded import codes_of
from profiles.openapi_index import list_reads, operations
from profiles.paths import split_path, values_at
from profiles.validator import Validator
from reference_impl.store import Condition, Store

MAX_COUNT = 1000
MAX_OFFSET = 10**12

READ_PATHS: dict[str, str] = {read.path: read.item_type for read in list_reads() if read.path != "/v1/value-sets"}
"""The list reads served by one handler, and the type of their items (value sets have a handler of their own)."""

# kind, element path. Kinds of the contract's filters are those of `x-eris-filter` in openapi.json
# (profiles.openapi_index); where the contract does not show what a parameter looks at, or does not list a
# parameter at all, this implementation chooses: party-profile (the referenced Party's profile), participant (a
# PartyRole, or the Party it plays), modified (time of the last change), date-from (a date element on or after),
# usage (a string, or a Coding's code and system|code, or an object's string members), ignored.
OWN_CHOICES: dict[str, dict[str, tuple[str, str]]] = {
    "Party": {"lastModified": ("modified", "")},
    "PartyRole": {"profile": ("party-profile", "party")},
    "Location": {"contained": ("identifier", "contained.identifier")},
    "NamingSystem": {"usage": ("usage", "usage")},
    "GrantAssignment": {"basedOn": ("coded", "basis")},
    "FixedAsset": {"identifier": ("identifier", "identifier"), "owner": ("owner", "owner")},
    "AssetComponent": {"identifier": ("identifier", "identifier"), "owner": ("owner", "owner")},
    "CostCenter": {"identifier": ("identifier", "identifier"), "owner": ("owner", "owner")},
    "FixedAssetAllocation": {"identifier": ("identifier", "identifier")},
    "FixedAssetDocument": {"format": ("ignored", "")},
    "DocumentReference": {
        "participant": ("participant", "participant"),
        "statusDate": ("modified", ""),
        "issueDateFrom": ("date-from", "issueDate"),
    },
}


def _filters() -> dict[str, dict[str, tuple[str, str]]]:
    table: dict[str, dict[str, tuple[str, str]]] = {}
    for read in list_reads():
        resource_type = "ValueSet" if read.path == "/v1/value-sets" else read.item_type
        shown = {name: (f.kind, f.element) for name, f in read.filters.items() if f.shown}
        table[resource_type] = {**shown, **OWN_CHOICES.get(resource_type, {})}
    return table


FILTERS: dict[str, dict[str, tuple[str, str]]] = _filters()
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INDEXED_KINDS = {
    *("identifier", "owner", "attribute", "coded", "reference", "participant", "string", "date-from", "usage")
}


def page_number(raw: str | None, default: int, limit: int) -> int:
    """A paging value (count, offset) as every read takes it: `default` when absent; ValueError saying what is
    wrong when it is no whole number from 0 to `limit`."""
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit():
        raise ValueError(f"{raw[:40]!r} is not a whole number >= 0")
    if len(raw.lstrip("0")) > len(str(limit)):  # before int(): thousands of digits cost, then fail
        raise ValueError(f"a number of {len(raw)} digits is more than the maximum {limit}")
    value = int(raw)
    if value > limit:
        raise ValueError(f"{value} is more than the maximum {limit}")
    return value


class FilterError(ValueError):
    """A filter value that cannot be used; the message names the parameter."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"parameter {parameter!r}: {message}")
        self.parameter = parameter


@dataclass(frozen=True)
class Operation:
    """The query parameters of one operation, from openapi.json: name -> required."""

    method: str
    path: str
    parameters: Mapping[str, bool]

    @property
    def required(self) -> list[str]:
        return [name for name, required in self.parameters.items() if required]


def load_operations() -> dict[tuple[str, str], Operation]:
    return {
        (found.method, found.path): Operation(found.method, found.path, {n: p.required for n, p in found.query.items()})
        for found in operations()
    }


def search_tokens(resource: dict[str, Any], validator: Validator) -> Iterator[tuple[str, str, str]]:
    """The (param, system, value) rows a read can find `resource` by."""
    resource_type = resource["resourceType"]
    for param, (kind, path) in FILTERS.get(resource_type, {}).items():
        if kind not in _INDEXED_KINDS:
            continue
        for value, _ in values_at(resource, split_path(path)):
            yield from _tokens_of(param, kind, value)
    if resource_type in ("Party", "Location", "DocumentReference"):
        for profile in validator.recognised_profiles(resource, resource_type):
            yield "profile", "", profile.url
    if "identifier" not in FILTERS.get(resource_type, {}):  # references name resources by identifier
        for value, _ in values_at(resource, ("identifier",)):
            yield from _tokens_of("identifier", "identifier", value)


def _tokens_of(param: str, kind: str, value: Any) -> Iterator[tuple[str, str, str]]:
    if kind in ("identifier",) and isinstance(value, dict) and isinstance(value.get("value"), str):
        yield param, str(value.get("system", "")), value["value"]
    elif kind == "coded" and isinstance(value, dict):
        for coding in value.get("coding", []) if isinstance(value.get("coding"), list) else []:
            if isinstance(coding, dict) and isinstance(coding.get("code"), str):
                yield param, str(coding.get("system", "")), coding["code"]
    elif kind in ("reference", "owner", "participant") and isinstance(value, dict):
        identifier = value.get("identifier")
        if isinstance(identifier, dict) and isinstance(identifier.get("value"), str):
            yield param, str(identifier.get("system", "")), identifier["value"]
    elif kind == "attribute" and isinstance(value, dict):
        raw = value.get("value")
        text = raw if isinstance(raw, str) else json.dumps(raw)
        for code in codes_of(value.get("code")):  # a bare code, a Coding or a CodeableConcept: all are fair
            yield param, code, text
    elif kind in ("string", "date-from", "usage") and isinstance(value, str):
        yield param, "", value
    elif kind == "usage" and isinstance(value, dict):
        if isinstance(value.get("code"), str):
            yield param, str(value.get("system", "")), value["code"]
        for name, member in value.items():
            if isinstance(member, str) and name not in ("system", "code"):
                yield param, "", member


def _split(parameter: str, raw: str, *, pipe_required: bool = False) -> tuple[str | None, str]:
    if "|" not in raw:
        if pipe_required:
            raise FilterError(parameter, f"{raw!r} must have the form code|value")
        return None, raw
    system, value = raw.split("|", 1)
    return system, value


def _instant(parameter: str, raw: str) -> tuple[str, str]:
    comparator, text = ">=", raw
    for prefix, sql in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"), ("eq", "=")):
        if raw.startswith(prefix):
            comparator, text = sql, raw[len(prefix) :]
            break
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return comparator, format_instant(moment)
    except (ValueError, OverflowError):
        raise FilterError(
            parameter, f"{raw!r} is not an ISO 8601 date-time (optionally prefixed ge, gt, le, lt)"
        ) from None


def format_instant(moment: datetime) -> str:
    """The stored form of a time of change: UTC, fixed width, so that text order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class QueryBuilder:
    """Turns the query parameters of a read into store conditions, or a FilterError naming the parameter."""

    def __init__(self, contract: Contract, store: Store) -> None:
        self.contract = contract
        self.store = store

    def conditions(self, resource_type: str, query: Mapping[str, list[str]]) -> list[Condition]:
        filters = FILTERS.get(resource_type, {})
        found = []
        for parameter, values in query.items():
            if parameter not in filters:
                continue
            kind, _ = filters[parameter]
            for raw in values:
                condition = self._condition(resource_type, parameter, kind, raw)
                if condition is not None:
                    found.append(condition)
        return found

    def _condition(self, resource_type: str, parameter: str, kind: str, raw: str) -> Condition | None:
        if kind == "ignored":
            return None
        if kind in ("identifier", "reference", "string", "usage"):
            system, value = _split(parameter, raw)
            return self.store.token_condition(parameter, [(system, value)])
        if kind == "attribute":
            code, value = _split(parameter, raw, pipe_required=True)
            return self.store.token_condition(parameter, [(code, value)])
        if kind == "coded":
            return self._coded(resource_type, parameter, raw)
        if kind == "profile":
            return self.store.token_condition("profile", [("", raw)])
        if kind == "modified":
            comparator, instant = _instant(parameter, raw)
            return Condition(f"r.last_modified {comparator} ?", (instant,))
        if kind == "date-from":
            if not _is_date(raw):
                raise FilterError(parameter, f"{raw!r} is not an ISO 8601 date (YYYY-MM-DD)")
            return Condition(
                "r.pk IN (SELECT resource_pk FROM search_token WHERE param = ? AND value >= ?)", (parameter, raw)
            )
        if kind == "owner":
            return self._owner(parameter, raw)
        if kind == "party-profile":
            return Condition(
                "r.pk IN (SELECT t.resource_pk FROM search_token t"
                " JOIN search_token pid ON pid.param = 'identifier' AND pid.system = t.system AND pid.value = t.value"
                " JOIN resource p ON p.pk = pid.resource_pk AND p.type = 'Party'"
                " JOIN search_token pp ON pp.resource_pk = p.pk AND pp.param = 'profile' AND pp.value = ?"
                " WHERE t.param = 'party')",
                (raw,),
            )
        if kind == "participant":  # a PartyRole, named directly or by the Party that plays it
            system, value = _split(parameter, raw)
            return Condition(
                "r.pk IN (SELECT t.resource_pk FROM search_token t WHERE t.param = ? AND ("
                "(t.value = ? AND (? IS NULL OR t.system = ?)) OR EXISTS ("
                "SELECT 1 FROM search_token role JOIN search_token played ON played.resource_pk = role.resource_pk"
                " WHERE role.param = 'identifier' AND role.system = t.system AND role.value = t.value"
                " AND played.param = 'party' AND played.value = ? AND (? IS NULL OR played.system = ?))))",
                (parameter, value, system, system, value, system, system),
            )
        raise AssertionError(f"unknown filter kind {kind}")

    def _coded(self, resource_type: str, parameter: str, raw: str) -> Condition:
        system, code = _split(parameter, raw)
        declared = self.contract.resources[resource_type].filter_vocabularies.get(parameter)
        if declared and system is not None and system not in declared:
            raise FilterError(
                parameter,
                f"vocabulary {system!r} is not declared for {resource_type}; declared: {', '.join(declared)}",
            )
        if system is None and declared:
            return self.store.token_condition(parameter, [(vocabulary, code) for vocabulary in declared])
        return self.store.token_condition(parameter, [(system, code)])

    def _owner(self, parameter: str, raw: str) -> Condition:
        system, value = _split(parameter, raw)
        keys = {(system, value)} if system is not None else set()
        keys.update(self.store.identifiers_of_parties_matching(system, value))
        if not keys:
            return self.store.token_condition(parameter, [(None, value)])
        return self.store.token_condition(parameter, sorted(keys))


def _is_date(text: str) -> bool:
    """YYYY-MM-DD exactly: the dates are compared as text."""
    return bool(_DATE.fullmatch(text)) and _parses_as_date(text)


def _parses_as_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
