"""Parties: reads by each reference-key identifier, and the writes of the contract (POST and PATCH of a
Contractor on /v1/parties), against any implementation.

Data are discovered by reads (a Contractor from GET /v1/parties?profile=<Contractor>, the owner NIP from
the data); the write tests create parties of their own and change only those, so reads of seed data by
other tests are not disturbed. Where the contract leaves a status code open (a write refused for its
profile: "its status code: not shown", ERIS-ERR-203), any 4xx is accepted."""

from __future__ import annotations

from functools import partial
from typing import Any

import httpx
import pytest

from conformance.evidence.outcomes import data_selected_by, data_served
from conformance.harness.plugin import Api, Findings, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.clauses import PARTY_NAMESPACES, PESEL_CLAUSE, placeholders_by_system, registry_clauses
from conformance.suite.support.write_choices import REGISTER
from conformance.suite.support.writes import (
    claimed_profiles,
    contractor_body,
    contractors,
    create_contractor,
    display_name,
    has_identifier,
    identifiers,
    installation_systems,
    nip_system,
    of_profile,
    only,
    owner_nip_exercise,
    owner_nip_of,
    profile_systems,
    read_parties,
    reference_key_systems,
    register_identifier,
    token,
    unique_name,
    unordered,
    without_profile,
)
from profiles import Contract
from profiles.validator import Validator

PARTIES = "/v1/parties"


@pytest.fixture(scope="module")
def owner_nip(api: Api, contract: Contract) -> str:
    """The NIP of an owner of parties, found in the target's data (PATCH needs owner={nip_system}|<NIP>)."""
    found = owner_nip_of(api, contract)
    if found is None:
        not_exercised(
            "GET /v1/parties shows no owner NIP: no Contractor owned by a NIP and no Employer with a NIP",
            exercise=owner_nip_exercise(contract),
        )
    return found


def _refused(response: httpx.Response, what: str) -> None:
    assert 400 <= response.status_code < 500, (
        f"{what} answered {response.status_code}; the contract rejects it (any 4xx): {response.text[:300]}"
    )


# -- reads ---------------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-PARTY-010", "ERIS-PARTY-011", "ERIS-PARTY-008", "ERIS-READ-001")
def test_a_contractor_reads_back_by_each_of_its_reference_key_identifiers(
    api: Api, contract: Contract, findings: Findings
) -> None:
    found = contractors(api, contract)
    keyed = [party for party in found if identifiers(party, reference_key_systems(contract))]
    if not keyed:
        not_exercised(
            "GET /v1/parties?profile=<Contractor> served no Contractor with an identifier in a reference-key namespace",
            exercise=data_served(PARTIES, "a Contractor with an identifier in a reference-key namespace"),
        )
    # each reference-key namespace read on a Contractor that carries it, so that every registry is read back
    by_system: dict[str, tuple[dict[str, Any], str]] = {}
    for candidate in keyed:
        for system, value in identifiers(candidate, reference_key_systems(contract)):
            by_system.setdefault(system, (candidate, value))
    registries, placeholders = registry_clauses(contract), placeholders_by_system(contract)
    for system, (party, value) in by_system.items():
        # the read itself is under test: every item it answers is judged here (read_parties would set aside
        # those without the identifier as the filter's defect)
        items = api.read("/v1/parties", {"identifier": token(system, value), "count": 100}, resource_type="Party")
        # a registry number is a reference key (ERIS-PARTY-010); an installation id is read in its form (-011)
        broken = "ERIS-PARTY-011" if system in installation_systems(contract) else "ERIS-PARTY-010"
        if party["id"] not in [item.get("id") for item in items]:
            findings.add(
                broken, f"GET /v1/parties?identifier={system}|{value} does not return the Contractor {party['id']}"
            )
        strangers = [item.get("id") for item in items if not has_identifier(item, system, value)]
        if strangers:
            findings.add(broken, f"GET /v1/parties?identifier={system}|{value} returns parties without it: {strangers}")
        if system in installation_systems(contract) and len(items) > 1:
            findings.add(broken, f"the installation identifier {system}|{value} names {len(items)} parties")
        if system in registries:
            exercised(
                PARTY_NAMESPACES,
                registries[system],
                value=value,
                request=f"GET /v1/parties?identifier={system}|{value}",
            )
    for system, clause in registries.items():
        if system not in by_system and clause != PESEL_CLAUSE:
            clause_not_exercised(
                PARTY_NAMESPACES,
                clause,
                f"GET /v1/parties?profile=<Contractor> served no Contractor with an identifier in {system}",
                exercise=data_selected_by(
                    contract.installation.assumed,
                    placeholders[system],
                    PARTIES,
                    f"a Contractor with an identifier in {system}",
                ),
            )
    findings.check()


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


