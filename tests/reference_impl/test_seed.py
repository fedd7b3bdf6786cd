"""The seed data set: valid as served, complete (every resource type and profile), self-consistent
(every reference resolves, one owner) and deterministic, at the fixed size and with `large=N`."""

import base64
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from profiles import load_contract
from profiles.identifier_formats import is_nip
from profiles.validator import Validator
from reference_impl.seed import OWN_ORGANIZATION_NIP, own_organization_nip, seed_resources

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
SEED = seed_resources(CONTRACT)
NIP_SYSTEM = CONTRACT.installation.values["nip_system"]
# Notifications are pushed, never served: the contract has no GET collection of them.
NOT_SERVED = {"Notification"}


def _of_type(resources: list[dict[str, Any]], resource_type: str) -> list[dict[str, Any]]:
    return [r for r in resources if r["resourceType"] == resource_type]


def _recognised(resource: dict[str, Any]) -> set[str]:
    """Profiles of the resource: by their evidence (category or url) where the profile defines one,
    else by meta.profile (Warehouse, StorageLocation)."""
    urls = resource.get("meta", {}).get("profile", [])
    codings = {(c.get("system"), c.get("code")) for cc in resource.get("category", []) for c in cc.get("coding", [])}
    found = set()
    for profile in CONTRACT.profiles_of(resource["resourceType"]):
        if profile.canonical_url is not None:
            evidenced = resource.get("url") == profile.canonical_url
        elif profile.category_codings:
            evidenced = not codings.isdisjoint(profile.category_codings)
        else:
            evidenced = profile.url in urls
        if evidenced:
            found.add(profile.name)
    return found


