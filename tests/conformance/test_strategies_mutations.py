"""The single-fault mutations of conformance/generation/strategies: the validator reports each one with the
expected issue code at the expected JSON Pointer, and the faults cover the list the conformance
kit promises (a test fails when one of them goes missing)."""

from __future__ import annotations

from typing import Any

import pytest
from budgets import COSTLY
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from conformance.generation.strategies import FAULTS, Mutation, applicable_faults, mutations, payload_kinds
from profiles import load_contract
from profiles.validator import Validator

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
VOCAB = CONTRACT.installation.values["vocab_url"]
FAULT_STRATEGIES = {name: mutations(CONTRACT, faults=[name]) for name in FAULTS}


def _reported(mutation: Mutation) -> list[tuple[str, str, str]]:
    issues = VALIDATOR.validate(mutation.payload, **mutation.kind.validate_options())
    return [(issue.code, issue.location, issue.severity.value) for issue in issues]


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(mutation=mutations(CONTRACT))
def test_every_mutation_is_reported_with_its_code_at_its_location(mutation):
    assert (mutation.expected_code, mutation.location, "error") in _reported(mutation), mutation.description


@pytest.mark.parametrize("fault", sorted(FAULTS))
@settings(COSTLY, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_each_fault_is_reported_wherever_it_applies(fault, data):
    mutation = data.draw(FAULT_STRATEGIES[fault])
    assert mutation.fault == fault
    assert (mutation.expected_code, mutation.location, "error") in _reported(mutation), mutation.description


def _coding(mutation: Mutation, element: str) -> str | None:
    concept = mutation.payload.get(element)
    codings = concept.get("coding") if isinstance(concept, dict) else None
    return codings[0].get("system") if codings else None


def _code_outside(resource_type: str, element: str, value_set: str):
    return lambda m: m.kind.resource_type == resource_type and _coding(m, element) == f"{VOCAB}/{value_set}"


def _party_write(m: Mutation) -> bool:
    return m.kind.operation is not None and m.kind.resource_type == "Party"


def _report(predicate):
    return lambda m: m.kind.resource_type == "ReportOrder" and predicate(m.payload)


PROMISED = [
    # (what the kit promises, the fault, the issue code, a mutation that shows it)
    ("party status outside party-status", "code-outside-required-binding", "binding-code-not-in-value-set",
     _code_outside("Party", "status", "party-status")),
    ("party type outside party-type", "code-outside-required-binding", "binding-code-not-in-value-set",
     _code_outside("Party", "type", "party-type")),
    ("notification status outside notification-status", "code-outside-required-binding",
     "binding-code-not-in-value-set", _code_outside("Notification", "status", "notification-status")),
    ("notification operation outside notification-operation", "code-outside-required-binding",
     "binding-code-not-in-value-set", _code_outside("Notification", "operation", "notification-operation")),
    ("document status outside fixed-asset-document-status", "code-outside-required-binding",
     "binding-code-not-in-value-set", _code_outside("FixedAssetDocument", "status", "fixed-asset-document-status")),
    ("no coding from a required value set", "no-coding-from-required-binding", "binding-no-coding-from-value-set",
     lambda m: True),
    ("a member the schema requires is missing", "schema-required-missing", "schema-required",
     lambda m: m.kind.resource_type == "Notification"),
    ("an element a rule requires is missing", "rule-required-missing", "required-element-missing",
     lambda m: m.kind.name == "updateDocumentReference"),
    ("a served identifier without value", "rule-required-missing", "required-element-missing",
     lambda m: m.location.startswith("/identifier/")),
    ("an identifier in the namespace of another profile", "identifier-namespace-of-other-profile",
     "identifier-namespace-of-other-profile", lambda m: True),
    ("an identifier system that is not a URI", "identifier-system-not-uri", "schema-pattern",
     lambda m: m.location.startswith("/identifier/")),
    ("a notification naming its resource outside the installation namespaces", "identifier-outside-installation",
     "identifier-not-installation-namespace", lambda m: m.location == "/reference/identifier/system"),
    ("a malformed installation namespace", "installation-namespace-malformed", "identifier-installation-malformed",
     lambda m: True),
    ("Month 13", "parameter-above-maximum", "report-parameter-out-of-range",
     _report(lambda order: order["parameters"]["Month"] == "13")),
    ("Month 0", "parameter-below-minimum", "report-parameter-out-of-range",
     _report(lambda order: order["parameters"]["Month"] == "0")),
    ("a Year that is not an integer", "parameter-not-integer", "report-parameter-not-integer",
     lambda m: m.location == "/parameters/Year"),
    ("a certificate instead of a public key", "public-key-is-certificate", "report-public-key-is-certificate",
     _report(lambda order: order["publicKeyPem"].startswith("-----BEGIN CERTIFICATE-----"))),
    ("a private key instead of a public key", "public-key-is-private", "report-public-key-is-private", lambda m: True),
    ("no publicKeyPem", "schema-required-missing", "schema-required",
     _report(lambda order: "publicKeyPem" not in order)),
    ("an unknown storage type", "enum-value-outside", "schema-enum", lambda m: m.location == "/storage/type"),
    ("a format other than parquet or csv", "enum-value-outside", "schema-enum", lambda m: m.location == "/format"),
    ("a runAt not in UTC", "run-at-not-utc", "report-runat-not-utc", lambda m: True),
    ("no reportId", "report-id-missing", "report-id-missing", lambda m: True),
    ("contained in a Notification", "element-not-allowed", "schema-not-allowed",
     lambda m: m.kind.resource_type == "Notification" and m.location == "/contained"),
    ("identifier in a Notification", "element-not-allowed", "schema-not-allowed",
     lambda m: m.kind.resource_type == "Notification" and m.location == "/identifier"),
    ("a party write without a recognised profile", "profile-unrecognised", "profile-unrecognised", _party_write),
    ("a claimed profile without its evidence", "profile-evidence-missing", "profile-evidence-missing",
     lambda m: True),
    ("an implementation-defined value set with a version", "null-element-given", "element-must-be-null",
     lambda m: m.location == "/version"),
    ("an element of the wrong JSON type", "wrong-json-type", "schema-type", lambda m: True),
    ("an element outside a complete element list", "unexpected-element", "schema-unexpected-element",
     lambda m: m.kind.resource_type == "Party"),
]  # fmt: skip


ONE_KIND = {"an element a rule requires is missing": "updateDocumentReference"}
"""Promises shown by one kind of payload: searched in that kind only (among every kind, 300 draws may miss it)."""


def _searched(promise: str, fault: str) -> Any:
    if promise not in ONE_KIND:
        return FAULT_STRATEGIES[fault]
    kind = next(k for k in payload_kinds(CONTRACT) if k.name == ONE_KIND[promise])
    return mutations(CONTRACT, kind, faults=[fault])


@pytest.mark.parametrize(("promise", "fault", "code", "shows"), PROMISED, ids=[row[0] for row in PROMISED])
def test_the_mutations_cover_every_promised_fault(promise, fault, code, shows):
    assert fault in FAULTS, f"no fault {fault!r} for {promise}"
    found = find(
        _searched(promise, fault),
        shows,
        # no shrinking: any example that shows the fault will do
        settings=settings(
            max_examples=300,
            database=None,
            derandomize=True,  # the same examples every run: a fault shown once is shown in CI too
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert found.expected_code == code
    assert (found.expected_code, found.location, "error") in _reported(found), found.description


def test_every_fault_applies_to_some_kind():
    applicable = {name for kind in payload_kinds(CONTRACT) for name in applicable_faults(CONTRACT, kind)}
    assert applicable == set(FAULTS)


def test_an_unknown_fault_is_refused():
    with pytest.raises(ValueError, match="unknown faults"):
        mutations(CONTRACT, faults=["month-14"])