# -- PATCH /v1/parties ------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-PARTY-015", "ERIS-PARTY-014", "ERIS-PARTY-W-001", "ERIS-WRITE-001", "ERIS-ROUTE-001")
def test_patch_updates_a_contractor_and_a_read_returns_the_change(
    api: Api, contract: Contract, owner_nip: str, findings: Findings
) -> None:
    """Each failure is recorded against the requirement it breaks: a 2xx other than 200 against ERIS-WRITE-001,
    a refused Contractor against ERIS-PARTY-W-001 and ERIS-PARTY-015, another party answered against
    ERIS-ROUTE-001, a change not answered or not read back against ERIS-PARTY-015."""
    _, created = create_contractor(api, contract, unique_name(), owner_nip=owner_nip)
    system, value = register_identifier(contract, created)
    renamed = unique_name("Po zmianie")
    body = contractor_body(contract, renamed, namespace=False, owner_nip=owner_nip, comment="changed by eris certify")
    api.assert_valid(body, "Party", where="the suite's PATCH body", context="write")
    response = api.patch(
        PARTIES, json=body, params={"identifier": token(system, value), "owner": token(nip_system(contract), owner_nip)}
    )
    answered = f"PATCH /v1/parties of a Contractor answered {response.status_code}: {response.text[:300]}"
    if 200 < response.status_code < 300:
        findings.add("ERIS-WRITE-001", answered)
    elif response.status_code != 200:
        findings.add("ERIS-PARTY-015", answered)
        if 400 <= response.status_code < 500:
            findings.add("ERIS-PARTY-W-001", f"{answered} (writes support the Contractor profile)")
        findings.check()
    if response.status_code == 200:
        updated = response.json()
        api.judge(updated, "Party", where="the Party answered by PATCH /v1/parties")
        if updated.get("id") != created.get("id"):
            findings.add("ERIS-ROUTE-001", "PATCH answered another party than the one addressed by identifier")
        if display_name(updated) != renamed:
            findings.add("ERIS-PARTY-015", "the Party answered by PATCH does not carry the new name")
        if not has_identifier(updated, system, value):
            findings.add("ERIS-PARTY-015", "the updated Party lost the identifier it was addressed by")
    found = read_parties(api, system, value)
    if [item.get("id") for item in found] != [created.get("id")]:
        findings.add("ERIS-PARTY-015", f"{token(system, value)} does not read back exactly the party after PATCH")
    elif display_name(found[0]) != renamed:
        findings.add("ERIS-PARTY-015", "a read after PATCH does not return the new name")
    elif found[0].get("comment") != "changed by eris certify":
        findings.add("ERIS-PARTY-015", "a read after PATCH does not return the new comment")
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-015")
@pytest.mark.parametrize("missing", ["owner", "identifier"])
def test_patch_without_a_required_parameter_is_refused_and_changes_nothing(
    api: Api, contract: Contract, owner_nip: str, missing: str
) -> None:
    """`identifier` and `owner` are both required on PATCH /v1/parties: without one the write is refused
    (any 4xx: the status code is not shown) and the party keeps its name."""
    body, created = create_contractor(api, contract, unique_name(), owner_nip=owner_nip)
    system, value = register_identifier(contract, created)
    params = {"identifier": token(system, value), "owner": token(nip_system(contract), owner_nip)}
    del params[missing]
    change = contractor_body(contract, unique_name("Bez parametru"), namespace=False, owner_nip=owner_nip)
    _refused(api.patch(PARTIES, json=change, params=params), f"PATCH /v1/parties without {missing} (required)")
    found = only(read_parties(api, system, value), f"GET /v1/parties?identifier={token(system, value)}")
    assert display_name(found) == display_name(body), f"a PATCH without {missing} changed the party's name"


# -- refused writes ---------------------------------------------------------------------------------------

REFUSED = ["no-profile", "employee-by-meta-profile", "employee-by-category", "asset-holder-by-category"]


