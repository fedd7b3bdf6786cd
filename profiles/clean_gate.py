"""The clean gate: one jsonschema-rs pass that accepts a served resource only when the validator would report nothing
about it at all, so that such a document never reaches Python's rule functions.

It holds the structure, every rule row compiled to JSON Schema (profiles/rule_schemas.py), profile recognition (the
meta.profile claims, their evidence, a profile where the type needs one), the rules of each profile under "if the
profile is recognised", and conservative forms of the rules only a function can explain: identifier namespaces of the
recognised profiles, the reference forms of open structures, codes out of place. The check digits of registry
identifiers are the one thing a schema cannot state: the gate checks them in Python after its pass
(RegistryIdentifiers; as custom formats of the pass they cost four times as much, each value a call from Rust).
Conservative means: where a rule depends on more than one schema can see (the union of the namespaces of two
recognised profiles), the gate demands more than the rule, never less. A document the gate refuses is explained by
the validator's usual path, which is the authority; tests/profiles/test_fast_path.py holds that both report the same
issues.

A type with a rule no schema can state (the report order's key and dates) has the rule's function run after the pass
(CleanGate.functions), unless the type has profiles: a function may judge by them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from profiles.contract import RESOURCE, Contract, Profile, ResourceRules
from profiles.identifier_formats import cached_check
from profiles.installation import INSTALLATION_OID_ARC
from profiles.paths import split_path, values_at
from profiles.rule_schemas import Schema, at_path, compile_rule
from profiles.schema_merge import merged

__all__ = ["CleanGate", "RegistryIdentifiers", "clean_gate"]

_OBJECT = {"type": "object"}
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class CleanGate:
    schema: Schema
    """Compile it with the schema store (it refers to the structure by $id)."""
    identifiers: RegistryIdentifiers | None = None
    """The check digits, checked after the schema passed: the gate passes a document only when this holds too."""
    functions: tuple[Mapping[str, Any], ...] = ()
    """The rule rows only their functions can check (the report order's key and dates), in a type without
    profiles: the gate passes a document only when their functions find nothing either."""


class RegistryIdentifiers:
    """identifier-format of the whole gate, in Python after its pass: the value of each identifier in a namespace
    with a format passes that format. A custom format of jsonschema-rs crossed into Python for each such value at
    ~1 us a call (5.6 of a Party's 14.5 us); this walks the few paths of the rule in ~1.3 us a payload, plus ~0.8 us
    for each number not checked before. It tests an identifier that is an object whose `system` names such a
    namespace and whose `value` is a string."""

    __slots__ = ("_by_system", "_longer_paths", "_paths", "holds")

    def __init__(self, contract: Contract, paths: list[tuple[str, ...]]) -> None:
        unique = tuple(dict.fromkeys(paths))
        # the contract's paths (identifier, owner.identifier) are walked inline: a call a step cost a third more
        self._paths = tuple(
            (tokens[0], tokens[1] if len(tokens) == 2 else None) for tokens in unique if 0 < len(tokens) <= 2
        )
        self._longer_paths = tuple(tokens for tokens in unique if not 0 < len(tokens) <= 2)
        self._by_system = {
            namespace.system: cached_check(namespace.format)
            for namespace in contract.namespaces.values()
            if namespace.format is not None
        }
        self.holds: Callable[[dict[str, Any]], bool] = self._walk

    def __call__(self, document: dict[str, Any]) -> bool:
        return self.holds(document)

    def _walk(self, document: dict[str, Any]) -> bool:
        """Arrays expanded one level at each step, as profiles.paths.values_at walks them; each identifier's test
        inline (a call for each cost a fifth of the walk)."""
        by_system = self._by_system
        for first, second in self._paths:
            child = document.get(first)
            if child is None:
                continue
            for node in child if isinstance(child, list) else (child,):
                if second is None:
                    identifiers: Any = (node,)
                elif isinstance(node, dict):
                    identifiers = node.get(second)
                    if identifiers is None:
                        continue
                    if not isinstance(identifiers, list):
                        identifiers = (identifiers,)
                else:
                    continue
                for identifier in identifiers:
                    if isinstance(identifier, dict):
                        system = identifier.get("system")
                        check = by_system.get(system) if type(system) is str else None
                        if check is not None:
                            value = identifier.get("value")
                            if type(value) is str and not check(value):
                                return False
        return not self._longer_paths or all(
            self._holds(value) for tokens in self._longer_paths for value, _ in values_at(document, tokens)
        )

    def _holds(self, identifier: Any) -> bool:
        if not isinstance(identifier, dict):
            return True
        system = identifier.get("system")
        check = self._by_system.get(system) if type(system) is str else None
        if check is None:
            return True
        value = identifier.get("value")
        return type(value) is not str or check(value)


def clean_gate(
    contract: Contract, rules: ResourceRules, context: str, structure: str, *, merge: bool = True
) -> CleanGate | None:
    """The gate of one resource type in one context (`structure`: the $id of its schema), or None when it has none;
    its parts joined by profiles.schema_merge unless `merge` is false (the same verdict, slower)."""
    if context != RESOURCE or not rules.schema:
        return None  # writes check recognition differently (writable profiles); they take the usual path
    candidates = contract.profiles_of(rules.resource_type)
    recognised = {profile: _recognised(profile) for profile in candidates}
    profile_required = RESOURCE in rules.profile_required_in
    parts: list[Schema | bool] = [{"$ref": structure}, *_recognition(contract, rules, candidates, recognised)]
    identifier_paths: list[tuple[str, ...]] = []
    functions: list[Mapping[str, Any]] = []
    for spec in _checking(rules.rules, context):
        if spec["rule"] == "profile-namespace":
            parts.append(_profile_namespaces(contract, spec, recognised, profile_required))
            # each of its branches demands a recognised profile when one is required: no need to ask twice
            profile_required = profile_required and not candidates
            continue
        if spec["rule"] == "identifier-format":
            identifier_paths.append(split_path(spec["path"]))
            continue
        schema = _rule(contract, spec)
        if schema is None:
            if candidates:
                return None  # a function may judge by the recognised profiles, which the gate does not hand on
            functions.append(spec)
            continue
        parts.append(schema)
    for profile in candidates:
        profile_parts = []
        for spec in _checking(profile.rules, context):
            schema = _rule(contract, spec)
            if schema is None:
                return None
            profile_parts.append(schema)
        if profile_parts:
            parts.append({"if": recognised[profile], "then": {"allOf": profile_parts}})
    if profile_required:
        parts.append({"anyOf": list(recognised.values())} if candidates else False)
    schema = {"$schema": _DIALECT, "allOf": parts}
    identifiers = RegistryIdentifiers(contract, identifier_paths) if identifier_paths else None
    return CleanGate(merged(schema) if merge else schema, identifiers, tuple(functions))


def _checking(specs: tuple[Mapping[str, Any], ...], context: str) -> list[Mapping[str, Any]]:
    """The rows that check something in `context` (an example binding only illustrates codes)."""
    return [s for s in specs if context in s.get("contexts", (context,)) and s.get("strength") != "example"]


def _rule(contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
    compiled = compile_rule(contract, spec)
    if compiled is not None:
        return compiled
    gate = _GATES.get(spec["rule"])
    leaf = gate(contract, spec) if gate is not None else None
    return None if leaf is None else at_path(split_path(spec["path"]), leaf)


# -- recognition ---------------------------------------------------------------------------------------------


def _claims(profile: Profile) -> Schema:
    return {
        "required": ["meta"],
        "properties": {
            "meta": {
                "type": "object",
                "required": ["profile"],
                "properties": {"profile": {"type": "array", "contains": {"const": profile.url}}},
            }
        },
    }


def _evidence(profile: Profile) -> Schema | None:
    if profile.canonical_url is not None:
        return {"required": ["url"], "properties": {"url": {"const": profile.canonical_url}}}
    if not profile.category_codings:
        return None
    coding = {
        "anyOf": [
            {
                "type": "object",
                "required": ["system", "code"],
                "properties": {"system": {"const": system}, "code": {"const": code}},
            }
            for system, code in profile.category_codings
        ]
    }
    concept = {
        "type": "object",
        "required": ["coding"],
        "properties": {"coding": {"type": "array", "contains": coding}},
    }
    return {"required": ["category"], "properties": {"category": {"type": "array", "contains": concept}}}


def _recognised(profile: Profile) -> Schema:
    evidence = _evidence(profile)
    return _claims(profile) if evidence is None else {"anyOf": [_claims(profile), evidence]}


def _recognition(
    contract: Contract, rules: ResourceRules, candidates: tuple[Profile, ...], recognised: dict[Profile, Schema]
) -> list[Schema]:
    """No recognition issue: every meta.profile a profile of this type, every claim with its evidence where the
    context demands it (clean_gate adds: a recognised profile where the type needs one)."""
    urls = sorted(profile.url for profile in candidates)
    parts: list[Schema] = [
        {
            "properties": {
                "meta": {"if": _OBJECT, "then": {"properties": {"profile": {"if": {"type": "array"}, "then": {
                    "items": {"enum": urls} if urls else False
                }}}}}
            }
        }
    ]  # fmt: skip
    for profile in candidates:
        evidence = _evidence(profile)
        if evidence is not None and RESOURCE in profile.evidence_required_in:
            parts.append({"if": _claims(profile), "then": evidence})
    return parts


# -- conservative forms of the rules only a function explains -----------------------------------------------


def _reference_form(contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
    if spec["form"] == "string":
        return {"not": _OBJECT}
    if spec["form"] == "members":
        return {"if": _OBJECT, "then": {"propertyNames": {"enum": sorted(spec["members"])}}}
    return None


def _codes_elsewhere(contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
    value_set = contract.value_sets.get(spec["valueSet"])
    if value_set is None:
        return {}
    if any(codes is None for codes in value_set.systems.values()):
        return None  # every code of an open system would be out of place: not a list a schema can hold
    codes = {"not": {"enum": sorted({code for codes in value_set.systems.values() for code in codes or ()})}}
    return {
        "if": {"type": "string"},
        "then": codes,
        "else": {
            "if": {"type": "object", "required": ["coding"]},
            "then": {"properties": {"coding": {"if": {"type": "array"}, "then": {"items": {
                "properties": {"code": codes}
            }}}}},
            "else": {"properties": {"code": codes}},
        },
    }  # fmt: skip


_GATES: dict[str, Callable[[Contract, Mapping[str, Any]], Schema | None]] = {
    "reference-form": _reference_form,
    "codes-elsewhere": _codes_elsewhere,
}


def _profile_namespaces(
    contract: Contract, spec: Mapping[str, Any], recognised: dict[Profile, Schema], profile_required: bool
) -> Schema:
    """profile-namespace: an identifier in an installation namespace is in a namespace of the recognised profiles.
    Conservative: one recognised profile must hold every such identifier (the rule takes the union of all). The
    branch "no profile recognised" comes last, and not at all where the gate demands a profile anyway: anyOf stops
    at the first branch that holds, and most documents are held by their profile's."""
    installation = {s for s in contract.namespaces if s.startswith(INSTALLATION_OID_ARC)}
    tokens = split_path(spec["path"])
    branches: list[Schema] = []
    for profile, claimed_or_shown in recognised.items():
        allowed = {ns.system for ns in contract.namespaces.values() if ns.key in profile.identifier_namespaces}
        forbidden = sorted(installation - allowed)
        leaf = {"properties": {"system": {"not": {"enum": forbidden}}}} if forbidden else {}
        branches.append({"allOf": [claimed_or_shown, at_path(tokens, leaf)]})
    if not profile_required or not recognised:
        branches.append({"not": {"anyOf": list(recognised.values())}} if recognised else {})
    return {"anyOf": branches}