def _references(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every Reference by identifier (an object whose `identifier` is one Identifier), with its pointer."""
    if isinstance(node, dict):
        if isinstance(node.get("identifier"), dict):
            yield where, node
        for key, value in node.items():
            yield from _references(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _references(value, f"{where}/{index}")


def _unresolved(resources: list[dict[str, Any]]) -> list[str]:
    index: dict[tuple[str, str], set[str]] = {}
    for resource in resources:
        for identifier in resource.get("identifier", []):
            index.setdefault((identifier["system"], identifier["value"]), set()).add(resource["resourceType"])
    missing = []
    for resource in resources:
        for where, reference in _references(resource):
            identifier = reference["identifier"]
            types = index.get((identifier.get("system"), identifier.get("value")), set())
            if reference.get("type") not in types:
                missing.append(f"{resource['resourceType']}/{resource['id']}{where}: {reference}")
    return missing


@pytest.mark.parametrize("resource", SEED, ids=lambda r: f"{r['resourceType']}/{r['id']}")
def test_every_seed_resource_is_valid_as_served(resource):
    errors = [str(issue) for issue in VALIDATOR.validate(resource) if issue.is_error]
    assert errors == []


def test_registry_numbers_have_valid_check_digits():
    warnings = [
        (resource["id"], issue.code, issue.location)
        for resource in SEED
        for issue in VALIDATOR.validate(resource)
        if issue.code.startswith("identifier-") and issue.code.endswith("-invalid")
    ]
    assert warnings == []


def test_every_resource_has_an_id_unique_per_type():
    assert all(isinstance(r.get("id"), str) and r["id"] and r.get("resourceType") for r in SEED)
    counts = Counter((r["resourceType"], r["id"]) for r in SEED)
    assert [key for key, n in counts.items() if n > 1] == []


def test_every_served_domain_resource_type_appears():
    expected = {name for name, rules in CONTRACT.resources.items() if rules.has_base} - NOT_SERVED
    assert expected - {r["resourceType"] for r in SEED} == set()


def test_every_profile_is_recognised_on_some_resource():
    recognised = set().union(*(_recognised(r) for r in SEED))
    assert set(CONTRACT.profiles) - recognised == set()


def test_profiled_resources_claim_the_profile_they_show():
    for resource in _of_type(SEED, "Party") + _of_type(SEED, "Location") + _of_type(SEED, "DocumentReference"):
        claimed = {CONTRACT.profile_by_url(url).name for url in resource.get("meta", {}).get("profile", [])}
        assert _recognised(resource) <= claimed, resource["id"]


def test_more_than_one_page_of_parties_of_all_four_profiles():
    parties = _of_type(SEED, "Party")
    assert len(parties) > 20
    by_profile = Counter(name for party in parties for name in _recognised(party))
    assert by_profile["Employer"] == 1
    assert {"Contractor", "Employee", "AssetHolder"} <= set(by_profile)
    assert sum(1 for party in parties if "partOf" in party) >= 2


def test_employer_nip_is_valid_and_owns_every_other_resource():
    assert own_organization_nip() == OWN_ORGANIZATION_NIP
    assert is_nip(OWN_ORGANIZATION_NIP)
    (employer,) = [p for p in _of_type(SEED, "Party") if "Employer" in _recognised(p)]
    assert {"system": NIP_SYSTEM, "value": OWN_ORGANIZATION_NIP, "type": "TAX"} in employer["identifier"]
    owner = {"system": NIP_SYSTEM, "value": OWN_ORGANIZATION_NIP}
    not_owned = [
        r["id"]
        for r in SEED
        if r["resourceType"] != "ValueSet" and owner not in [o.get("identifier") for o in r.get("owner", [])]
    ]
    assert not_owned == []


def test_fixed_asset_documents_with_and_without_content():
    documents = _of_type(SEED, "FixedAssetDocument")
    with_content = [d for d in documents if d.get("attachment")]
    without = [d for d in documents if not d.get("attachment")]
    assert len(with_content) >= 3 and len(without) >= 2
    statuses = {d["status"]["coding"][0]["code"] for d in documents}
    assert statuses == {"open", "closed", "posted"}
    for document in with_content:
        (attachment,) = document["attachment"]
        data = base64.b64decode(attachment["data"], validate=True)
        if attachment["contentType"] == "application/pdf":
            assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
        assert {a["code"] for a in attachment["attribute"]} == {"workflow-status", "workflow-link", "workflow-system"}
    assert any(d["attachment"][0]["contentType"] == "application/pdf" for d in with_content)


def test_every_reference_resolves_to_a_resource_of_its_type():
    assert _unresolved(SEED) == []


def test_value_sets_are_the_terminology_files_as_they_are():
    assert _of_type(SEED, "ValueSet") == list(CONTRACT.value_set_resources.values())


def test_one_naming_system_per_namespace():
    naming_systems = {ns["system"]: ns for ns in _of_type(SEED, "NamingSystem")}
    assert set(naming_systems) == set(CONTRACT.namespaces)
    for system, namespace in CONTRACT.namespaces.items():
        assert naming_systems[system]["key"] == namespace.key
        assert naming_systems[system]["referenceKey"] is namespace.reference_key
        assert naming_systems[system]["usage"]


def test_two_calls_give_equal_data():
    assert seed_resources(CONTRACT) == SEED
    assert seed_resources(CONTRACT, large=50) == seed_resources(CONTRACT, large=50)


def test_large_adds_contractors_with_a_role_and_a_grant_each():
    large = seed_resources(CONTRACT, large=1000)
    assert large[: len(SEED)] == SEED
    added = Counter(r["resourceType"] for r in large[len(SEED) :])
    assert added == {"Party": 1000, "PartyRole": 1000, "GrantAssignment": 1000}
    assert len(_of_type(large, "Party")) == len(_of_type(SEED, "Party")) + 1000
    assert len({(r["resourceType"], r["id"]) for r in large}) == len(large)
    new_parties = _of_type(large[len(SEED) :], "Party")
    assert all(_recognised(p) == {"Contractor"} for p in new_parties)
    nips = [i["value"] for p in _of_type(large, "Party") for i in p["identifier"] if i["system"] == NIP_SYSTEM]
    assert len(nips) == len(set(nips)) and all(is_nip(n) for n in nips)
    assert _unresolved(large) == []
    for resource in random.Random(7).sample(large[len(SEED) :], 150):
        assert [str(i) for i in VALIDATOR.validate(resource) if i.is_error] == [], resource["id"]


def test_installation_values_come_from_the_configuration(tmp_path):
    config = tmp_path / "installation.toml"
    config.write_text(
        "[installation]\n"
        'ns_url = "https://erp.other.example/fhir"\n'
        'vocab_url = "https://erp.other.example/vocab"\n'
        'nip_system = "https://registry.other.example/nip"\n'
        'regon_system = "https://registry.other.example/regon"\n'
        'eu_vat_system = "https://registry.other.example/vat"\n'
        'pesel_system = "https://registry.other.example/pesel"\n'
        'installation = "42"\n'
        "[installation.namespaces]\n"
        'contractor = "21"\n'
    )
    contract = load_contract(config)
    resources = seed_resources(contract, large=3)
    text = json.dumps(resources)
    assert "erp.example.com/fhir" not in text and "113769.4.7." not in text
    assert f'"{contract.installation_namespace_key("contractor")}"' in text
    validator = Validator(contract)
    errors = [(r["id"], str(i)) for r in resources for i in validator.validate(r) if i.is_error]
    assert errors == []


def test_a_server_without_seed_data_still_publishes_its_naming_systems_and_value_sets():
    from serve_fixtures import running

    from reference_impl.app import ServerSettings

    with running(ServerSettings(seed=None, rate_per_second=0)) as server:
        assert server.count("/v1/parties") == 0
        systems = {
            item["system"] for item in server.client.get("/v1/naming-systems", params={"count": 100}).json()["items"]
        }
        listed = server.client.get("/v1/value-sets", params={"count": 1000}).json()["items"]
    contract = load_contract()
    assert systems == set(contract.namespaces)
    assert {item["url"] for item in listed} == set(contract.value_set_resources)
