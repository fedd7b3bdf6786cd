"""What a write of a party may choose, and where a registry number lives, found in what the target publishes
(test_party_write_choices.py, test_party_registries.py):

- the installation namespaces of Contractors a POST may name: the accounting registers and the warehouse copy of the
  installation (configured, or published beside them at GET /v1/naming-systems), and every other installation
  namespace the target's Contractors carry;
- an existing contractor carrying a registry number (NIP, REGON), with the reference key it is read back by;
- the PESEL of each Employee, wherever the target serves it: in {pesel_system}, or in another system that says it
  holds a PESEL (Identifier.type) or whose values show it (conformance.registry_systems, as `eris init` reads them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conformance.registry_systems import registry_systems
from conformance.served_values import installation_arcs, type_codes
from conformance.suite.support.writes import identifiers, profile_systems
from profiles import Contract

__all__ = [
    "COPY",
    "REGISTER",
    "Pesel",
    "RegistryHolder",
    "contractor_namespaces",
    "holders_of",
    "pesels_of_employees",
]

REGISTER = "namespace present: the register"
COPY = "namespace present: the copy"
"""The clauses of ERIS-PARTY-013 a POST naming a namespace exercises."""

PESEL_TYPE_CODES = frozenset({"NNPOL"})
"""v2-0203 codes that name the PESEL whatever the value: NN<ISO 3166 alpha-3>, the national person identifier of
Poland."""
NATIONAL_ID_CODES = frozenset({"NI"})
"""v2-0203 codes of a national identifier of any country: a PESEL only when the value has its form (11 digits; the
check digit is not asked, real registers hold wrong ones)."""


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


@dataclass(frozen=True)
class Pesel:
    """An identifier of an Employee that holds a PESEL, and why the suite takes it for one."""

    employee: dict[str, Any]
    system: str
    value: str
    because: str


def pesels_of_employees(
    contract: Contract, parties: list[tuple[dict[str, Any], tuple[str, ...]]], source: str
) -> list[Pesel]:
    """The PESEL identifiers of the Employees among `parties` (each with the names of its recognised profiles):
    those in {pesel_system}, whatever their value, and those in another system (no installation namespace, no other
    registry of the contract) that the identifier's type names a PESEL, or that conformance.registry_systems shows
    to be the PESEL registry (every value there, on Employees only, passes the PESEL check)."""
    pesel_system = contract.installation.values["pesel_system"]
    others = {contract.installation.values[name] for name in ("nip_system", "regon_system", "eu_vat_system")}
    by_values = registry_systems(contract, parties, source).get("pesel_system", {})
    found = []
    for party, profiles in parties:
        if "Employee" not in profiles:
            continue
        for identifier in party.get("identifier") or []:
            if not isinstance(identifier, dict):
                continue
            system, value = identifier.get("system"), identifier.get("value")
            if not isinstance(system, str) or not isinstance(value, str) or not value:
                continue
            if system == pesel_system:
                found.append(Pesel(party, system, value, f"in {{pesel_system}} = {pesel_system}"))
            elif system not in others and installation_arcs(system) is None:
                because = _named_a_pesel(identifier, value) or "; ".join(by_values.get(system, []))
                if because:
                    found.append(Pesel(party, system, value, because))
    return found


def _named_a_pesel(identifier: dict[str, Any], value: str) -> str:
    codes = type_codes(identifier)
    if codes & PESEL_TYPE_CODES:
        return f"its type is {', '.join(sorted(codes & PESEL_TYPE_CODES))} (v2-0203: the national person id of Poland)"
    if codes & NATIONAL_ID_CODES and len(value) == 11 and value.isascii() and value.isdigit():
        return "its type is NI (v2-0203: national unique individual identifier) and its value has the PESEL's 11 digits"
    return ""
