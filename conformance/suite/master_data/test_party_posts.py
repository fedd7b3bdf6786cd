"""Parties: POST /v1/parties of a Contractor, against any implementation: a party created with an assigned
identifier that reads back, registered in each register namespace a write may select, or where the profile chooses,
and always a new one.

The tests create parties of their own and change only those, so reads of seed data by other tests are not
disturbed."""

from __future__ import annotations

import pytest

from conformance.harness.plugin import Api, Findings, exercised
from conformance.suite.support.write_choices import REGISTER
from conformance.suite.support.writes import (
    contractor_body,
    create_contractor,
    display_name,
    identifiers,
    profile_systems,
    read_parties,
    register_identifier,
    token,
    unique_name,
)
from profiles import Contract

PARTIES = "/v1/parties"


# -- POST /v1/parties --------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-PARTY-012", "ERIS-PARTY-013", "ERIS-PARTY-W-001", "ERIS-WRITE-001", "ERIS-PARTY-011")
@pytest.mark.parametrize("by", ["category", "meta"], ids=["by-party-kind-category", "by-meta-profile"])
def test_post_creates_a_contractor_with_an_assigned_identifier_that_reads_back(
    api: Api, contract: Contract, by: str, findings: Findings
) -> None:
    register = profile_systems(contract, "Contractor", reference_key=True)[0]
    body, party = create_contractor(api, contract, unique_name(), by=by, namespace=register, findings=findings)
    values = [value for system, value in identifiers(party, {register}) if system == register]
    if not values:
        findings.add(
            "ERIS-PARTY-013",
            f"the namespace {register} was given: it selects where the party is registered, but the created Party "
            f"has no value in it: {party.get('identifier')}",
        )
        findings.check()
    found = read_parties(api, register, values[0])
    if [item.get("id") for item in found] != [party.get("id")]:
        findings.add(
            "ERIS-PARTY-011",
            f"GET /v1/parties?identifier={register}|{values[0]} (the assigned identifier) returns "
            f"{[item.get('id') for item in found]}, not exactly the created party {party.get('id')}",
        )
    elif display_name(found[0]) != display_name(body):
        findings.add("ERIS-PARTY-012", "the party read back does not carry the name written")
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-013", "ERIS-PARTY-012", "ERIS-PARTY-011", "ERIS-WRITE-001")
def test_post_registers_the_party_in_each_register_namespace_a_write_may_select(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """ "When creating, the namespace is optional. If present it selects the installation that registers the party";
    "identifier[].system recommended with value omitted": a POST naming each register of contractors the target
    has (the configured one and each the target publishes beside it at GET /v1/naming-systems) creates a party with a
    value assigned in that namespace, which reads it back. The contractor id in warehouse documents is "a copy, not
    the register": a write naming it may be refused, and is tried by test_party_write_choices.py, with every other
    installation namespace the target's Contractors carry (a register or a copy: the suite cannot tell)."""
    for register in profile_systems(contract, "Contractor", reference_key=True):
        exercised("ERIS-PARTY-013", REGISTER, value=register, request="POST /v1/parties")
        _, party = create_contractor(
            api, contract, unique_name(), namespace=register, findings=findings, assigned=("ERIS-PARTY-013",)
        )
        values = [value for _, value in identifiers(party, {register})]
        if not values:
            findings.add(
                "ERIS-PARTY-013",
                f"POST /v1/parties naming the namespace {register} (value omitted) created a party with no value "
                f"in it: the namespace selects where the party is registered; identifiers: {party.get('identifier')}",
            )
            continue
        found = [item.get("id") for item in read_parties(api, register, values[0])]
        if found != [party.get("id")]:
            findings.add(
                "ERIS-PARTY-011",
                f"GET /v1/parties?identifier={register}|{values[0]} (the value assigned in the namespace the POST "
                f"named) returns {found}, not exactly the created party {party.get('id')}",
            )
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-012", "ERIS-PARTY-013", "ERIS-WRITE-001")
def test_post_without_a_namespace_lets_the_profile_choose_it(api: Api, contract: Contract, findings: Findings) -> None:
    assigned = ("ERIS-PARTY-012", "ERIS-PARTY-013")
    exercised("ERIS-PARTY-013", "namespace omitted", value="no identifier[]", request="POST /v1/parties")
    body, party = create_contractor(api, contract, unique_name(), namespace=None, findings=findings, assigned=assigned)
    system, value = register_identifier(contract, party)
    items = read_parties(api, system, value)
    if [item.get("id") for item in items] != [party.get("id")]:
        findings.add(
            "ERIS-PARTY-013", f"GET /v1/parties?identifier={system}|{value} does not return exactly the created party"
        )
    elif display_name(items[0]) != display_name(body):
        findings.add("ERIS-PARTY-012", "the party read back does not carry the name written")
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-014", "ERIS-PARTY-012", "ERIS-WRITE-001")
def test_post_always_creates_a_new_party(api: Api, contract: Contract, findings: Findings) -> None:
    name = unique_name()
    _, first = create_contractor(api, contract, name, findings=findings)
    _, second = create_contractor(api, contract, name, findings=findings)
    if first.get("id") == second.get("id"):
        findings.add("ERIS-PARTY-014", "posting the same body twice gave the same party (same id)")
    first_key, second_key = register_identifier(contract, first), register_identifier(contract, second)
    if first_key == second_key:
        findings.add("ERIS-PARTY-014", f"posting the same body twice gave the same identifier {token(*first_key)}")
    for key, party in ((first_key, first), (second_key, second)):
        if [item.get("id") for item in read_parties(api, *key)] != [party.get("id")]:
            findings.add(
                "ERIS-PARTY-014",
                f"GET /v1/parties?identifier={token(*key)} does not return exactly the party created with it",
            )
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-014")
def test_post_naming_an_existing_partys_identifier_does_not_update_that_party(api: Api, contract: Contract) -> None:
    """A POST whose body carries the identifier (system and value) of an existing party: the contract leaves
    open whether it is refused or creates a party with a value of the service's own, but it never updates
    the existing one (updating is PATCH only)."""
    first_body, existing = create_contractor(api, contract, unique_name())
    system, value = register_identifier(contract, existing)
    body = contractor_body(
        contract, unique_name("Nie aktualizacja"), namespace=False, identifier=[{"system": system, "value": value}]
    )
    response = api.post(PARTIES, json=body)
    assert response.status_code == 200 or 400 <= response.status_code < 500, (
        f"POST /v1/parties naming the existing identifier {token(system, value)} answered {response.status_code}"
    )
    if response.status_code == 200:
        assert response.json().get("id") != existing.get("id"), (
            f"POST /v1/parties naming the existing identifier {token(system, value)} answered the existing party: "
            "POST always creates a new party"
        )
    found = [item for item in read_parties(api, system, value) if item.get("id") == existing.get("id")]
    assert found, f"after the POST the party {existing.get('id')} no longer reads back by {token(system, value)}"
    assert display_name(found[0]) == display_name(first_body), (
        f"POST /v1/parties naming the existing identifier {token(system, value)} updated that party "
        "(its name changed): updating an existing party is PATCH only"
    )
