"""The profile data is consistent: every rule, value set, namespace and requirement it names exists."""

import tomllib
from collections import Counter

import pytest
from project_paths import ROOT

from profiles import load_contract, standard_rules
from profiles.validator import Validator
from schemas import load_schemas

CONTRACT = load_contract()
REQUIREMENTS = tomllib.loads((ROOT / "conformance" / "catalogue" / "requirements.toml").read_text())["requirement"]
REQUIREMENT_IDS = {row["id"] for row in REQUIREMENTS}
ALL_RULES = [
    (owner, spec)
    for owner, rules in [
        *((name, r.rules) for name, r in CONTRACT.resources.items()),
        *((name, p.rules) for name, p in CONTRACT.profiles.items()),
    ]
    for spec in rules
]


def test_requirement_ids_are_unique_and_well_formed():
    counts = Counter(row["id"] for row in REQUIREMENTS)
    assert [rid for rid, n in counts.items() if n > 1] == []
    for row in REQUIREMENTS:
        assert row["id"].startswith("ERIS-") and row["level"] in {"MUST", "SHOULD", "INFO"}
        assert row["section"] and row["text"]


@pytest.mark.parametrize(("owner", "spec"), ALL_RULES, ids=lambda x: x if isinstance(x, str) else x["rule"])
def test_every_rule_names_a_known_function_and_requirement(owner, spec):
    assert spec["rule"] in standard_rules()
    assert spec.get("requirement") in REQUIREMENT_IDS


def test_every_binding_names_a_value_set_of_the_terminology():
    missing = {spec["valueSet"] for _, spec in ALL_RULES if spec["rule"] == "binding"} - set(CONTRACT.value_sets)
    assert missing == set()


def test_every_profile_recognition_code_is_in_a_value_set():
    for profile in CONTRACT.profiles.values():
        for system, code in profile.category_codings:
            assert CONTRACT.value_sets[system].contains(system, code), profile.name
        if profile.canonical_url:
            assert profile.canonical_url in CONTRACT.value_sets, profile.name
        assert set(profile.identifier_namespaces) <= {ns.key for ns in CONTRACT.namespaces.values()}
        assert profile.requirement in REQUIREMENT_IDS


def test_every_resource_type_has_its_schema():
    schemas = load_schemas()
    for rules in CONTRACT.resources.values():
        assert rules.schema and rules.schema.removesuffix(".schema.json") in schemas, rules.resource_type


def test_every_installation_namespace_key_is_configured():
    assert {ns.key for ns in CONTRACT.namespaces.values() if ns.system.startswith("urn:oid:")} == set(
        CONTRACT.installation.namespace_keys
    )


def test_validator_refuses_profile_data_naming_an_unknown_rule():
    broken = load_contract()
    rules = broken.resources["Party"]
    object.__setattr__(rules, "rules", (*rules.rules, {"rule": "no-such-rule", "path": ""}))
    with pytest.raises(ValueError, match="no-such-rule"):
        Validator(broken)
