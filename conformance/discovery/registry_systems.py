"""Which systems a target serves are the public registries of the contract ({nip_system}, {regon_system},
{eu_vat_system}, {pesel_system}): one rule, for `eris init`, certify's discovery and the suite's PESEL test.

The contract names the registries but fixes neither their formats nor that served numbers pass a check digit, and
real registers hold typos. So no single sign decides; everything the target shows is weighed:

- what it says: a NamingSystem naming the registry (its key or its words: nip, NIP-PL, "tax number (NIP)"), an
  Identifier.type naming only that registry (NNPOL, or the registry's own name) are said outright; TAX (a NIP or an
  EU VAT number) and NI (a national id of any country) only hint;
- the values: how many pass the registry's check (profiles/identifier_formats.py), how many have its form;
- the holders: a registry the contract places on some profiles ("{pesel_system} | PESEL (Employee)") is held mostly
  by parties of those profiles; a party of another profile beside them (a person who holds assets) is no objection.

A random number passes a check digit about one time in ten, so: said outright, the values need to be of the form
(three in four) with at least one passing; hinted, two passing and a third of all; unsaid, two passing and three in
four. A system both said outright to be one registry and shown by its values to be another is disputed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.discovery.naming_system_items import PublishedNamespace
from conformance.discovery.served_values import identifiers, installation_arcs, type_codes
from profiles import Contract
from profiles.identifier_formats import conforms

__all__ = ["Recognition", "Registry", "recognise_registries", "registry_placeholders"]

SAID_BY_TYPE = {"NNPOL": "pesel", "NIP": "nip", "REGON": "regon", "PESEL": "pesel", "EUVAT": "eu-vat"}
"""Identifier.type codes that name one registry: v2-0203's NNPOL (the national person identifier of Poland), and a
registry's own name as a code."""
HINTED_BY_TYPE = {"TAX": ("nip", "eu-vat"), "NI": ("pesel",), "VAT": ("eu-vat", "nip")}
"""v2-0203 codes that fit a registry among others: TAX, any tax number; NI, a national id of any country."""
NAMED_BY_WORD = {"nip": "nip", "regon": "regon", "pesel": "pesel", "vat": "eu-vat"}
"""Words of a NamingSystem's names that name a registry (its contract key names it too)."""
_DIGITS = {"nip": (10,), "regon": (9, 14), "pesel": (11,)}


@dataclass(frozen=True)
class Registry:
    """A system shown to be one registry, and what shows it."""

    key: str
    """The registry's namespace key: nip, regon, eu-vat, pesel."""
    system: str
    evidence: str
    said: bool
    """The target says so outright (a NamingSystem, a type naming only this registry)."""
    failing: tuple[str, ...] = ()
    """Its values that fail the registry's check: warnings, as eris validate reports them."""


@dataclass
class Recognition:
    registries: dict[str, list[Registry]] = field(default_factory=dict)
    """Registry key -> each system shown to be it."""
    disputed: dict[str, list[Registry]] = field(default_factory=dict)
    """Registry key -> systems the target says are it while their values show another (or the reverse)."""

    def chosen(self, key: str) -> list[Registry]:
        """The systems of registry `key`: the one the target names outright where it names one among several."""
        found = self.registries.get(key, [])
        said = [registry for registry in found if registry.said]
        return said if len(said) == 1 else found


def registry_placeholders(contract: Contract) -> dict[str, str]:
    """Namespace key of a public registry -> the installation placeholder its system is (nip -> nip_system)."""
    by_value = {value: name for name, value in contract.installation.values.items()}
    return {ns.key: by_value[ns.system] for ns in contract.namespaces.values() if ns.system in by_value}


@dataclass
class _Seen:
    values: set[str] = field(default_factory=set)
    holders: Counter[str] = field(default_factory=Counter)
    parties: int = 0
    types: Counter[str] = field(default_factory=Counter)
    published: dict[str, list[str]] = field(default_factory=dict)
    """Registry key -> the reads of NamingSystems naming it for this system."""


