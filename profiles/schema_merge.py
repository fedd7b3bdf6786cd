"""A schema of many parts rewritten to walk each document once: the same verdict on every instance, less work.

The clean gate (profiles/clean_gate.py) is an allOf of dozens of parts, each a path from the root to one check. In
jsonschema-rs every part looks its path up again, and each lookup and each iteration of an array crosses into
Python objects: a part that checks nothing on most documents still cost ~0.5 us. `merged` joins the parts that only
descend (properties, items, required) into one tree, so that a path shared by ten rules is walked once, and drops
the type guards that change nothing (`if: {type: object}, then: {required..., properties...}`: those keywords hold
for every instance that is not an object anyway).
"""

from __future__ import annotations

from typing import Any

__all__ = ["merged"]

Schema = dict[str, Any]

_OBJECT_ONLY = frozenset({"required", "properties", "propertyNames", "additionalProperties", "dependentRequired"})
_ARRAY_ONLY = frozenset({"items", "contains", "minContains", "maxContains", "prefixItems", "uniqueItems"})
_DESCENDING = frozenset({"properties", "items", "required"})
_GUARDS = {"object": _OBJECT_ONLY, "array": _ARRAY_ONLY}
_ARRAY = {"type": "array"}
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})


def merged(schema: Any) -> Any:
    """`schema` with the same verdict on every instance, its descending parts joined."""
    return _merged(schema, {})


def _merged(schema: Any, produced: dict[int, Any]) -> Any:
    """merged(); `produced` holds what this call made, by id, kept alive so that no id is reused. Joined members
    are merged again as parts of an allOf (`_all`): a result of merged is its own merge, so it is taken as it is
    instead of walked again (the gates of a run: 8,888 calls without, 8.5 ms)."""
    if not isinstance(schema, dict) or produced.get(id(schema)) is schema:
        return schema
    schema = _unguarded(schema)
    result: Schema = {}
    for keyword, value in schema.items():
        if keyword == "properties":
            result[keyword] = {name: _merged(member, produced) for name, member in value.items()}
        elif keyword in ("items", "not", "if", "then", "else", "contains", "additionalProperties", "propertyNames"):
            result[keyword] = _merged(value, produced)
        elif keyword in ("anyOf", "oneOf"):
            result[keyword] = [_merged(member, produced) for member in value]
        elif keyword == "allOf":
            result[keyword] = _joined([_merged(member, produced) for member in _flat(value)], produced)
        else:
            result[keyword] = value
    if set(result) == {"allOf"} and len(result["allOf"]) == 1:
        return result["allOf"][0]
    produced[id(result)] = result
    return result


def _unguarded(schema: Schema) -> Schema:
    """{if: {type: T}, then: X} alone, X holding only keywords that apply to T alone: X."""
    if set(schema) != {"if", "then"}:
        return schema
    guard, then = schema["if"], schema["then"]
    guarded = guard.get("type") if isinstance(guard, dict) and set(guard) == {"type"} else None
    # a list of types ({type: [object, null]}) guards more than one kind: no keyword set applies to it alone
    applies_to = _GUARDS.get(guarded) if isinstance(guarded, str) else None
    if applies_to is not None and isinstance(then, dict) and then and set(then) <= applies_to:
        return then
    return schema


def _flat(members: list[Any]) -> list[Any]:
    """The members of nested allOfs side by side. A member with allOf beside other keywords is split too:
    {items: A, allOf: [B]} is allOf [{items: A}, B], whose descending parts can then join others. Not where
    unevaluated* sees the annotations of allOf."""
    flat: list[Any] = []
    for member in members:
        if isinstance(member, dict) and "allOf" in member and not _UNEVALUATED & set(member):
            rest = {keyword: value for keyword, value in member.items() if keyword != "allOf"}
            flat.extend(_flat([rest, *member["allOf"]] if rest else member["allOf"]))
        else:
            flat.append(member)
    return flat


def _joined(members: list[Any], produced: dict[int, Any]) -> list[Any]:
    """The members that only descend joined into one (first in the list, where the first of them stood), and so
    the steps of a path through an array (rules.at_path)."""
    members = _steps_joined(members, produced)
    descending = [m for m in members if isinstance(m, dict) and m and set(m) <= _DESCENDING]
    if len(descending) < 2:
        return members
    joined: Schema = {}
    for member in descending:
        for name, sub in member.get("properties", {}).items():
            joined.setdefault("properties", {}).setdefault(name, []).append(sub)
        if "items" in member:
            joined.setdefault("items", []).append(member["items"])
        if "required" in member:
            joined["required"] = sorted({*joined.get("required", ()), *member["required"]})
    if "properties" in joined:
        joined["properties"] = {name: _all(subs, produced) for name, subs in joined["properties"].items()}
    if "items" in joined:
        joined["items"] = _all(joined["items"], produced)
    rest = [m for m in members if not any(m is d for d in descending)]
    return [joined, *rest]


def _is_step(member: Any) -> bool:
    """{if: {type: array}, then: {items: A}, else: B}: a step of rules.at_path."""
    return (
        isinstance(member, dict)
        and set(member) == {"if", "then", "else"}
        and member["if"] == _ARRAY
        and isinstance(member["then"], dict)
        and set(member["then"]) == {"items"}
    )


def _steps_joined(members: list[Any], produced: dict[int, Any]) -> list[Any]:
    """Path steps side by side joined into one: each array walked once for all of them."""
    steps = [m for m in members if _is_step(m)]
    if len(steps) < 2:
        return members
    joined = {
        "if": _ARRAY,
        "then": {"items": _all([step["then"]["items"] for step in steps], produced)},
        "else": _all([step["else"] for step in steps], produced),
    }
    first = members.index(steps[0])
    rest = [m for m in members if not _is_step(m)]
    return [*rest[:first], joined, *rest[first:]]


def _all(schemas: list[Any], produced: dict[int, Any]) -> Any:
    return _merged({"allOf": schemas}, produced) if len(schemas) > 1 else schemas[0]
