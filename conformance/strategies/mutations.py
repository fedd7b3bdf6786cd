"""Single-fault mutations: a valid payload with exactly one fault, and the issue (code and JSON
Pointer) the validator must report for it.

Each fault is a function that looks at the kind and the payload and either declines (the fault
does not apply there) or returns the broken copy. Faults find where they apply from the same data
as the valid payloads: the schema (required members, enums, types, closed objects, forbidden
members), the rule rows (bindings, required elements, identifier namespaces, profile recognition)
and the operation definitions of the reports.
"""

from __future__ import annotations

import copy
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from conformance.issues import pointer
from conformance.strategies.identifiers import is_installation, values_of
from conformance.strategies.keys import certificate_pem, private_key_pem
from conformance.strategies.kinds import PayloadKind, payload_kinds, valid_payload
from conformance.strategies.primitives import json_values, member_names, tokens
from conformance.strategies.recognition import recognition_severity
from conformance.strategies.schema_index import (
    CLOSED_OBJECT,
    FORBIDDEN_MEMBER,
    Node,
    features,
    json_types,
    schema_index,
    walk,
)
from conformance.strategies.terminology import codes_outside, free_coding
from conformance.validator import CONTEXTS
from profiles import Contract
from profiles.installation import INSTALLATION_OID_ARC
from profiles.paths import split_path, values_at

Where = tuple[str | int, ...]
Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True)
class Mutation:
    """A payload with one fault, the issue code the validator must report, where, and what was broken."""

    payload: Any
    expected_code: str
    location: str
    description: str
    fault: str
    """The name of the fault (a key of FAULTS)."""
    kind: PayloadKind


@dataclass(frozen=True)
class _Broken:
    payload: Any
    code: str
    where: Where
    description: str


Fault = Callable[[Draw, Contract, PayloadKind, dict[str, Any]], _Broken | None]
Applies = Callable[[Contract, PayloadKind], bool]


def _location(where: Iterable[str | int]) -> str:
    location = ""
    for token in where:
        location = pointer(location, token)
    return location


def _rules(contract: Contract, kind: PayloadKind) -> list[dict[str, Any]]:
    rules = [*contract.resources[kind.resource_type].rules]
    if kind.profile is not None:
        rules.extend(contract.profiles[kind.profile].rules)
    return [spec for spec in rules if kind.context in spec.get("contexts", CONTEXTS)]


def _root(kind: PayloadKind, contract: Contract) -> Node | None:
    schema = contract.resources[kind.resource_type].schema
    return schema_index().root(schema.removesuffix(".schema.json")) if schema else None


def _locations(contract: Contract, kind: PayloadKind, payload: Any) -> list[tuple[Where, Node]]:
    root = _root(kind, contract)
    return [] if root is None else list(walk(schema_index(), root, payload))


def _pick(draw: Draw, options: list[Any]) -> Any:
    return draw(st.sampled_from(options)) if options else None


def _set(payload: Any, where: Where, value: Any) -> None:
    target = payload
    for token in where[:-1]:
        target = target[token]
    target[where[-1]] = value


def _delete(payload: Any, where: Where) -> None:
    target = payload
    for token in where[:-1]:
        target = target[token]
    del target[where[-1]]


# -- bindings -----------------------------------------------------------------------------------------


def _required_bindings(contract: Contract, kind: PayloadKind) -> list[tuple[str, Any]]:
    """(element, value set) of the required bindings on a CodeableConcept member of the resource."""
    root = _root(kind, contract)
    if root is None:
        return []
    members = schema_index().object_view(root).properties
    found = []
    for spec in _rules(contract, kind):
        element = spec["path"]
        value_set = contract.value_sets.get(spec.get("valueSet", ""))
        if spec["rule"] != "binding" or spec["strength"] != "required" or value_set is None:
            continue
        if element in members and schema_index().type_name(members[element]) == "CodeableConcept":
            found.append((element, value_set))
    return found


