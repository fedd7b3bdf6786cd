"""The valid-payload strategies of conformance/generation/strategies: every kind they draw passes the validator,
and they follow the contract data wherever it grows (schema keywords, rule functions, identifier
formats, profiles, writes, reports)."""

from __future__ import annotations

import json
import re

import pytest
from budgets import COSTLY
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from hypothesis import given
from hypothesis import strategies as st

from conformance.generation.strategies import (
    KEY_SIZES,
    payload_kinds,
    public_key_pem,
    public_key_pems,
    registry_values,
    report_order,
    valid_payload,
    valid_resource,
    valid_write,
    write_operations,
)
from conformance.generation.strategies.primitives import primitive
from conformance.generation.strategies.reports import HONOURED_RULES as REPORT_RULES
from conformance.generation.strategies.resources import HONOURED_RULES as RESOURCE_RULES
from conformance.generation.strategies.schema_index import KNOWN_KEYWORDS, schema_index
from profiles import load_contract, load_installation, standard_rules
from profiles.identifier_formats import FORMATS, conforms
from profiles.validator import RESOURCE, WRITE, Validator

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
KINDS = payload_kinds(CONTRACT)
STRATEGIES = {kind: valid_payload(CONTRACT, kind) for kind in KINDS}
BY_PROFILE = {
    name: valid_resource(CONTRACT, profile.resource_type, profile=name) for name, profile in CONTRACT.profiles.items()
}
WAREHOUSE_TARGET = {"system": CONTRACT.installation_namespace_key("document-reference"), "value": "WD-2025-0001"}


def _errors(payload, **options):
    return [
        f"{issue.location or '/'}: {issue.code}: {issue.message}"
        for issue in VALIDATOR.validate(payload, **options)
        if issue.is_error
    ]


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
@COSTLY
@given(data=st.data())
def test_every_drawn_payload_passes_the_validator(kind, data):
    payload = data.draw(STRATEGIES[kind])
    assert json.loads(json.dumps(payload)) == payload  # plain JSON, as it travels
    assert _errors(payload, **kind.validate_options()) == []


def test_the_kinds_cover_every_resource_type_profile_and_write():
    served = {(kind.resource_type, kind.profile) for kind in KINDS if kind.operation is None}
    assert {resource_type for resource_type, _ in served} == set(VALIDATOR.resource_types)
    assert {profile for _, profile in served if profile} == set(CONTRACT.profiles)
    assert {kind.operation for kind in KINDS if kind.operation} == set(write_operations(CONTRACT))
    names = [kind.name for kind in KINDS]
    assert len(names) == len(set(names))


def test_writes_follow_openapi_and_the_writable_profiles():
    found = {
        (o.operation_id, o.method, o.path, o.resource_type, o.profile, o.context) for o in write_operations(CONTRACT)
    }
    assert found == {
        ("createParty", "POST", "/v1/parties", "Party", "Contractor", WRITE),
        ("updateParty", "PATCH", "/v1/parties", "Party", "Contractor", WRITE),
        ("createFixedAssetDocument", "POST", "/v1/fixed-asset-documents", "FixedAssetDocument", None, WRITE),
        ("updateFixedAssetDocument", "PATCH", "/v1/fixed-asset-documents", "FixedAssetDocument", None, WRITE),
        ("createDocumentReference", "POST", "/v1/document-references", "DocumentReference", "HrInboxDocument", WRITE),
        (
            "updateDocumentReference",
            "PATCH",
            "/v1/document-references",
            "DocumentReference",
            "WarehouseDocument",
            WRITE,
        ),
        ("orderReport", "POST", "/v1/reports", "ReportOrder", None, RESOURCE),
    }


def test_every_schema_keyword_is_known_to_the_strategies():
    assert schema_index().keywords_used() <= KNOWN_KEYWORDS


def test_every_rule_of_the_profile_data_is_honoured_by_the_strategies():
    named = {
        spec["rule"]
        for rules in [
            *(r.rules for r in CONTRACT.resources.values()),
            *(p.rules for p in CONTRACT.profiles.values()),
        ]
        for spec in rules
    }
    assert named <= RESOURCE_RULES | REPORT_RULES
    assert set(standard_rules()) == RESOURCE_RULES | REPORT_RULES


@pytest.mark.parametrize("name", sorted(schema_index().documents["Primitives"]["$defs"]))
@COSTLY
@given(data=st.data())
def test_primitives_match_their_schema_pattern(name, data):
    pattern = schema_index().documents["Primitives"]["$defs"][name]["pattern"]
    assert re.fullmatch(pattern, data.draw(primitive(name)))


OTHER_INSTALLATION = """
[installation]
ns_url = "https://erp.acme.test/fhir"
vocab_url = "https://terminology.acme.test/vocab"
nip_system = "urn:acme:nip"
regon_system = "urn:acme:regon"
eu_vat_system = "urn:acme:eu-vat"
pesel_system = "urn:acme:pesel"
installation = "42"
[installation.namespaces]
contractor = "11"
employee = "13"
"""


