"""The seed data set of the reference implementation: a small, complete ERP installation.

`seed_resources(contract)` returns every resource the server holds after a fresh start, as it serves them, so
that a newcomer, an integrator's client or the conformance suite finds something real behind every endpoint and
every profile of the contract:

- Parties of all four profiles (34): the own organization (Employer, the `owner` of every other resource and the
  company that cost-calculation reports are ordered for), 16 Contractors (domestic, two branches `partOf` their
  head office, foreign), 12 Employees, 5 AssetHolders: more than the default page size (20). A PartyRole for each
  but the asset holders; PartyRelationships of employment and of a three-level organization.
- Locations of every profile and a site without one; Capabilities and GrantAssignments.
- Cost centers, fixed assets of every asset kind with components and allocations, fixed-asset documents (four
  with content, two without: `$document-content` answers 404), HR inbox and warehouse documents.
- A NamingSystem per namespace of the contract and every ValueSet of the terminology, as they are.

The resources are data: reference_impl/seed/data/*.json hold them as served, in the order served (parties, places,
access, assets, documents; the NamingSystems come after the places, the ValueSets last). Systems and URLs carry
the installation's placeholders (`{vocab_url}`, `{nip_system}`, `{namespaces.contractor}`, ... as in
profiles/namespaces.json); what follows from other data is a directive, an object of one `$` key:

- `{"$ref": "party-employer"}`: a Reference to the resource with that id, by its first identifier (its reference
  key), with its name as display; `{"$ref": ["party-employee-0001", "PartyRole"]}` names the party's role.
- `{"$pdf": [line, ...]}`, `{"$text": [line, ...]}`: base64 of a one-page PDF, or of a UTF-8 text, of these lines.

The NamingSystems follow the contract's namespaces (what each is used for: data/naming-systems.json). `large=N`
adds N Contractors, each with a PartyRole and a GrantAssignment, for benchmarks (`eris serve --seed large:N`),
drawn from `random.Random(SEED + 1)` over the names of data/large-set.json: 100,000 in a few seconds.
Every resource validates without an error (tests/reference_impl/test_seed.py).
"""

from __future__ import annotations

import base64
import copy
import gc
import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from profiles import Contract
from profiles.identifier_formats import nip_check_digit

Resource = dict[str, Any]

DATA_DIR = Path(__file__).with_name("data")

SEED = 20250117
"""Seed the fixed set's numbers were drawn with (they are data now); the large set draws with SEED + 1."""

_PARTS = ("parties", "places", "access", "assets", "documents")


@cache
def _data(name: str) -> Any:
    return json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


_EMPLOYER = _data("parties")["resources"][0]
OWN_ORGANIZATION_NAME: str = _EMPLOYER["name"]["coding"][0]["display"]
OWN_ORGANIZATION_NIP: str = next(i["value"] for i in _EMPLOYER["identifier"] if i["system"] == "{nip_system}")
"""NIP of the own organization (the Employer): the company that reports are ordered for (`CompanyTaxNo`) and
the owner of every seed resource."""


def own_organization_nip() -> str:
    """NIP of the own organization: the `CompanyTaxNo` of report orders and the seed's owner."""
    return OWN_ORGANIZATION_NIP


def seed_resources(contract: Contract, *, large: int = 0) -> list[Resource]:
    """Every resource of the seed data set as served, in a fixed order: the fixed set for this installation,
    then `large` more Contractors, each with a PartyRole and a GrantAssignment."""
    if large < 0:
        raise ValueError(f"large must be 0 or more, not {large}")
    parts = _fixed_set(contract)
    parties, places, access, assets, documents = (parts[name] for name in _PARTS)
    resources = [*parties, *places, *_naming_systems(contract), *access, *assets, *documents, *_value_sets(contract)]
    if large:
        by_id = {resource["id"]: resource for part in parts.values() for resource in part}
        nip_system = contract.installation.values["nip_system"]
        taken = {i["value"] for r in parties for i in r.get("identifier", []) if i["system"] == nip_system}
        # Millions of small acyclic containers: the cyclic collector would walk them again and again
        # while they are built (2.5 times the build time) and can find nothing to free.
        collecting = gc.isenabled()
        gc.disable()
        try:
            resources += _large_set(contract, large, by_id, taken)
        finally:
            if collecting:
                gc.enable()
    return resources


