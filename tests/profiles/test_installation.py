"""The installation's configuration: placeholder values and namespace arcs, one or more of a kind."""

import pytest

from profiles import ConfigError, load_contract
from profiles.validator import Validator

NOTIFICATION = {
    "resourceType": "Notification",
    "id": "n1",
    "status": {"coding": [{"system": "https://erp.example.com/fhir/vocab/notification-status", "code": "completed"}]},
    "operation": {
        "coding": [{"system": "https://erp.example.com/fhir/vocab/notification-operation", "code": "updated"}]
    },
    "date": "2026-01-01T00:00:00Z",
    "reference": {
        "type": "DocumentReference",
        "identifier": {"system": "urn:oid:1.2.616.1.113769.4.7.11", "value": "W-1"},
    },
}


def test_a_second_namespace_of_a_kind_is_declared_as_a_list_and_known_to_the_validator(tmp_path):
    config = tmp_path / "target.toml"
    config.write_text('[installation.namespaces]\ndocument-reference = ["6", "11"]\n', encoding="utf-8")
    contract = load_contract(config)
    assert contract.namespace_systems("document-reference") == [
        "urn:oid:1.2.616.1.113769.4.7.6",
        "urn:oid:1.2.616.1.113769.4.7.11",
    ]
    assert contract.installation.namespace_keys["document-reference"] == "6"  # the placeholder takes the first
    assert Validator(contract).is_valid(NOTIFICATION)
    assert not Validator().is_valid(NOTIFICATION)  # an installation namespace nobody declared


def test_a_published_namespace_joins_the_configured_ones_of_its_kind():
    contract = load_contract().with_namespaces([("document-reference", "urn:oid:1.2.616.1.113769.4.7.11")])
    assert "urn:oid:1.2.616.1.113769.4.7.11" in contract.namespace_systems("document-reference")
    assert contract.with_namespaces([("no-such-kind", "urn:x")]) is contract


@pytest.mark.parametrize("value", ['["6", "x"]', "[true]", '["6", 1.5]'])
def test_a_bad_arc_in_a_list_is_a_config_error(tmp_path, value):
    config = tmp_path / "target.toml"
    config.write_text(f"[installation.namespaces]\ndocument-reference = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="document-reference"):
        load_contract(config)