@pytest.fixture(scope="module")
def other_installation(tmp_path_factory):
    config = tmp_path_factory.mktemp("installation") / "installation.toml"
    config.write_text(OTHER_INSTALLATION)
    contract = load_contract(config)
    kinds = payload_kinds(contract)
    return Validator(contract), st.sampled_from(kinds).flatmap(
        lambda kind: valid_payload(contract, kind).map(lambda payload: (kind, payload))
    )


@COSTLY
@given(data=st.data())
def test_payloads_follow_the_installation_they_are_drawn_for(other_installation, data):
    validator, drawn = other_installation
    kind, payload = data.draw(drawn)
    errors = [i for i in validator.validate(payload, **kind.validate_options()) if i.is_error]
    assert errors == []
    text = json.dumps(payload)
    for default in load_installation().values.values():
        if len(default) > 2:  # the shipped URLs; not short arcs that any number may contain
            assert default not in text


@pytest.mark.parametrize("format_name", sorted(FORMATS))
@COSTLY
@given(data=st.data())
def test_registry_values_pass_their_check(format_name, data):
    assert conforms(format_name, data.draw(registry_values(format_name)))


@pytest.mark.parametrize("profile", sorted(CONTRACT.profiles))
@COSTLY
@given(data=st.data())
def test_a_resource_drawn_for_a_profile_is_recognised_as_that_profile(profile, data):
    resource_type = CONTRACT.profiles[profile].resource_type
    resource = data.draw(BY_PROFILE[profile])
    recognised = VALIDATOR.recognised_profiles(resource, resource_type)
    assert [p.name for p in recognised] == [profile]


@COSTLY
@given(party=valid_resource(CONTRACT, "Party"))
def test_a_party_drawn_without_a_profile_still_has_one(party):
    assert len(VALIDATOR.recognised_profiles(party, "Party")) == 1


def test_an_unknown_profile_or_type_is_refused():
    with pytest.raises(ValueError, match="Contractor"):
        valid_resource(CONTRACT, "Party", profile="Warehouse")
    with pytest.raises(ValueError, match="Invoice"):
        valid_resource(CONTRACT, "Invoice")
    with pytest.raises(ValueError, match="createParty"):
        valid_write(CONTRACT, "deleteParty")


@COSTLY
@given(body=valid_write(CONTRACT, "createParty"))
def test_creates_leave_the_assigned_identifier_value_to_the_service(body):
    assigned = {
        system
        for key in CONTRACT.profiles["Contractor"].identifier_namespaces
        for system in CONTRACT.namespace_systems(key)
    }
    installation = [i for i in body.get("identifier", []) if i["system"] in assigned]
    assert len(installation) <= 1
    assert all("value" not in i for i in installation)
    assert all("value" in i for i in body.get("identifier", []) if i["system"] not in assigned)


@COSTLY
@given(body=valid_write(CONTRACT, "updateDocumentReference", target=WAREHOUSE_TARGET))
def test_a_warehouse_document_patch_names_the_given_target_first(body):
    assert body["identifier"][0] == WAREHOUSE_TARGET


def test_a_write_addressed_by_its_query_takes_no_target():
    with pytest.raises(ValueError, match="identifier"):
        valid_write(CONTRACT, "updateParty", target=WAREHOUSE_TARGET)


@pytest.mark.parametrize("report_id", sorted(CONTRACT.operations))
@COSTLY
@given(data=st.data())
def test_report_orders_take_the_key_and_report_given(report_id, data):
    pem = public_key_pem(KEY_SIZES[-1])
    order = data.draw(report_order(CONTRACT, public_key_pem=pem, report_id=report_id))
    assert order["publicKeyPem"] == pem and order["reportId"] == report_id
    required = {p["name"] for p in CONTRACT.operations[report_id]["parameter"] if p.get("required")}
    assert required <= set(order["parameters"])
    assert not [i for i in VALIDATOR.validate(order, resource_type="ReportOrder") if not i.is_error]


@pytest.mark.parametrize("bits", KEY_SIZES)
def test_the_key_pool_holds_rsa_keys_of_each_size(bits):
    assert load_pem_public_key(public_key_pem(bits).encode()).key_size == bits


@COSTLY
@given(pem=public_key_pems())
def test_a_key_below_4096_bits_is_only_a_warning(pem):
    order = {
        "reportId": "cost-calculation",
        "format": "csv",
        "publicKeyPem": pem,
        "runAt": "2026-01-01T00:00:00Z",
        "storage": {"type": "http", "connectionString": "http://127.0.0.1:9/"},
        "parameters": {"CompanyTaxNo": "7251801126", "Year": "2026", "Month": "1"},
    }
    issues = VALIDATOR.validate(order, resource_type="ReportOrder")
    assert not [i for i in issues if i.is_error]
    assert {i.code for i in issues} <= {"report-public-key-below-recommended-size"}
