"""The shared terminology and the implementation-defined value sets (profiles/terminology).

One ValueSet per file, `profiles/terminology/<path>.json`, canonical url `{vocab_url}/<path>`
with the installation placeholders written literally. The tables below are transcribed from the
contract (spec/interface-specification.md), each row with the section it comes from, so adding or
dropping a code, or closing a set the contract leaves open, fails here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from project_paths import ROOT

TERMINOLOGY = ROOT / "profiles" / "terminology"
SCHEMAS = ROOT / "schemas"

RESOURCES = "Resources and their fields"

# Sets whose codes the contract lists: path -> (section, codes).
LISTED_CODES: dict[str, tuple[str, set[str]]] = {
    "party-status": (
        f"{RESOURCES} > Party > Bindings of coded Party fields",
        {"active", "inactive", "deleted"},
    ),
    "party-type": (
        f"{RESOURCES} > Party > Bindings of coded Party fields",
        {"finance", "assets", "hr"},
    ),
    "party-kind": (
        f"{RESOURCES} > Party > Profiles",
        {"employee", "employer", "contractor", "asset-holder"},
    ),
    "party-name": (
        f"{RESOURCES} > Party > Bindings of coded Party fields",
        {"finance", "warehouse", "assets", "hr"},
    ),
    "party-attribute-type": (
        f"{RESOURCES} > Party > Bindings of coded Party fields",
        {"finance", "warehouse", "assets"},
    ),
    "assets/location-category": (
        f"{RESOURCES} > Location (read-only)",
        {"usage-place"},
    ),
    "fixed-asset-document-status": (
        f"{RESOURCES} > Fixed-asset resources; States and transitions",
        {"open", "closed", "posted"},
    ),
    "fixed-asset-document-workflow-attribute": (
        f"{RESOURCES} > Fixed-asset resources; Endpoints > Fixed assets",
        {"workflow-status", "workflow-link", "workflow-system"},
    ),
    "grant-assignment-attribute-type": (
        f"{RESOURCES} > GrantAssignment (read-only)",
        {"direct-only", "employment-id", "order-path"},
    ),
    "notification-status": (
        f"{RESOURCES} > Notification; States and transitions",
        {"completed", "failed", "pending"},
    ),
    "notification-operation": (
        f"{RESOURCES} > Notification",
        {"created", "updated", "deleted"},
    ),
    "document-space": (
        f"{RESOURCES} > DocumentReference",
        {"hr"},
    ),
    "document-attribute-type": (
        f"{RESOURCES} > DocumentReference",
        {"finance", "hr", "warehouse"},
    ),
    "hr/document-category": (
        f"{RESOURCES} > DocumentReference (profile HrInboxDocument)",
        {"hr-inbox-document"},
    ),
    "warehouse/document-category": (
        f"{RESOURCES} > DocumentReference (profile WarehouseDocument)",
        {"warehouse-document"},
    ),
    "warehouse/document-position-type": (
        f"{RESOURCES} > DocumentReference > Position segment codes",
        {"order-line", "vat-summary-line", "goods-receipt-line", "goods-issue-line"},
    ),
    "finance/document-position-type": (
        f"{RESOURCES} > DocumentReference > Position segment codes",
        {"accounting-item", "vat-summary"},
    ),
}

# Sets the contract names without listing codes: path -> section. They stay open (an include
# without `concept`: every code of the system), so an implementation is free in what is not shown.
CODES_NOT_SHOWN: dict[str, str] = {
    "party-category": f"{RESOURCES} > Party > Bindings of coded Party fields",
    "address-use": f"{RESOURCES} > Party",
    "address-type": f"{RESOURCES} > Party",
    "address-component-type": f"{RESOURCES} > Party",
    "contact-point-system": f"{RESOURCES} > Party",
    "identifier-type": f"{RESOURCES} > Shared types (Identifier.type, v2-0203)",
    "fixed-asset-status": f"{RESOURCES} > Fixed-asset resources",
    "fixed-asset-allocation-dimension": f"{RESOURCES} > Fixed-asset resources",
    "capability-code": f"{RESOURCES} > Capability (read-only)",
    "hr/document-type": "Endpoints > Document envelopes",
    "warehouse/document-type": "Endpoints > Document envelopes",
    "warehouse/document-status": "Endpoints > Document envelopes",
    "finance/document-type": "Endpoints > Document envelopes; Errors",
}

# Implementation-defined value sets: path -> profile
# (Resources and their fields > ValueSet (read-only), table of implementation-defined sets).
IMPLEMENTATION_DEFINED: dict[str, str] = {
    "employment-type": "EmploymentTypeValueSet",
    "hr-inbox-document-type": "InboxDocumentTypeValueSet",
    "organization-assignment-hierarchy-level": "OrganizationAssignmentHierarchyLevelValueSet",
    "specialty": "SpecialtyValueSet",
    "unit-of-measure": "UnitOfMeasureValueSet",
    "esm-attribute": "AssetAttributeValueSet",
    "asset-kind": "AssetKindValueSet",
    "esm-document-type": "AssetDocumentTypeValueSet",
}

# Systems outside {vocab_url} that the contract names.
EXTERNAL_SYSTEMS = {"identifier-type": "http://terminology.hl7.org/CodeSystem/v2-0203"}

# Example values of the placeholders, for schema validation only.
EXAMPLE_PLACEHOLDERS = {
    "{vocab_url}": "https://erp.example.com/fhir/vocab",
    "{ns_url}": "https://erp.example.com/fhir",
    # an implementation-defined set is fixed at deployment: its owner is the installation's own organization
    "{nip_system}": "https://erp.example.com/fhir/id/nip",
}

FILES = sorted(TERMINOLOGY.rglob("*.json"))


def _path_of(file: Path) -> str:
    return file.relative_to(TERMINOLOGY).with_suffix("").as_posix()


def _load(file: Path) -> dict[str, Any]:
    return json.loads(file.read_text(encoding="utf-8"))


def _codes(value_set: dict[str, Any]) -> list[str]:
    return [
        concept["code"]
        for include in value_set.get("compose", {}).get("include", [])
        for concept in include.get("concept", [])
    ]


def _substitute(value: Any) -> Any:
    if isinstance(value, str):
        for placeholder, example in EXAMPLE_PLACEHOLDERS.items():
            value = value.replace(placeholder, example)
        return value
    if isinstance(value, list):
        return [_substitute(item) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item) for key, item in value.items()}
    return value


VALUE_SETS = {_path_of(file): _load(file) for file in FILES}
each_value_set = pytest.mark.parametrize(("path", "value_set"), list(VALUE_SETS.items()), ids=list(VALUE_SETS))


def test_tables_do_not_overlap():
    tables = [set(LISTED_CODES), set(CODES_NOT_SHOWN), set(IMPLEMENTATION_DEFINED)]
    counts = Counter(path for table in tables for path in table)
    assert [path for path, n in counts.items() if n > 1] == []


def test_every_file_is_in_a_table_and_every_table_row_has_a_file():
    expected = set(LISTED_CODES) | set(CODES_NOT_SHOWN) | set(IMPLEMENTATION_DEFINED)
    assert set(VALUE_SETS) == expected


def test_ids_are_unique():
    counts = Counter(value_set.get("id") for value_set in VALUE_SETS.values())
    assert [value_set_id for value_set_id, n in counts.items() if n > 1] == []


@each_value_set
def test_is_a_value_set_named_by_its_path(path, value_set):
    assert value_set["resourceType"] == "ValueSet"
    assert value_set["url"] == "{vocab_url}/" + path
    assert value_set["id"] == path.replace("/", "-")
    assert isinstance(value_set.get("title"), str) and value_set["title"]
    assert 'Contract: "' in value_set.get("description", ""), "description quotes the contract"


@each_value_set
def test_placeholders_are_the_contract_ones(path, value_set):
    placeholders = set(re.findall(r"\{[a-z_]+\}", json.dumps(value_set)))
    assert placeholders <= set(EXAMPLE_PLACEHOLDERS)


@each_value_set
def test_include_systems(path, value_set):
    includes = value_set["compose"]["include"]
    assert includes, "compose.include is not empty"
    for include in includes:
        system = include["system"]
        assert system.startswith("{vocab_url}/") or re.match(r"https?://", system)
        if system.startswith("{vocab_url}/"):
            assert system == value_set["url"], "a set of the kit draws on its own code system"
        else:
            assert EXTERNAL_SYSTEMS.get(path) == system


@each_value_set
def test_codes_are_unique_and_displayed(path, value_set):
    codes = _codes(value_set)
    assert [code for code, n in Counter(codes).items() if n > 1] == []
    for include in value_set["compose"]["include"]:
        for concept in include.get("concept", []):
            assert set(concept) <= {"code", "display"}
            assert isinstance(concept["code"], str) and concept["code"].strip() == concept["code"]
            assert isinstance(concept.get("display"), str) and concept["display"]


@each_value_set
def test_version_marks_shared_and_implementation_defined_sets(path, value_set):
    if "profile" in value_set.get("meta", {}):
        assert value_set["version"] is None
    else:
        assert isinstance(value_set.get("version"), str) and value_set["version"]
        assert value_set.get("immutable") is True


@pytest.mark.parametrize("path", sorted(LISTED_CODES))
def test_listed_codes_are_exactly_the_contract_codes(path):
    section, expected = LISTED_CODES[path]
    codes = _codes(VALUE_SETS[path])
    assert set(codes) == expected, f"codes of {path} differ from the contract ({section})"
    assert len(codes) == len(expected)


@pytest.mark.parametrize("path", sorted(CODES_NOT_SHOWN))
def test_sets_without_contract_codes_stay_open(path):
    value_set = VALUE_SETS[path]
    assert all("concept" not in include for include in value_set["compose"]["include"]), (
        f"{path}: codes not shown in the contract ({CODES_NOT_SHOWN[path]}); the include must name the whole system"
    )
    assert "codes not shown in the contract" in value_set["description"].lower()
    assert value_set["version"] is not None


@pytest.mark.parametrize("path", sorted(IMPLEMENTATION_DEFINED))
def test_implementation_defined_sets_carry_their_profile(path):
    value_set = VALUE_SETS[path]
    profile = IMPLEMENTATION_DEFINED[path]
    assert value_set["meta"]["profile"] == [f"{{ns_url}}/StructureDefinition/{profile}"]
    assert value_set["version"] is None
    assert _codes(value_set), "the default installation ships sample content"
    description = value_set["description"]
    assert "content fixed at deployment" in description
    assert "sample content of the default installation" in description


def test_only_implementation_defined_sets_carry_a_profile():
    with_profile = {path for path, vs in VALUE_SETS.items() if "profile" in vs.get("meta", {})}
    assert with_profile == set(IMPLEMENTATION_DEFINED)


@cache
def _value_set_validator():
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    schemas = [_load(file) for file in sorted(SCHEMAS.glob("*.schema.json"))]
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
        for schema in schemas
        if "$id" in schema
    )
    schema = _load(SCHEMAS / "ValueSet.schema.json")
    return Draft202012Validator(schema, registry=registry)


@pytest.mark.skipif(
    not (SCHEMAS / "ValueSet.schema.json").exists(),
    reason="schemas/ValueSet.schema.json is not written yet",
)
@each_value_set
def test_conforms_to_the_value_set_schema(path, value_set):
    validator = _value_set_validator()
    errors = [f"{error.json_path}: {error.message}" for error in validator.iter_errors(_substitute(value_set))]
    assert errors == []
