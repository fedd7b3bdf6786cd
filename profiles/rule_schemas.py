"""Rules compiled to JSON Schema: the fast path of the validator.

Most rule rows (required, absent, null-or-absent, bindings, installation identifiers, reference
keys) can be stated as JSON Schema; jsonschema-rs then checks them at native speed together with
the structure. The compiled schema is a filter, not the explanation: a document it accepts gets
no issue from those rules, and the validator skips them; a document it refuses goes through the
rule functions, which say what is wrong. tests/profiles/test_fast_path.py checks that both paths report
the same issues.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from profiles.contract import Contract
from profiles.installation import INSTALLATION_OID_ARC
from profiles.paths import split_path

Schema = dict[str, Any]
_OBJECT = {"type": "object"}


def at_path(tokens: tuple[str, ...], leaf: Schema) -> Schema:
    """Apply `leaf` where the rule engine walks: each token a property, arrays expanded one level."""
    schema = leaf
    for token in reversed(tokens):
        schema = {"properties": {token: {"if": {"type": "array"}, "then": {"items": schema}, "else": schema}}}
    return schema


def _required(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    element = spec["element"]
    return {"if": _OBJECT, "then": {"required": [element], "properties": {element: {"not": {"type": "null"}}}}}


def _absent(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    return {"properties": {spec["element"]: False}}


def _null_or_absent(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    return {"properties": {spec["element"]: {"type": "null"}}}


def _binding(contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
    value_set = contract.value_sets.get(spec["valueSet"])
    if value_set is None:
        return None  # the rule function reports the missing value set
    systems = sorted(value_set.systems)
    member = {
        "type": "object",
        "anyOf": [
            {
                "required": ["system"] if codes is None else ["system", "code"],
                "properties": {"system": {"const": system}}
                | ({} if codes is None else {"code": {"enum": sorted(codes)}}),
            }
            for system, codes in sorted(value_set.systems.items())
        ],
    }
    claims_the_set = {"type": "object", "required": ["system"], "properties": {"system": {"enum": systems}}}
    coding_ok = {"if": claims_the_set, "then": member}
    required = spec["strength"] == "required"
    concept: Schema = {"type": "array", "items": coding_ok}
    if required:
        concept["contains"] = member
    single_coding = {"allOf": [coding_ok, member]} if required else coding_ok
    schema: Schema = {
        "if": {"type": "object", "required": ["coding"]},
        "then": {"properties": {"coding": concept if required else {"if": {"type": "array"}, "then": concept}}},
        "else": {"if": _OBJECT, "then": single_coding},
    }
    if required and all(codes is not None for codes in value_set.systems.values()):
        all_codes = sorted({code for codes in value_set.systems.values() for code in codes or ()})
        schema = {"allOf": [schema, {"if": {"type": "string"}, "then": {"enum": all_codes}}]}
    return schema


def _installation_identifier(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    known = sorted(ns.system for ns in contract.namespaces.values() if ns.system.startswith(INSTALLATION_OID_ARC))
    if spec.get("mustBeInstallation"):
        return {"if": _OBJECT, "then": {"required": ["system"], "properties": {"system": {"enum": known}}}}
    in_arc = {"type": "string", "pattern": "^" + re.escape(INSTALLATION_OID_ARC)}
    return {"properties": {"system": {"if": in_arc, "then": {"enum": known}}}}


def _reference_key(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    not_keys = sorted(ns.system for ns in contract.namespaces.values() if not ns.reference_key)
    if not not_keys:
        return {}
    return {
        "properties": {"identifier": {"if": _OBJECT, "then": {"properties": {"system": {"not": {"enum": not_keys}}}}}}
    }


def _profile_reference_key(contract: Contract, spec: Mapping[str, Any]) -> Schema:
    """A filter: only a reference into a namespace that is a key for some profiles and not for others
    can break the rule, and which case it is takes the rule function (the profile, the own identifiers)."""
    shared = sorted(ns.system for ns in contract.namespaces.values() if ns.reference_key and ns.not_reference_key_for)
    if not shared:
        return {}
    return {
        "properties": {"identifier": {"if": _OBJECT, "then": {"properties": {"system": {"not": {"enum": shared}}}}}}
    }


_COMPILERS: dict[str, Callable[[Contract, Mapping[str, Any]], Schema | None]] = {
    "required": _required,
    "absent": _absent,
    "null-or-absent": _null_or_absent,
    "binding": _binding,
    "installation-identifier": _installation_identifier,
    "reference-key": _reference_key,
    "profile-reference-key": _profile_reference_key,
}


def compile_rule(contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
    """The rule as a JSON Schema over the whole document, or None if only its function can check it."""
    compiler = _COMPILERS.get(spec["rule"])
    leaf = compiler(contract, spec) if compiler else None
    if leaf is None:
        return None
    return at_path(split_path(spec["path"]), leaf)
