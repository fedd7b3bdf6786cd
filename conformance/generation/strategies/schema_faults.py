"""Faults of structure, found where the schema files say a payload has them: a required member
removed, a value outside an enum, a JSON value of the wrong type, a member the type forbids or does
not list, an identifier system that is not a URI."""

from __future__ import annotations

import copy

from hypothesis import strategies as st

from conformance.generation.strategies.fault_support import (
    Broken,
    Draw,
    delete_at,
    identifier_slot,
    location_of,
    pick,
    root_of,
    schema_locations,
    set_at,
    value_at,
)
from conformance.generation.strategies.kinds import PayloadKind
from conformance.generation.strategies.primitives import json_values, member_names, tokens
from conformance.generation.strategies.schema_index import json_types, schema_index
from profiles import Contract


def schema_required_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = [
        (where, name)
        for where, node in schema_locations(contract, kind, payload)
        if isinstance(value_at(payload, where), dict)
        for name in sorted(index.object_view(node).required)
        if name in value_at(payload, where)
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, name = chosen
    delete_at(payload, (*where, name))
    return Broken(payload, "schema-required", where, f"required member {name!r} removed at {location_of(where) or '/'}")


def identifier_system_not_uri(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = [
        where
        for where, node in schema_locations(contract, kind, payload)
        if index.type_name(node) == "Identifier" and isinstance(value_at(payload, where), dict)
    ]
    where = pick(draw, choices)
    if where is None and _declares_identifier(contract, kind):
        where = ("identifier", identifier_slot(draw, payload))
        value_at(payload, where)["value"] = draw(tokens())
    if where is None:
        return None
    system = draw(tokens())  # a token has no colon: no URI scheme
    value_at(payload, where)["system"] = system
    return Broken(payload, "schema-pattern", (*where, "system"), f"identifier system {system!r} is not a URI")


def _declares_identifier(contract: Contract, kind: PayloadKind) -> bool:
    root = root_of(contract, kind)
    member = schema_index().object_view(root).properties.get("identifier") if root is not None else None
    return member is not None and member.schema is not False


def enum_value_outside(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = [
        (where, index.keyword(node, "enum"))
        for where, node in schema_locations(contract, kind, payload)
        if index.keyword(node, "enum") is not None
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, allowed = chosen
    value = draw(tokens().filter(lambda token: token not in allowed))
    set_at(payload, where, value)
    return Broken(payload, "schema-enum", where, f"{value!r} at {location_of(where)} is none of {allowed}")


_SAMPLES = {
    "string": "text",
    "integer": 7,
    "number": 7.5,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}


def _wrong_types(allowed: frozenset[str]) -> list[str]:
    wrong = [name for name in _SAMPLES if name not in allowed]
    if "number" in allowed:
        wrong = [name for name in wrong if name != "integer"]  # an integer is a number
    return wrong


def wrong_json_type(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = [
        (where, types)
        for where, node in schema_locations(contract, kind, payload)
        if where and where != ("resourceType",)  # a resourceType of another type names another resource
        for types in [json_types(index, node)]
        if types is not None and index.keyword(node, "const") is None and index.keyword(node, "enum") is None
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, allowed = chosen
    wrong_types = _wrong_types(allowed)
    if where and isinstance(where[-1], str):
        # a null member is an element without a value (profiles/validator.py): an open choice, not a wrong type
        wrong_types = [name for name in wrong_types if name != "null"]
    wrong = draw(st.sampled_from(wrong_types))
    set_at(payload, where, copy.deepcopy(_SAMPLES[wrong]))
    return Broken(payload, "schema-type", where, f"a JSON {wrong} at {location_of(where)}, where {sorted(allowed)} go")


def element_not_allowed(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = [
        (where, name)
        for where, node in schema_locations(contract, kind, payload)
        if isinstance(value_at(payload, where), dict)
        for name, member in sorted(index.object_view(node).properties.items())
        if member.schema is False and name not in value_at(payload, where)
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, name = chosen
    # a null embeds nothing: read as the element left out (profiles/validator.py), which is what the type demands
    value_at(payload, where)[name] = draw(json_values().filter(lambda value: value is not None))
    return Broken(payload, "schema-not-allowed", (*where, name), f"{name!r}, which the type forbids, added")


def unexpected_element(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    index = schema_index()
    choices = []
    for where, node in schema_locations(contract, kind, payload):
        view = index.object_view(node)
        if isinstance(value_at(payload, where), dict) and view.closed and view.additional is None:
            choices.append((where, view))
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, view = chosen
    name = draw(member_names().filter(lambda n: n not in view.properties and n not in value_at(payload, where)))
    value_at(payload, where)[name] = draw(json_values())
    return Broken(
        payload, "schema-unexpected-element", (*where, name), f"{name!r} added to a type with a complete element list"
    )
