"""Which systems of a target's Party identifiers are the public registries of the contract ({nip_system},
{regon_system}, {eu_vat_system}, {pesel_system}), told by their values: a system all of whose values pass exactly
one registry's check (profiles/identifier_formats.py), on parties of the profiles that registry serves
(profiles/namespaces.json: PESEL on Employees only), is that registry. Identifier.type, in whatever form it comes,
is reported beside the values as what the target says of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.served_values import identifiers, installation_arcs, type_codes
from profiles import Contract
from profiles.identifier_formats import conforms

__all__ = ["registry_placeholders", "registry_systems"]


def registry_placeholders(contract: Contract) -> dict[str, str]:
    """Namespace key of a public registry -> the installation placeholder its system is (nip -> nip_system)."""
    by_value = {value: name for name, value in contract.installation.values.items()}
    return {ns.key: by_value[ns.system] for ns in contract.namespaces.values() if ns.system in by_value}


@dataclass
class _Served:
    values: set[str] = field(default_factory=set)
    holders: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)


def registry_systems(
    contract: Contract, parties: Iterable[tuple[dict[str, Any], tuple[str, ...]]], source: str
) -> dict[str, dict[str, list[str]]]:
    """Placeholder (nip_system, ...) -> each system its values show it to be -> where. `parties`: each Party with
    the names of the profiles recognised for it."""
    served: dict[str, _Served] = {}
    for party, profiles in parties:
        for identifier in identifiers(party):
            value = identifier.get("value")
            if installation_arcs(identifier["system"]) is None and isinstance(value, str) and value:
                seen = served.setdefault(identifier["system"], _Served())
                seen.values.add(value)
                seen.holders.update(profiles or ("unrecognised",))
                seen.types |= type_codes(identifier)
    placeholders = registry_placeholders(contract)
    registries = [ns for ns in contract.namespaces.values() if ns.format and ns.key in placeholders]
    found: dict[str, dict[str, list[str]]] = {}
    for system, seen in served.items():
        passing = [ns for ns in registries if all(conforms(ns.format or "", v) for v in seen.values)]
        if len(passing) != 1 or (passing[0].profiles and not seen.holders <= set(passing[0].profiles)):
            continue
        registry = passing[0]
        count = f"{len(seen.values)} value{'s' if len(seen.values) > 1 else ''}"
        typed = f", type {', '.join(sorted(seen.types))}" if seen.types else ""
        said = f"{source} ({count} on {', '.join(sorted(seen.holders))} parties pass the {registry.key} check{typed})"
        found.setdefault(placeholders[registry.key], {})[system] = [said]
    return found