def installation_resources(contract: Contract) -> list[Resource]:
    """What every installation publishes whatever data it holds: its NamingSystems (the identifier namespaces it
    registers parties in) and the ValueSets of its terminology. A server without seed data still serves them."""
    return [*_naming_systems(contract), *_value_sets(contract)]


_SERVED: dict[tuple[tuple[str, str], ...], str] = {}
"""The fixed set of each installation (by its placeholders), resolved once, as JSON text."""


def _fixed_set(contract: Contract) -> dict[str, list[Resource]]:
    """The resources of each part of data/, resolved for this installation: parsed anew for every caller, so
    that no two share an object."""
    installation = contract.installation
    key = tuple(sorted(installation.placeholders().items()))
    if key not in _SERVED:
        parts = {name: installation.substitute(_data(name)["resources"]) for name in _PARTS}
        by_id = {resource["id"]: resource for part in parts.values() for resource in part}
        _SERVED[key] = json.dumps({name: _resolved(part, by_id) for name, part in parts.items()}, ensure_ascii=False)
    parts: dict[str, list[Resource]] = json.loads(_SERVED[key])
    return parts


def _resolved(node: Any, by_id: dict[str, Resource]) -> Any:
    if isinstance(node, list):
        return [_resolved(item, by_id) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target, *as_type = node["$ref"] if isinstance(node["$ref"], list) else [node["$ref"]]
        return _reference(by_id, target, *as_type)
    if "$pdf" in node:
        return _base64(_pdf(node["$pdf"]))
    if "$text" in node:
        return _base64(("\n".join(node["$text"]) + "\n").encode())
    return {key: _resolved(value, by_id) for key, value in node.items()}


def _reference(by_id: dict[str, Resource], target: str, resource_type: str | None = None) -> dict[str, Any]:
    resource = by_id[target]
    key = resource["identifier"][0]
    name = resource.get("name", key["value"])
    display = name if isinstance(name, str) else name["coding"][0]["display"]
    return _ref(resource_type or resource["resourceType"], key["system"], key["value"], display)


def _ref(resource_type: str, system: str, value: str, display: str) -> dict[str, Any]:
    return {"type": resource_type, "identifier": {"system": system, "value": value}, "display": display}


def _owner(contract: Contract) -> list[dict[str, Any]]:
    nip_system = contract.installation.values["nip_system"]
    return [_ref("Party", nip_system, OWN_ORGANIZATION_NIP, OWN_ORGANIZATION_NAME)]


def _naming_systems(contract: Contract) -> list[Resource]:
    first_of_kind = {namespace.key: namespace.system for namespace in reversed(contract.namespaces.values())}
    return [
        {
            "resourceType": "NamingSystem",
            # a second namespace of a kind (a second register) is told apart by its <key> arc
            "id": f"ns-{namespace.key}"
            if first_of_kind[namespace.key] == namespace.system
            else f"ns-{namespace.key}-{namespace.system.rsplit('.', 1)[-1]}",
            "owner": _owner(contract),
            "name": namespace.title,
            "key": namespace.key,
            "system": namespace.system,
            "referenceKey": namespace.reference_key,
            "usage": list(namespace.profiles or _data("naming-systems")["usage"].get(namespace.key, [])),
        }
        for namespace in contract.namespaces.values()
    ]


def _value_sets(contract: Contract) -> list[Resource]:
    return [copy.deepcopy(dict(value_set)) for value_set in contract.value_set_resources.values()]


def _large_set(contract: Contract, count: int, by_id: dict[str, Resource], taken: set[str]) -> list[Resource]:
    """`count` more Contractors, each with one PartyRole and one GrantAssignment."""
    values = contract.installation.values
    vocab, nip_system = values["vocab_url"], values["nip_system"]
    contractor_ns, warehouse_ns = map(contract.installation_namespace_key, ("contractor", "contractor-warehouse"))
    profile = f"{values['ns_url']}/StructureDefinition/Contractor"
    names = _data("large-set")
    rng = random.Random(SEED + 1)
    owner = ("Party", nip_system, OWN_ORGANIZATION_NIP, OWN_ORGANIZATION_NAME)
    portal = _reference(by_id, "capability-crm-portal-access")
    portal_key = (portal["type"], *portal["identifier"].values(), portal["display"])
    nips = (nip for nip in _nip_sequence(951_000_000) if nip not in taken)  # never a number of the fixed set

    def coded(vocabulary: str, code: str, display: str | None = None) -> dict[str, Any]:
        coding = {"system": f"{vocab}/{vocabulary}", "code": code}
        if display is not None:
            coding["display"] = display
        return {"coding": [coding]}

    found: list[Resource] = []
    for offset in range(count):
        number = 100_001 + offset
        register_id = f"K-{number:06d}"
        stem, tail, form = rng.choice(names["stems"]), rng.choice(names["tails"]), rng.choice(names["forms"])
        city, postal = rng.choice(names["cities"])
        name = f"{stem}{tail} {form} {number}"
        role = ("customer", "supplier", "payer")[offset % 3]

        found.append(
            {
                "resourceType": "Party",
                "id": f"party-contractor-{number:06d}",
                "meta": {"profile": [profile], "lastUpdated": "2025-01-02T00:00:00Z"},
                "owner": [_ref(*owner)],
                "category": [coded("party-kind", "contractor")],
                "status": coded("party-status", "active"),
                "type": coded("party-type", "finance"),
                "identifier": [
                    {"system": contractor_ns, "value": register_id},
                    {"system": warehouse_ns, "value": register_id},
                    {"system": nip_system, "value": next(nips), "type": "TAX"},
                ],
                "name": coded("party-name", "finance", name),
                "number": f"P-{number + 100_000:06d}",
                "address": [
                    {"use": coded("address-use", "work"), "text": f"ul. Handlowa {1 + offset % 200}, {postal} {city}"}
                ],
                "contactPoint": [
                    {"system": coded("contact-point-system", "email"), "value": f"biuro@k{number}.example.com"}
                ],
                "attribute": [{"code": "finance", "value": f"payment-term-days:{(14, 30)[offset % 2]}"}],
            }
        )
        found.append(
            {
                "resourceType": "PartyRole",
                "id": f"role-contractor-{number:06d}",
                "owner": [_ref(*owner)],
                "identifier": [{"system": contractor_ns, "value": register_id}],
                "party": _ref("Party", contractor_ns, register_id, name),
                "role": coded("party-role", role, role.capitalize()),
            }
        )
        found.append(
            {
                "resourceType": "GrantAssignment",
                "id": f"grant-contractor-{number:06d}",
                "owner": [_ref(*owner)],
                "assignedTo": _ref("Party", contractor_ns, register_id, name),
                "granted": [_ref(*portal_key)],
                "scope": [_ref("PartyRole", contractor_ns, register_id, name)],
                "period": {"start": "2025-01-02"},
                "basis": coded("grant-basis", "contract"),
            }
        )
    return found


def _nip_sequence(start: int) -> Iterator[str]:
    """Valid NIPs in increasing order from a 9-digit start."""
    number = start
    while True:
        check = nip_check_digit(f"{number:09d}")
        if check is not None:
            yield f"{number:09d}{check}"
        number += 1


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _pdf(lines: list[str]) -> bytes:
    """A one-page PDF 1.4 with these ASCII lines of text, with a correct cross-reference table."""
    text = "\n".join(
        f"BT /F1 11 Tf 56 {780 - 16 * i} Td ({line.replace(chr(92), '').replace('(', '[').replace(')', ']')}) Tj ET"
        for i, line in enumerate(lines)
    ).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


__all__ = [
    "OWN_ORGANIZATION_NAME",
    "OWN_ORGANIZATION_NIP",
    "SEED",
    "installation_resources",
    "own_organization_nip",
    "seed_resources",
]
