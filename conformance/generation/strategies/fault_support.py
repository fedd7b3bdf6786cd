"""What every fault of the mutations shares: the broken payload it returns, the rules and schema
locations of a kind, and small edits of a payload at a path."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.kinds import PayloadKind
from conformance.generation.strategies.schema_index import Node, schema_index, walk
from profiles import Contract
from profiles.issues import pointer
from profiles.validator import CONTEXTS

Where = tuple[str | int, ...]

Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True)
class Broken:
    """A payload with one fault, the issue code it must give, where (a path into the payload), and what."""

    payload: Any
    code: str
    where: Where
    description: str


Fault = Callable[[Draw, Contract, PayloadKind, dict[str, Any]], Broken | None]

Applies = Callable[[Contract, PayloadKind], bool]


def location_of(where: Iterable[str | int]) -> str:
    """The JSON Pointer of a path into a payload."""
    location = ""
    for token in where:
        location = pointer(location, token)
    return location


def rules_in_context(contract: Contract, kind: PayloadKind) -> list[Mapping[str, Any]]:
    """The rule rows of the kind's resource type and profile that apply in its context."""
    rules = [*contract.resources[kind.resource_type].rules]
    if kind.profile is not None:
        rules.extend(contract.profiles[kind.profile].rules)
    return [spec for spec in rules if kind.context in spec.get("contexts", CONTEXTS)]


def root_of(contract: Contract, kind: PayloadKind) -> Node | None:
    """The schema of the kind's resource type (None for a type without one)."""
    schema = contract.resources[kind.resource_type].schema
    return schema_index().root(schema.removesuffix(".schema.json")) if schema else None


def schema_locations(contract: Contract, kind: PayloadKind, payload: Any) -> list[tuple[Where, Node]]:
    """Each location of `payload` with its schema (see schema_index.walk)."""
    root = root_of(contract, kind)
    return [] if root is None else list(walk(schema_index(), root, payload))


def pick(draw: Draw, options: list[Any]) -> Any:
    """One of `options`, or None when there is none."""
    return draw(st.sampled_from(options)) if options else None


def set_at(payload: Any, where: Where, value: Any) -> None:
    """Replace the value at `where` (in place)."""
    target = payload
    for token in where[:-1]:
        target = target[token]
    target[where[-1]] = value


def delete_at(payload: Any, where: Where) -> None:
    """Remove the member or item at `where` (in place)."""
    target = payload
    for token in where[:-1]:
        target = target[token]
    del target[where[-1]]


def value_at(payload: Any, where: Where) -> Any:
    """The value at `where`."""
    for token in where:
        payload = payload[token]
    return payload


def _identifiers(payload: dict) -> list[int]:
    listed = payload.get("identifier")
    return [i for i, item in enumerate(listed) if isinstance(item, dict)] if isinstance(listed, list) else []


def identifier_slot(draw: Draw, payload: dict) -> int:
    """An identifier of the payload to break, appended when it has none."""
    existing = _identifiers(payload)
    if existing:
        return draw(st.sampled_from(existing))
    payload.setdefault("identifier", []).append({})
    return len(payload["identifier"]) - 1


def has_rule(contract: Contract, kind: PayloadKind, rule: str, path: str) -> bool:
    """Whether a rule row `rule` at `path` applies to the kind."""
    return any(spec["rule"] == rule and spec["path"] == path for spec in rules_in_context(contract, kind))
