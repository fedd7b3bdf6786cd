"""Parties: reads by each reference-key identifier and by each profile the target lists, and the owner named by
its NIP, against any implementation.

Data are discovered by reads (a Contractor from GET /v1/parties?profile=<Contractor>, the owner NIP from
the data). The writes of the contract are tested in test_party_posts.py (POST) and test_party_changes.py (PATCH,
the refused writes and no DELETE)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from conformance.evidence.outcomes import data_selected_by, data_served
from conformance.harness.plugin import Api, Findings, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.clauses import PARTY_NAMESPACES, PESEL_CLAUSE, placeholders_by_system, registry_clauses
from conformance.suite.support.writes import (
    claimed_profiles,
    contractors,
    has_identifier,
    identifiers,
    installation_systems,
    nip_system,
    reference_key_systems,
    token,
)
from profiles import Contract

PARTIES = "/v1/parties"


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