def recognise_registries(
    contract: Contract,
    parties: Iterable[tuple[dict[str, Any], tuple[str, ...]]],
    published: Iterable[tuple[PublishedNamespace, str]] = (),
    source: str = "GET /v1/parties",
) -> Recognition:
    """The registries among the systems of `parties` (each Party with the names of its recognised profiles) and of
    the `published` NamingSystems (each with the read that served it)."""
    placeholders = registry_placeholders(contract)
    formats = {ns.key: ns for ns in contract.namespaces.values() if ns.format and ns.key in placeholders}
    seen: dict[str, _Seen] = {}
    for party, profiles in parties:
        for system in {i["system"] for i in identifiers(party) if installation_arcs(i["system"]) is None}:
            held = seen.setdefault(system, _Seen())
            held.parties += 1
            held.holders.update(set(profiles) or {"unrecognised"})
        for identifier in identifiers(party):
            value = identifier.get("value")
            if installation_arcs(identifier["system"]) is None and isinstance(value, str) and value:
                seen[identifier["system"]].values.add(value)
                seen[identifier["system"]].types.update(type_codes(identifier))
    for namespace, read in published:
        named = {key for key in namespace.keys if key in formats}
        named |= {NAMED_BY_WORD[word] for word in namespace.words if word in NAMED_BY_WORD}
        if namespace.system is not None and installation_arcs(namespace.system) is None and len(named) == 1:
            seen.setdefault(namespace.system, _Seen()).published.setdefault(named.pop(), []).append(read)
    found = Recognition()
    for system, held in seen.items():
        shown = [r for r in (_weighed(formats[key], system, held, source) for key in formats) if r is not None]
        said_only = [key for key in formats if _said(held, key) and key not in {r.key for r in shown}]
        for registry in shown:
            table = found.disputed if said_only or len(shown) > 1 else found.registries
            table.setdefault(registry.key, []).append(registry)
        for key in said_only:  # the target says so, and its values say otherwise: shown, never taken
            evidence = f"{_evidence(key, held, formats[key], source)}, which its values do not bear out"
            found.disputed.setdefault(key, []).append(Registry(key, system, evidence, True))
    return found


def _said(held: _Seen, key: str) -> bool:
    return key in held.published or any(SAID_BY_TYPE.get(code) == key for code in held.types)


def _weighed(namespace: Any, system: str, held: _Seen, source: str) -> Registry | None:
    key = namespace.key
    values = sorted(held.values)
    passing = [v for v in values if conforms(namespace.format, v)]
    formed = [v for v in values if _of_form(key, v)]
    hinted = any(key in HINTED_BY_TYPE.get(code, ()) for code in held.types)
    if namespace.profiles:
        owned = sum(count for profile, count in held.holders.items() if profile in namespace.profiles)
        if held.parties and 2 * owned <= held.parties:
            return None
    if _said(held, key):
        shown = not values or (passing and 4 * len(formed) >= 3 * len(values))
    elif hinted:
        shown = len(passing) >= 2 and 3 * len(passing) >= len(values)
    else:
        shown = len(passing) >= 2 and 4 * len(passing) >= 3 * len(values)
    if not shown:
        return None
    failing = tuple(v for v in values if v not in passing)
    return Registry(key, system, _evidence(key, held, namespace, source), _said(held, key), failing)


def _of_form(key: str, value: str) -> bool:
    """Whether `value` has the registry's form whatever its check digit."""
    if key not in _DIGITS:
        return conforms(key, value)
    digits = value.replace("-", "").replace(" ", "")
    return digits.isascii() and digits.isdigit() and len(digits) in _DIGITS[key]


def _evidence(key: str, held: _Seen, namespace: Any, source: str) -> str:
    """What shows the system to be registry `key`, in a few words: "GET /v1/parties (5 of 7 values on Contractor
    parties pass the nip check, type TAX); GET /v1/naming-systems (published as nip)"."""
    values = sorted(held.values)
    passing = [v for v in values if conforms(namespace.format, v)]
    said = []
    if values:
        count = (
            f"{len(values)} value{'s' if len(values) > 1 else ''}"
            if len(passing) == len(values)
            else (f"{len(passing)} of {len(values)} values")
        )
        named = sorted(held.holders, key=lambda p: (-held.holders[p], p))
        holders = " and ".join(filter(None, [", ".join(named[:-1]), named[-1]]))
        typed = f", type {', '.join(sorted(held.types))}" if held.types else ""
        said.append(f"{source} ({count} on {holders} parties pass the {key} check{typed})")
    for read in dict.fromkeys(held.published.get(key, [])):
        said.append(f"{read} (published as {key})")
    return "; ".join(said)
