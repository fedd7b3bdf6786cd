"""What a write of a party may choose, found in what the target publishes (test_party_write_choices.py):

- the installation namespaces of Contractors a POST may name: the accounting registers and the warehouse copy of the
  installation (configured, or published beside them at GET /v1/naming-systems), and every other installation
  namespace the target's Contractors carry;
- an existing contractor carrying a registry number (NIP, REGON), with the reference key it is read back by.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conformance.served_values import installation_arcs
from conformance.suite.support.writes import identifiers, profile_systems
from profiles import Contract

__all__ = [
    "COPY",
    "REGISTER",
    "RegistryHolder",
    "contractor_namespaces",
    "holders_of",
]

REGISTER = "namespace present: the register"
COPY = "namespace present: the copy"
"""The clauses of ERIS-PARTY-013 a POST naming a namespace exercises."""


def contractor_namespaces(contract: Contract, contractors: Iterable[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(system, the ERIS-PARTY-013 clause it exercises) of each namespace a POST of a Contractor may name besides the
    accounting registers: the warehouse copies (COPY), then each installation namespace the target's Contractors
    carry that the contract places nowhere (None: a register or a copy, the suite cannot tell)."""
    copies = [(system, COPY) for system in profile_systems(contract, "Contractor", reference_key=False)]
    carried = [
        system
        for party in contractors
        for system, _ in identifiers(party)
        if installation_arcs(system) is not None and system not in contract.namespaces
    ]
    return [*copies, *((system, None) for system in dict.fromkeys(carried))]


@dataclass(frozen=True)
class RegistryHolder:
    """An existing party with a registry number, and the reference key it is read back by."""

    party: dict[str, Any]
    number: dict[str, Any]
    """The registry identifier as the target serves it (system, value, and type when it has one)."""
    key: tuple[str, str]
    """(system, value) in an accounting register of Contractors: one party has it."""


def holders_of(contract: Contract, contractors: list[dict[str, Any]], system: str) -> list[RegistryHolder]:
    """The `contractors` carrying a number in `system` and an identifier in an accounting register. First those whose
    number no party names as its owner: a new party with the number makes a reference by it name two."""
    registers = profile_systems(contract, "Contractor", reference_key=True)
    owners = {
        (owner.get("identifier") or {}).get("value")
        for party in contractors
        for owner in party.get("owner") or []
        if isinstance(owner, dict) and isinstance(owner.get("identifier"), dict)
    }
    found = []
    for party in contractors:
        numbers = [i for i in party.get("identifier") or [] if isinstance(i, dict) and i.get("system") == system]
        keys = identifiers(party, registers)
        if numbers and keys and isinstance(numbers[0].get("value"), str) and numbers[0]["value"]:
            found.append(RegistryHolder(party, dict(numbers[0]), keys[0]))
    return sorted(found, key=lambda holder: holder.number["value"] in owners)
