"""POST /v1/parties with what a write may choose, taken from the target's own data: each namespace of Contractors
it has beside the accounting registers (the warehouse copy, and any other its Contractors carry), and the registry
numbers (NIP, REGON) of an existing contractor.

The registers themselves are posted to by test_party_posts.py. Where the contract leaves the answer open (a namespace a
target does not register parties in, a number a target keeps unique), a refusal (any 4xx) is the target's choice:
what the contract fixes is what a 2xx answer carries, and that an existing party is never changed by a POST."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conformance.evidence.outcomes import data_selected_by, data_served
from conformance.harness.plugin import Api, Findings, blocked, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.write_choices import COPY, contractor_namespaces, holders_of
from conformance.suite.support.writes import (
    contractor_body,
    contractors,
    identifiers,
    profile_systems,
    read_parties,
    token,
    unique_name,
    unordered,
)
from profiles import Contract

PARTIES = "/v1/parties"
POST = f"POST {PARTIES}"
NAMING_SYSTEMS = "/v1/naming-systems"


def _answered(response: httpx.Response) -> str:
    return f"answered {response.status_code}: {response.text[:300]}"


def _refused(response: httpx.Response) -> bool:
    return 400 <= response.status_code < 500


def _created(api: Api, response: httpx.Response, what: str, findings: Findings) -> dict[str, Any] | None:
    """The Party a 2xx answer carries (judged by the validator), with what breaks "Writes answer 200" recorded; None
    (recorded against ERIS-PARTY-012) when the answer is no Party."""
    if response.status_code != 200:
        findings.add("ERIS-WRITE-001", f"{what} {_answered(response)}: writes answer 200")
    try:
        party = response.json()
    except ValueError:
        party = None
    if not isinstance(party, dict) or party.get("resourceType") != "Party":
        findings.add("ERIS-PARTY-012", f"{what} {_answered(response)}: not the created Party")
        return None
    api.judge(party, "Party", where=f"the Party answered by {what}")
    return party


@pytest.mark.requirement("ERIS-PARTY-013", "ERIS-WRITE-001")
def test_a_post_naming_the_copy_or_another_namespace_of_contractors_registers_the_party_there(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """ "When creating, the namespace is optional. If present it selects the installation that registers the party":
    a POST naming the contractor id in warehouse documents ("a copy, not the register"), or another installation
    namespace the target's Contractors carry, with the value omitted ("identifier[].system recommended with value
    omitted"), is refused (any 4xx: a target need not register parties there), or answered with the created Party
    holding a value in that namespace. Accepting it and registering the party elsewhere ignores the namespace."""
    chosen = contractor_namespaces(contract, contractors(api, contract))
    if not any(clause == COPY for _, clause in chosen):
        clause_not_exercised(
            "ERIS-PARTY-013",
            COPY,
            "the installation has no namespace of the contractor id in warehouse documents",
            exercise=data_served(NAMING_SYSTEMS, "the namespace of the contractor id in warehouse documents"),
        )
    if not chosen:
        not_exercised(
            "no namespace of Contractors besides the accounting registers: none in the installation, none published at "
            f"GET {NAMING_SYSTEMS}, none carried by the Contractors of GET {PARTIES}",
            exercise=data_served(NAMING_SYSTEMS, "the namespace of the contractor id in warehouse documents"),
        )
    for system, clause in chosen:
        body = contractor_body(contract, unique_name(), namespace=system)
        api.assert_valid(body, "Party", where="the suite's Contractor write body", context="write")
        response = api.post(PARTIES, json=body)
        if clause is not None:
            exercised("ERIS-PARTY-013", clause, value=system, request=POST)
        what = f"{POST} naming the namespace {system} (value omitted)"
        if _refused(response):
            continue  # the target does not register parties there: its choice
        if not 200 <= response.status_code < 300:
            findings.add("ERIS-PARTY-013", f"{what} {_answered(response)}: neither a registration nor a refusal")
            continue
        party = _created(api, response, what, findings)
        if party is not None and not identifiers(party, {system}):
            findings.add(
                "ERIS-PARTY-013",
                f"{what} was accepted, but the created Party has no value in {system}: the namespace given selects "
                f"where the party is registered; its identifiers: {party.get('identifier')}",
            )
    findings.check()


REGISTRIES = {
    "nip": "a body carrying the NIP of an existing party",
    "regon": "a body carrying the REGON of an existing party",
}
"""Registry namespace key -> the clause of ERIS-PARTY-014 a body carrying its number exercises."""


@pytest.mark.requirement("ERIS-PARTY-014")
@pytest.mark.parametrize("registry", sorted(REGISTRIES))
def test_a_post_carrying_the_registry_number_of_an_existing_contractor_never_changes_it(
    api: Api, contract: Contract, registry: str, findings: Findings
) -> None:
    """ "POST always creates a new party. Updating an existing one is PATCH only": a POST of a Contractor whose body
    carries the NIP (or the REGON) of an existing contractor, as the target serves it, under another name, answers a
    new party (another id, another value in the register) or is refused (any 4xx: a target may keep the number
    unique); the existing contractor, read back by its reference key before and after, is unchanged."""
    clause = REGISTRIES[registry]
    system = contract.installation.values[f"{registry}_system"]
    holders = holders_of(contract, contractors(api, contract), system)
    if not holders:
        reason = f"GET {PARTIES}?profile=<Contractor> served no Contractor with a number in {system} and a register id"
        what = f"a Contractor with an identifier in {{{registry}_system}} and a register id"
        exercise = data_selected_by(contract.installation.assumed, f"{registry}_system", PARTIES, what)
        clause_not_exercised("ERIS-PARTY-014", clause, reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    existing = holders[0]
    before = [item for item in read_parties(api, *existing.key) if item.get("id") == existing.party.get("id")]
    if not before:  # the read by a register id is ERIS-PARTY-011's: this test needs it
        found = f"GET {PARTIES}?identifier={token(*existing.key)} does not find {existing.party.get('id')}"
        blocked("ERIS-PARTY-011", found)
    register = profile_systems(contract, "Contractor", reference_key=True)[0]
    body = contractor_body(
        contract, unique_name("Nowy kontrahent"), namespace=False, identifier=[{"system": register}, existing.number]
    )
    api.assert_valid(body, "Party", where="the suite's Contractor write body", context="write")
    response = api.post(PARTIES, json=body)
    number = token(system, existing.number["value"])
    exercised("ERIS-PARTY-014", clause, value=number, request=POST)
    what = f"{POST} carrying {number}, the number of the existing party {existing.party.get('id')},"
    if 200 <= response.status_code < 300:
        party = _created(api, response, what, findings)
        if party is not None and party.get("id") == existing.party.get("id"):
            findings.add("ERIS-PARTY-014", f"{what} answered that party (id {party.get('id')}), not a new one")
        elif party is not None and existing.key in identifiers(party):
            findings.add("ERIS-PARTY-014", f"{what} answered a party with its register id {token(*existing.key)}")
    elif not _refused(response):
        findings.add("ERIS-PARTY-014", f"{what} {_answered(response)}: neither a new party nor a refusal")
    after = [item for item in read_parties(api, *existing.key) if item.get("id") == existing.party.get("id")]
    if not after:
        findings.add("ERIS-PARTY-014", f"after {what} the party no longer reads back by {token(*existing.key)}")
    elif unordered(after[0]) != unordered(before[0]):
        findings.add(
            "ERIS-PARTY-014",
            f"{what} changed that party (read back by {token(*existing.key)}): updating an existing one is PATCH only",
        )
    findings.check()
