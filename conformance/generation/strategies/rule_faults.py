"""Faults of the profile rules, found where the rule rows of `profiles/` apply to a kind: a code
outside a required binding, an element a rule requires removed, identifiers in the wrong namespace,
a profile not shown or claimed without its evidence, a value where null is due."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.fault_support import (
    Broken,
    Draw,
    delete_at,
    has_rule,
    identifier_slot,
    pick,
    root_of,
    rules_in_context,
    value_at,
)
from conformance.generation.strategies.identifiers import foreign_systems, is_installation, values_of
from conformance.generation.strategies.kinds import PayloadKind
from conformance.generation.strategies.primitives import tokens
from conformance.generation.strategies.recognition import recognition_severity
from conformance.generation.strategies.schema_index import schema_index
from conformance.generation.strategies.terminology import codes_outside, free_coding
from profiles import Contract, Profile
from profiles.installation import INSTALLATION_OID_ARC
from profiles.paths import split_path, values_at


def required_bindings(contract: Contract, kind: PayloadKind) -> list[tuple[str, Any]]:
    """(element, value set) of the required bindings on a CodeableConcept member of the resource."""
    root = root_of(contract, kind)
    if root is None:
        return []
    members = schema_index().object_view(root).properties
    found = []
    for spec in rules_in_context(contract, kind):
        element = spec["path"]
        value_set = contract.value_sets.get(spec.get("valueSet", ""))
        if spec["rule"] != "binding" or spec["strength"] != "required" or value_set is None:
            continue
        if element in members and schema_index().type_name(members[element]) == "CodeableConcept":
            found.append((element, value_set))
    return found


def code_outside_required_binding(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    choices = [
        (element, value_set, system)
        for element, value_set in required_bindings(contract, kind)
        for system, codes in sorted(value_set.systems.items())
        if codes is not None
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    element, value_set, system = chosen
    code = draw(codes_outside(value_set, system))
    payload[element] = {"coding": [{"system": system, "code": code}]}
    return Broken(
        payload,
        "binding-code-not-in-value-set",
        (element, "coding", 0, "code"),
        f"{element} code {code!r} is not in {value_set.url} (required binding)",
    )


def no_coding_from_required_binding(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    chosen = pick(draw, required_bindings(contract, kind))
    if chosen is None:
        return None
    element, value_set = chosen
    codings = draw(st.lists(free_coding(contract, avoid_systems=value_set.systems), max_size=2))
    payload[element] = {"coding": codings}
    return Broken(
        payload, "binding-no-coding-from-value-set", (element,), f"{element} has no coding from {value_set.url}"
    )


def rule_required_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    choices = [
        (where, spec["element"])
        for spec in rules_in_context(contract, kind)
        if spec["rule"] == "required"
        for value, where in values_at(payload, split_path(spec["path"]))
        if isinstance(value, dict) and value.get(spec["element"]) is not None
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, element = chosen
    delete_at(payload, (*where, element))
    return Broken(
        payload, "required-element-missing", where, f"{element!r}, required in context {kind.context}, removed"
    )


def identifier_namespace_of_other_profile(
    draw: Draw, contract: Contract, kind: PayloadKind, payload: dict
) -> Broken | None:
    if kind.profile is None or not has_rule(contract, kind, "profile-namespace", "identifier"):
        return None
    own = set(contract.profiles[kind.profile].identifier_namespaces)
    others = [ns for ns in contract.namespaces.values() if is_installation(ns) and ns.key not in own]
    namespace = pick(draw, others)
    if namespace is None:
        return None
    slot = identifier_slot(draw, payload)
    payload["identifier"][slot] = {"system": namespace.system, "value": draw(values_of(namespace))}
    return Broken(
        payload,
        "identifier-namespace-of-other-profile",
        ("identifier", slot, "system"),
        f"identifier in namespace {namespace.key}, which is not one of profile {kind.profile}",
    )


def identifier_outside_installation(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    paths = [
        spec["path"]
        for spec in rules_in_context(contract, kind)
        if spec["rule"] == "installation-identifier" and spec.get("mustBeInstallation")
    ]
    choices = [
        where for path in paths for value, where in values_at(payload, split_path(path)) if isinstance(value, dict)
    ]
    where = pick(draw, choices)
    if where is None:
        return None
    registries = [ns.system for ns in contract.namespaces.values() if not is_installation(ns)]
    outside = foreign_systems(contract)
    system = draw(st.sampled_from(registries) | outside if registries else outside)
    value_at(payload, where)["system"] = system
    return Broken(
        payload,
        "identifier-not-installation-namespace",
        (*where, "system"),
        f"identifier system {system} is not an installation namespace",
    )


def installation_namespace_malformed(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    if not has_rule(contract, kind, "installation-identifier", "identifier"):
        return None
    number = contract.installation.number
    system = draw(
        st.sampled_from(
            [
                f"{INSTALLATION_OID_ARC}{number}",  # the key arc left out
                f"{INSTALLATION_OID_ARC}{number}.1.1",  # one arc too many
                f"{INSTALLATION_OID_ARC}{number}.key",  # an arc that is not a number
            ]
        )
    )
    slot = identifier_slot(draw, payload)
    payload["identifier"][slot] = {"system": system, "value": draw(tokens())}
    return Broken(
        payload,
        "identifier-installation-malformed",
        ("identifier", slot, "system"),
        f"installation namespace {system} is not of the form <installation>.<key>",
    )


def _without_evidence(payload: dict, profiles: Iterable[Profile]) -> None:
    """Take the profiles' claim and evidence out of the payload (in place)."""
    profiles = list(profiles)
    urls = {p.url for p in profiles}
    codings = {c for p in profiles for c in p.category_codings}
    meta = payload.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("profile"), list):
        meta["profile"] = [url for url in meta["profile"] if url not in urls]
    for concept in payload.get("category", []) if isinstance(payload.get("category"), list) else []:
        if isinstance(concept, dict) and isinstance(concept.get("coding"), list):
            concept["coding"] = [
                c
                for c in concept["coding"]
                if not (isinstance(c, dict) and (c.get("system"), c.get("code")) in codings)
            ]
    if any(p.canonical_url and payload.get("url") == p.canonical_url for p in profiles):
        del payload["url"]


def profile_unrecognised(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    if recognition_severity(contract, kind.resource_type, kind.context) != "error":
        return None
    _without_evidence(payload, contract.profiles_of(kind.resource_type))
    return Broken(payload, "profile-unrecognised", (), "meta.profile and every profile's evidence removed")


def profile_evidence_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    profile = contract.profiles.get(kind.profile or "")
    if profile is None or not profile.has_evidence_rule or kind.context not in profile.evidence_required_in:
        return None
    _without_evidence(payload, [profile])
    meta = payload.setdefault("meta", {})
    meta["profile"] = [*meta.get("profile", []), profile.url]
    where = ("url",) if profile.canonical_url else ("category",)
    return Broken(
        payload, "profile-evidence-missing", where, f"claims {profile.name} in meta.profile without its evidence"
    )


def null_element_given(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    choices = [
        (where, spec["element"])
        for spec in rules_in_context(contract, kind)
        if spec["rule"] == "null-or-absent"
        for value, where in values_at(payload, split_path(spec["path"]))
        if isinstance(value, dict)
    ]
    chosen = pick(draw, choices)
    if chosen is None:
        return None
    where, element = chosen
    value_at(payload, where)[element] = draw(tokens())
    return Broken(payload, "element-must-be-null", (*where, element), f"{element!r} given where it must be null")