def _refused_body(contract: Contract, case: str) -> dict[str, Any]:
    name = unique_name("Odrzucony")
    if case == "no-profile":
        return without_profile(contract, name)
    profile = "Employee" if case.startswith("employee") else "AssetHolder"
    return of_profile(contract, profile, name, by="meta" if case.endswith("meta-profile") else "category")


@pytest.mark.requirement("ERIS-PARTY-W-001")
@pytest.mark.parametrize("case", REFUSED)
def test_the_suites_refused_bodies_break_the_write_rules_and_its_contractor_bodies_do_not(
    validator: Validator, contract: Contract, case: str
) -> None:
    """The suite's own bodies are right: what it expects refused is refused by the validator as a write,
    what it expects accepted passes it."""
    refused = [i for i in validator.validate(_refused_body(contract, case), resource_type="Party", context="write")]
    assert any(issue.is_error for issue in refused), f"the validator accepts the {case} body as a write"
    for by in ("category", "meta", "both"):
        body = contractor_body(contract, unique_name(), by=by)
        errors = [i.message for i in validator.validate(body, resource_type="Party", context="write") if i.is_error]
        assert errors == [], f"the suite's Contractor body ({by}) breaks the write rules: {errors}"


@pytest.mark.requirement("ERIS-PARTY-W-001")
@pytest.mark.parametrize("case", REFUSED)
def test_post_of_another_profile_or_without_a_profile_is_refused(api: Api, contract: Contract, case: str) -> None:
    body = _refused_body(contract, case)
    _refused(api.post(PARTIES, json=body), f"POST /v1/parties of a party {case}")
    for system, value in identifiers(body):
        assert read_parties(api, system, value) == [], f"the refused POST ({case}) created {system}|{value}"


@pytest.mark.requirement("ERIS-PARTY-W-001", "ERIS-PARTY-015")
@pytest.mark.parametrize("case", REFUSED)
def test_patch_of_another_profile_or_without_a_profile_is_refused_and_changes_nothing(
    api: Api, contract: Contract, owner_nip: str, case: str
) -> None:
    body, created = create_contractor(api, contract, unique_name(), owner_nip=owner_nip)
    system, value = register_identifier(contract, created)
    params = {"identifier": token(system, value), "owner": token(nip_system(contract), owner_nip)}
    _refused(api.patch(PARTIES, json=_refused_body(contract, case), params=params), f"PATCH /v1/parties {case}")
    found = only(read_parties(api, system, value), f"GET /v1/parties?identifier={token(system, value)} ({case})")
    assert display_name(found) == display_name(body), f"a refused PATCH ({case}) changed the party's name"
    assert contract.profiles["Contractor"] in api.validator.recognised_profiles(found, "Party"), (
        f"after a refused PATCH ({case}) the party is no longer a Contractor"
    )


@pytest.mark.requirement("ERIS-PARTY-W-001")
def test_patch_of_a_party_of_another_profile_is_refused_and_changes_nothing(api: Api, contract: Contract) -> None:
    """A right Contractor body addressed to an Employee (found in the data, with its owner's NIP): writes
    support only the Contractor profile. Nothing changes when it is refused, as the test checks."""
    employees = api.read(PARTIES, {"profile": contract.profiles["Employee"].url, "count": 100}, resource_type="Party")
    register = set(profile_systems(contract, "Employee", reference_key=True))
    candidates = [
        (key, owner["identifier"]["value"], party)
        for party in employees
        for key in identifiers(party, register)[:1]
        for owner in party.get("owner") or []
        if isinstance(owner, dict)
        and isinstance(owner.get("identifier"), dict)
        and owner["identifier"].get("system") == nip_system(contract)
    ]
    if not candidates:
        not_exercised(
            "GET /v1/parties?profile=<Employee> served no Employee with an installation identifier and an owner NIP",
            exercise=data_selected_by(
                contract.installation.assumed,
                "nip_system",
                PARTIES,
                "an Employee with an installation identifier and an owner NIP",
            ),
        )
    (system, value), nip, before = candidates[-1]
    body = contractor_body(contract, unique_name("Nie pracownik"), namespace=False, comment="not an employee")
    params = {"identifier": token(system, value), "owner": token(nip_system(contract), nip)}
    _refused(api.patch(PARTIES, json=body, params=params), "PATCH /v1/parties addressed to an Employee")
    after = only(read_parties(api, system, value), f"GET /v1/parties?identifier={token(system, value)}")
    assert unordered(after) == unordered(before), (
        f"a refused PATCH addressed to the Employee {token(system, value)} changed it"
    )


