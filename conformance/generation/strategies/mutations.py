"""Single-fault mutations: a valid payload with exactly one fault, and the issue (code and JSON
Pointer) the validator must report for it.

Each fault (schema_faults.py, rule_faults.py, report_faults.py) looks at the kind and the payload
and either declines (the payload has no place for it) or returns the broken copy. Faults find where
they apply from the same data as the valid payloads: the schema files, the rule rows of the
profiles and the operation definitions of the reports.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from conformance.generation.strategies import report_faults, rule_faults, schema_faults
from conformance.generation.strategies.fault_support import Applies, Draw, Fault, location_of, rules_in_context
from conformance.generation.strategies.kinds import PayloadKind, payload_kinds, valid_payload
from conformance.generation.strategies.recognition import recognition_severity
from conformance.generation.strategies.schema_index import CLOSED_OBJECT, FORBIDDEN_MEMBER, features
from profiles import Contract


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


def _has_schema_feature(feature: str) -> Applies:
    def applies(contract: Contract, kind: PayloadKind) -> bool:
        schema = contract.resources[kind.resource_type].schema
        return schema is not None and feature in features(schema.removesuffix(".schema.json"))

    return applies


def _has_rules(rule: str, **conditions: Any) -> Applies:
    def applies(contract: Contract, kind: PayloadKind) -> bool:
        return any(
            spec["rule"] == rule and all(spec.get(key) == value for key, value in conditions.items())
            for spec in rules_in_context(contract, kind)
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
    return bool(rule_faults.required_bindings(contract, kind))


@dataclass(frozen=True)
class _Fault:
    applies: Applies
    """Whether the fault can apply to payloads of a kind at all (the payload may still lack the place)."""
    apply: Fault


FAULTS: dict[str, _Fault] = {
    "code-outside-required-binding": _Fault(_has_required_binding, rule_faults.code_outside_required_binding),
    "no-coding-from-required-binding": _Fault(_has_required_binding, rule_faults.no_coding_from_required_binding),
    "schema-required-missing": _Fault(_has_schema_feature("required"), schema_faults.schema_required_missing),
    "rule-required-missing": _Fault(_has_rules("required"), rule_faults.rule_required_missing),
    "identifier-namespace-of-other-profile": _Fault(
        _has_rules("profile-namespace", path="identifier"), rule_faults.identifier_namespace_of_other_profile
    ),
    "identifier-system-not-uri": _Fault(_has_schema_feature("$ref"), schema_faults.identifier_system_not_uri),
    "identifier-outside-installation": _Fault(
        _has_rules("installation-identifier", mustBeInstallation=True), rule_faults.identifier_outside_installation
    ),
    "installation-namespace-malformed": _Fault(
        _has_rules("installation-identifier", path="identifier"), rule_faults.installation_namespace_malformed
    ),
    "enum-value-outside": _Fault(_has_schema_feature("enum"), schema_faults.enum_value_outside),
    "wrong-json-type": _Fault(_has_schema_feature("type"), schema_faults.wrong_json_type),
    "element-not-allowed": _Fault(_has_schema_feature(FORBIDDEN_MEMBER), schema_faults.element_not_allowed),
    "unexpected-element": _Fault(_has_schema_feature(CLOSED_OBJECT), schema_faults.unexpected_element),
    "profile-unrecognised": _Fault(_needs_profile, rule_faults.profile_unrecognised),
    "profile-evidence-missing": _Fault(_shows_evidence, rule_faults.profile_evidence_missing),
    "null-element-given": _Fault(_has_rules("null-or-absent"), rule_faults.null_element_given),
    "parameter-above-maximum": _Fault(_is_report_order, report_faults.parameter_above_maximum),
    "parameter-below-minimum": _Fault(_is_report_order, report_faults.parameter_below_minimum),
    "parameter-not-integer": _Fault(_is_report_order, report_faults.parameter_not_integer),
    "public-key-is-certificate": _Fault(_is_report_order, report_faults.public_key_is_certificate),
    "public-key-is-private": _Fault(_is_report_order, report_faults.public_key_is_private),
    "run-at-not-utc": _Fault(_is_report_order, report_faults.run_at_not_utc),
    "report-id-missing": _Fault(_is_report_order, report_faults.report_id_missing),
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
                where = location_of(broken.where)
                return Mutation(broken.payload, broken.code, where, broken.description, name, picked)
        reject()  # this payload has no place for any of the faults: hypothesis draws another

    return mutation()
