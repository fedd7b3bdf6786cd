"""Parties: PATCH /v1/parties of a Contractor, the writes the contract refuses and no DELETE, against any
implementation.

The owner NIP that PATCH names is found in the target's data; the tests create parties of their own and change only
those, so reads of seed data by other tests are not disturbed. Where the contract leaves a status code open (a write
refused for its profile: "its status code: not shown", ERIS-ERR-203), any 4xx is accepted."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conformance.evidence.outcomes import data_selected_by
from conformance.harness.plugin import Api, Findings, not_exercised
from conformance.suite.support.writes import (
    contractor_body,
    create_contractor,
    display_name,
    has_identifier,
    identifiers,
    nip_system,
    of_profile,
    only,
    owner_nip_exercise,
    owner_nip_of,
    profile_systems,
    read_parties,
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