# -- no DELETE ------------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ROUTE-002")
def test_there_is_no_delete_of_a_party(api: Api, contract: Contract, owner_nip: str) -> None:
    _, created = create_contractor(api, contract, unique_name("Nieusuwalny"), owner_nip=owner_nip)
    system, value = register_identifier(contract, created)
    params = {"identifier": token(system, value), "owner": token(nip_system(contract), owner_nip)}
    _refused(api.request("DELETE", PARTIES, params=params), "DELETE /v1/parties")
    assert [item.get("id") for item in read_parties(api, system, value)] == [created.get("id")], (
        f"after DELETE /v1/parties the party {token(system, value)} no longer reads back"
    )


@pytest.mark.requirement("ERIS-READ-003", "ERIS-FILTER-006")
def test_parties_are_read_by_each_profile_the_target_lists(api: Api, contract: Contract, findings: Findings) -> None:
    """ "GET /v1/parties ... 200 envelope of Party[]; without profile all supported profiles"; "Profile filter value is
    the profile URL": for each profile the target lists (the contract's Party profiles, and every URL its parties
    claim in meta.profile), every party the read by it answers is among those of the read without profile, and every
    party that claims it is answered."""
    everything = api.read_all(PARTIES)
    unfiltered = {party.get("id") for party in everything}
    claimed = {url for party in everything for url in claimed_profiles(party)}
    urls = list(dict.fromkeys([*(profile.url for profile in contract.profiles_of("Party")), *sorted(claimed)]))
    seen = 0
    for url in urls:
        found = {party.get("id") for party in api.read_all(PARTIES, {"profile": url})}
        seen += len(found)
        left_out = found - unfiltered
        if left_out:  # other tests create parties meanwhile: what the list now holds counts
            unfiltered |= {party.get("id") for party in api.read_all(PARTIES)}
            left_out -= unfiltered
        if left_out:
            findings.add(
                "ERIS-READ-003",
                f"GET {PARTIES} without profile leaves out parties of {url}: {sorted(left_out, key=str)[:5]}",
            )
        missing = {party.get("id") for party in everything if url in claimed_profiles(party)} - found
        if missing:
            findings.add(
                "ERIS-FILTER-006",
                f"GET {PARTIES}?profile={url} leaves out parties that claim it in meta.profile: "
                f"{sorted(missing, key=str)[:5]}",
            )
    if not seen:
        not_exercised(
            f"GET {PARTIES} by each profile of the contract and each its parties claim served no party",
            exercise=data_served(PARTIES),
        )
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-008")
def test_a_party_named_as_owner_by_nip_carries_that_nip_in_the_nip_namespace(api: Api, contract: Contract) -> None:
    """Party: the namespace {nip_system} holds the NIP, a reference key ("owner references by NIP"); so a Party
    that GET /v1/parties?identifier={nip_system}|<NIP> returns for an owner's NIP carries that NIP in
    {nip_system} (a NIP served under another system is not in the contract's namespace)."""
    system = nip_system(contract)
    owners = sorted(
        {
            reference["identifier"]["value"]
            for item in api.read_all("/v1/parties")
            for reference in item.get("owner") or []
            if isinstance(reference, dict)
            and isinstance(reference.get("identifier"), dict)
            and reference["identifier"].get("system") == system
            and isinstance(reference["identifier"].get("value"), str)
        }
    )
    if not owners:
        not_exercised(
            f"GET {PARTIES} served no party owned by a NIP of {system}",
            exercise=data_selected_by(
                contract.installation.assumed, "nip_system", PARTIES, "a party whose owner is referenced by its NIP"
            ),
        )
    chosen = owners[:5]
    answers = api.concurrently(
        [partial(api.read, "/v1/parties", {"identifier": token(system, value), "count": 100}) for value in chosen]
    )
    for value, items in zip(chosen, answers, strict=True):
        strangers = [item.get("id") for item in items if not has_identifier(item, system, value)]
        assert not strangers, (
            f"GET /v1/parties?identifier={system}|{value} (an owner's NIP) returns parties that do not carry it in "
            f"{system}: {strangers}"
        )