def code_outside_required_binding(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    choices = [
        (element, value_set, system)
        for element, value_set in _required_bindings(contract, kind)
        for system, codes in sorted(value_set.systems.items())
        if codes is not None
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    element, value_set, system = chosen
    code = draw(codes_outside(value_set, system))
    payload[element] = {"coding": [{"system": system, "code": code}]}
    return _Broken(
        payload,
        "binding-code-not-in-value-set",
        (element, "coding", 0, "code"),
        f"{element} code {code!r} is not in {value_set.url} (required binding)",
    )


def no_coding_from_required_binding(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    chosen = _pick(draw, _required_bindings(contract, kind))
    if chosen is None:
        return None
    element, value_set = chosen
    codings = draw(st.lists(free_coding(contract, avoid_systems=value_set.systems), max_size=2))
    payload[element] = {"coding": codings}
    return _Broken(
        payload, "binding-no-coding-from-value-set", (element,), f"{element} has no coding from {value_set.url}"
    )


# -- required members ------------------------------------------------------------------------------


def schema_required_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = [
        (where, name)
        for where, node in _locations(contract, kind, payload)
        if isinstance(_at(payload, where), dict)
        for name in sorted(index.object_view(node).required)
        if name in _at(payload, where)
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, name = chosen
    _delete(payload, (*where, name))
    return _Broken(payload, "schema-required", where, f"required member {name!r} removed at {_location(where) or '/'}")


def rule_required_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    choices = [
        (where, spec["element"])
        for spec in _rules(contract, kind)
        if spec["rule"] == "required"
        for value, where in values_at(payload, split_path(spec["path"]))
        if isinstance(value, dict) and value.get(spec["element"]) is not None
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, element = chosen
    _delete(payload, (*where, element))
    return _Broken(
        payload, "required-element-missing", where, f"{element!r}, required in context {kind.context}, removed"
    )


def _at(payload: Any, where: Where) -> Any:
    for token in where:
        payload = payload[token]
    return payload


# -- identifiers ------------------------------------------------------------------------------------


def _identifiers(payload: dict) -> list[int]:
    listed = payload.get("identifier")
    return [i for i, item in enumerate(listed) if isinstance(item, dict)] if isinstance(listed, list) else []


def _identifier_slot(draw: Draw, payload: dict) -> int:
    """An identifier of the payload to break, appended when it has none."""
    existing = _identifiers(payload)
    if existing:
        return draw(st.sampled_from(existing))
    payload.setdefault("identifier", []).append({})
    return len(payload["identifier"]) - 1


def _has_rule(contract: Contract, kind: PayloadKind, rule: str, path: str) -> bool:
    return any(spec["rule"] == rule and spec["path"] == path for spec in _rules(contract, kind))


def identifier_namespace_of_other_profile(
    draw: Draw, contract: Contract, kind: PayloadKind, payload: dict
) -> _Broken | None:
    if kind.profile is None or not _has_rule(contract, kind, "profile-namespace", "identifier"):
        return None
    own = set(contract.profiles[kind.profile].identifier_namespaces)
    others = [ns for ns in contract.namespaces.values() if is_installation(ns) and ns.key not in own]
    namespace = _pick(draw, others)
    if namespace is None:
        return None
    slot = _identifier_slot(draw, payload)
    payload["identifier"][slot] = {"system": namespace.system, "value": draw(values_of(namespace))}
    return _Broken(
        payload,
        "identifier-namespace-of-other-profile",
        ("identifier", slot, "system"),
        f"identifier in namespace {namespace.key}, which is not one of profile {kind.profile}",
    )


def identifier_system_not_uri(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = [
        where
        for where, node in _locations(contract, kind, payload)
        if index.type_name(node) == "Identifier" and isinstance(_at(payload, where), dict)
    ]
    where = _pick(draw, choices)
    if where is None and _declares_identifier(contract, kind):
        where = ("identifier", _identifier_slot(draw, payload))
        _at(payload, where)["value"] = draw(tokens())
    if where is None:
        return None
    system = draw(tokens())  # a token has no colon: no URI scheme
    _at(payload, where)["system"] = system
    return _Broken(payload, "schema-pattern", (*where, "system"), f"identifier system {system!r} is not a URI")


def _declares_identifier(contract: Contract, kind: PayloadKind) -> bool:
    root = _root(kind, contract)
    member = schema_index().object_view(root).properties.get("identifier") if root is not None else None
    return member is not None and member.schema is not False


def identifier_outside_installation(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    paths = [
        spec["path"]
        for spec in _rules(contract, kind)
        if spec["rule"] == "installation-identifier" and spec.get("mustBeInstallation")
    ]
    choices = [
        where for path in paths for value, where in values_at(payload, split_path(path)) if isinstance(value, dict)
    ]
    where = _pick(draw, choices)
    if where is None:
        return None
    registries = [ns.system for ns in contract.namespaces.values() if not is_installation(ns)]
    system = draw(st.sampled_from(registries)) if registries else "https://registry.invalid/id"
    _at(payload, where)["system"] = system
    return _Broken(
        payload,
        "identifier-not-installation-namespace",
        (*where, "system"),
        f"identifier system {system} is not an installation namespace",
    )


def installation_namespace_malformed(
    draw: Draw, contract: Contract, kind: PayloadKind, payload: dict
) -> _Broken | None:
    if not _has_rule(contract, kind, "installation-identifier", "identifier"):
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
    slot = _identifier_slot(draw, payload)
    payload["identifier"][slot] = {"system": system, "value": draw(tokens())}
    return _Broken(
        payload,
        "identifier-installation-malformed",
        ("identifier", slot, "system"),
        f"installation namespace {system} is not of the form <installation>.<key>",
    )


# -- schema structure ---------------------------------------------------------------------------------


def enum_value_outside(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = [
        (where, index.keyword(node, "enum"))
        for where, node in _locations(contract, kind, payload)
        if index.keyword(node, "enum") is not None
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, allowed = chosen
    value = draw(tokens().filter(lambda token: token not in allowed))
    _set(payload, where, value)
    return _Broken(payload, "schema-enum", where, f"{value!r} at {_location(where)} is none of {allowed}")


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


def wrong_json_type(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = [
        (where, types)
        for where, node in _locations(contract, kind, payload)
        if where and where != ("resourceType",)  # a resourceType of another type names another resource
        for types in [json_types(index, node)]
        if types is not None and index.keyword(node, "const") is None and index.keyword(node, "enum") is None
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, allowed = chosen
    wrong = draw(st.sampled_from(_wrong_types(allowed)))
    _set(payload, where, copy.deepcopy(_SAMPLES[wrong]))
    return _Broken(payload, "schema-type", where, f"a JSON {wrong} at {_location(where)}, where {sorted(allowed)} go")


def element_not_allowed(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = [
        (where, name)
        for where, node in _locations(contract, kind, payload)
        if isinstance(_at(payload, where), dict)
        for name, member in sorted(index.object_view(node).properties.items())
        if member.schema is False and name not in _at(payload, where)
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, name = chosen
    _at(payload, where)[name] = draw(json_values())
    return _Broken(payload, "schema-not-allowed", (*where, name), f"{name!r}, which the type forbids, added")


def unexpected_element(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    index = schema_index()
    choices = []
    for where, node in _locations(contract, kind, payload):
        view = index.object_view(node)
        if isinstance(_at(payload, where), dict) and view.closed and view.additional is None:
            choices.append((where, view))
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, view = chosen
    name = draw(member_names().filter(lambda n: n not in view.properties and n not in _at(payload, where)))
    _at(payload, where)[name] = draw(json_values())
    return _Broken(
        payload, "schema-unexpected-element", (*where, name), f"{name!r} added to a type with a complete element list"
    )


# -- profiles ---------------------------------------------------------------------------------------


def _without_evidence(contract: Contract, kind: PayloadKind, payload: dict, profiles: Iterable) -> None:
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


def profile_unrecognised(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    if recognition_severity(contract, kind.resource_type, kind.context) != "error":
        return None
    _without_evidence(contract, kind, payload, contract.profiles_of(kind.resource_type))
    return _Broken(payload, "profile-unrecognised", (), "meta.profile and every profile's evidence removed")


def profile_evidence_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    profile = contract.profiles.get(kind.profile or "")
    if profile is None or not profile.has_evidence_rule or kind.context not in profile.evidence_required_in:
        return None
    _without_evidence(contract, kind, payload, [profile])
    meta = payload.setdefault("meta", {})
    meta["profile"] = [*meta.get("profile", []), profile.url]
    where = ("url",) if profile.canonical_url else ("category",)
    return _Broken(
        payload, "profile-evidence-missing", where, f"claims {profile.name} in meta.profile without its evidence"
    )


def null_element_given(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    choices = [
        (where, spec["element"])
        for spec in _rules(contract, kind)
        if spec["rule"] == "null-or-absent"
        for value, where in values_at(payload, split_path(spec["path"])) or [(payload, ())]
        if isinstance(value, dict)
    ]
    chosen = _pick(draw, choices)
    if chosen is None:
        return None
    where, element = chosen
    _at(payload, where)[element] = draw(tokens())
    return _Broken(payload, "element-must-be-null", (*where, element), f"{element!r} given where it must be null")


# -- report orders ----------------------------------------------------------------------------------


def _operation(contract: Contract, kind: PayloadKind, payload: dict) -> dict[str, Any] | None:
    if kind.resource_type != "ReportOrder" or not isinstance(payload.get("parameters"), dict):
        return None
    return contract.operations.get(payload.get("reportId"))


def _integer_parameters(contract: Contract, kind: PayloadKind, payload: dict, bound: str | None = None) -> list:
    operation = _operation(contract, kind, payload)
    if operation is None:
        return []
    return [
        p
        for p in operation["parameter"]
        if p["type"] == "integer" and p["name"] in payload["parameters"] and (bound is None or bound in p)
    ]


_FAR = 10**6
"""How far out of range a parameter goes: far enough to be plainly out, short enough to stay a number
the validator reads as one (it takes written integers of at most 20 characters)."""


def parameter_above_maximum(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    definition = _pick(draw, _integer_parameters(contract, kind, payload, "maximum"))
    if definition is None:
        return None
    value = draw(st.just(definition["maximum"] + 1) | st.integers(definition["maximum"] + 1, _FAR))
    payload["parameters"][definition["name"]] = str(value)
    return _Broken(
        payload,
        "report-parameter-out-of-range",
        ("parameters", definition["name"]),
        f"{definition['name']} {value}, above its maximum {definition['maximum']}",
    )


def parameter_below_minimum(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    definition = _pick(draw, _integer_parameters(contract, kind, payload, "minimum"))
    if definition is None:
        return None
    value = draw(st.just(definition["minimum"] - 1) | st.integers(-_FAR, definition["minimum"] - 1))
    payload["parameters"][definition["name"]] = str(value)
    return _Broken(
        payload,
        "report-parameter-out-of-range",
        ("parameters", definition["name"]),
        f"{definition['name']} {value}, below its minimum {definition['minimum']}",
    )


def _not_integers() -> st.SearchStrategy[str]:
    decimals = st.integers(0, 9999).map(lambda n: f"{n}.5")
    words = st.text(string.ascii_letters, min_size=1, max_size=8)
    return st.one_of(decimals, words, st.just(""))


def parameter_not_integer(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    definition = _pick(draw, _integer_parameters(contract, kind, payload))
    if definition is None:
        return None
    value = draw(_not_integers())
    payload["parameters"][definition["name"]] = value
    return _Broken(
        payload,
        "report-parameter-not-integer",
        ("parameters", definition["name"]),
        f"{definition['name']} {value!r} is not an integer",
    )


def _public_key_replaced(kind: PayloadKind, payload: dict, pem: str, code: str, what: str) -> _Broken | None:
    if kind.resource_type != "ReportOrder" or "publicKeyPem" not in payload:
        return None
    payload["publicKeyPem"] = pem
    return _Broken(payload, code, ("publicKeyPem",), f"publicKeyPem holds {what}")


def public_key_is_certificate(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    return _public_key_replaced(
        kind, payload, certificate_pem(), "report-public-key-is-certificate", "a self-signed certificate"
    )


def public_key_is_private(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    return _public_key_replaced(kind, payload, private_key_pem(), "report-public-key-is-private", "a private key")


def run_at_not_utc(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    if kind.resource_type != "ReportOrder" or not isinstance(payload.get("runAt"), str):
        return None
    offset = draw(st.sampled_from(["+02:00", "-05:30", ""]))  # another zone, or none at all
    payload["runAt"] = payload["runAt"].removesuffix("Z").removesuffix("+00:00") + offset
    return _Broken(payload, "report-runat-not-utc", ("runAt",), f"runAt {payload['runAt']!r} is not in UTC")


def report_id_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> _Broken | None:
    if kind.resource_type != "ReportOrder" or "reportId" not in payload:
        return None
    del payload["reportId"]
    return _Broken(payload, "report-id-missing", (), "reportId removed")


def _has_schema_feature(feature: str) -> Applies:
    def applies(contract: Contract, kind: PayloadKind) -> bool:
        schema = contract.resources[kind.resource_type].schema
        return schema is not None and feature in features(schema.removesuffix(".schema.json"))

    return applies


def _has_rules(rule: str, **conditions: Any) -> Applies:
    def applies(contract: Contract, kind: PayloadKind) -> bool:
        return any(
            spec["rule"] == rule and all(spec.get(key) == value for key, value in conditions.items())
            for spec in _rules(contract, kind)
        )

    return applies


def _is_report_order(contract: Contract, kind: PayloadKind) -> bool:
    return kind.resource_type == "ReportOrder"


def _needs_profile(contract: Contract, kind: PayloadKind) -> bool:
    return recognition_severity(contract, kind.resource_type, kind.context) == "error"


def _shows_evidence(contract: Contract, kind: PayloadKind) -> bool:
    profile = contract.profiles.get(kind.profile or "")
    return profile is not None and profile.has_evidence_rule and kind.context in profile.evidence_required_in


def _has_required_binding(contract: Contract, kind: PayloadKind) -> bool:
    return bool(_required_bindings(contract, kind))


@dataclass(frozen=True)
class _Fault:
    applies: Applies
    """Whether the fault can apply to payloads of a kind at all (the payload may still lack the place)."""
    apply: Fault


FAULTS: dict[str, _Fault] = {
    "code-outside-required-binding": _Fault(_has_required_binding, code_outside_required_binding),
    "no-coding-from-required-binding": _Fault(_has_required_binding, no_coding_from_required_binding),
    "schema-required-missing": _Fault(_has_schema_feature("required"), schema_required_missing),
    "rule-required-missing": _Fault(_has_rules("required"), rule_required_missing),
    "identifier-namespace-of-other-profile": _Fault(
        _has_rules("profile-namespace", path="identifier"), identifier_namespace_of_other_profile
    ),
    "identifier-system-not-uri": _Fault(_has_schema_feature("$ref"), identifier_system_not_uri),
    "identifier-outside-installation": _Fault(
        _has_rules("installation-identifier", mustBeInstallation=True), identifier_outside_installation
    ),
    "installation-namespace-malformed": _Fault(
        _has_rules("installation-identifier", path="identifier"), installation_namespace_malformed
    ),
    "enum-value-outside": _Fault(_has_schema_feature("enum"), enum_value_outside),
    "wrong-json-type": _Fault(_has_schema_feature("type"), wrong_json_type),
    "element-not-allowed": _Fault(_has_schema_feature(FORBIDDEN_MEMBER), element_not_allowed),
    "unexpected-element": _Fault(_has_schema_feature(CLOSED_OBJECT), unexpected_element),
    "profile-unrecognised": _Fault(_needs_profile, profile_unrecognised),
    "profile-evidence-missing": _Fault(_shows_evidence, profile_evidence_missing),
    "null-element-given": _Fault(_has_rules("null-or-absent"), null_element_given),
    "parameter-above-maximum": _Fault(_is_report_order, parameter_above_maximum),
    "parameter-below-minimum": _Fault(_is_report_order, parameter_below_minimum),
    "parameter-not-integer": _Fault(_is_report_order, parameter_not_integer),
    "public-key-is-certificate": _Fault(_is_report_order, public_key_is_certificate),
    "public-key-is-private": _Fault(_is_report_order, public_key_is_private),
    "run-at-not-utc": _Fault(_is_report_order, run_at_not_utc),
    "report-id-missing": _Fault(_is_report_order, report_id_missing),
}
"""Every fault the mutations apply, by name."""


def applicable_faults(contract: Contract, kind: PayloadKind) -> tuple[str, ...]:
    """The faults that can apply to payloads of `kind`."""
    return tuple(name for name, fault in FAULTS.items() if fault.applies(contract, kind))


def mutations(
    contract: Contract,
    kind: PayloadKind | None = None,
    *,
    faults: Iterable[str] | None = None,
) -> st.SearchStrategy[Mutation]:
    """Valid payloads of `kind` (default: any kind) with exactly one fault of `faults` (default: any)."""
    chosen = list(FAULTS) if faults is None else list(faults)
    unknown = [name for name in chosen if name not in FAULTS]
    if unknown:
        raise ValueError(f"unknown faults {unknown}; known: {', '.join(FAULTS)}")
    candidates = [kind] if kind is not None else list(payload_kinds(contract))
    faults_of = {k: [n for n in applicable_faults(contract, k) if n in chosen] for k in candidates}
    kinds_of = {name: [k for k in candidates if name in faults_of[k]] for name in chosen}
    usable = [name for name in chosen if kinds_of[name]]
    if not usable:
        raise ValueError(f"no fault of {chosen} applies to {', '.join(k.name for k in candidates)}")
    sources = {k: valid_payload(contract, k) for k in candidates if faults_of[k]}

    @st.composite
    def mutation(draw: Draw) -> Mutation:
        # the fault first, then a kind it applies to: every fault gets its share, however few kinds it has
        first = draw(st.sampled_from(usable))
        picked = draw(st.sampled_from(kinds_of[first]))
        payload = draw(sources[picked])
        others = draw(st.permutations([n for n in faults_of[picked] if n != first]))
        for name in [first, *others]:
            broken = FAULTS[name].apply(draw, contract, picked, copy.deepcopy(payload))
            if broken is not None:
                return Mutation(broken.payload, broken.code, _location(broken.where), broken.description, name, picked)
        reject()  # this payload has no place for any of the faults: hypothesis draws another

    return mutation()
