"""Data of an installation as real ERP systems keep and publish them, where the contract leaves it open: registry
numbers with wrong check digits, a PESEL on a person who holds assets, NamingSystems in a shape of their own, a
second identifier (a document number) beside a document's id. Each is conformant; `eris init` must read the
installation off them, and a certification from its description must pass (tests/conformance/
test_target_installation.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import on_startup, path_is, rewrite_json_answer
from conformance.deviations.served_data import OWN_NAMESPACE_KEYS
from reference_impl.state import SERVICE

NAMING_SYSTEMS = "/v1/naming-systems"


def _parties(app: web.Application) -> list[dict[str, Any]]:
    return app[SERVICE].store.search("Party", [])


def _spoilt(value: str) -> str:
    """`value` with its last digit changed: a typo that breaks the check digit."""
    return value[:-1] + str((int(value[-1]) + 1) % 10)


# -- "The contract fixes no checksum validity for served data" ----------------------------------------------------


@deviation(
    "registry-numbers-with-wrong-check-digits",
    "half the NIPs of contractors and asset holders, a third of their REGONs and half the PESELs "
    "fail their check digit (typos kept in the register); the PESELs are typed NI (the contract fixes no check digit "
    "of served numbers, and eris validate warns of them)",
)
def registry_numbers_with_wrong_check_digits(app: web.Application, settings: Any) -> None:
    def spoil(app: web.Application) -> None:
        values = app[SERVICE].contract.installation.values
        nip, regon, pesel = values["nip_system"], values["regon_system"], values["pesel_system"]
        referenced = set(_referenced_numbers(app[SERVICE].contract, nip))
        counts = {nip: 0, regon: 0, pesel: 0}
        every = {nip: 2, regon: 3, pesel: 2}  # the first number of every so many in a system is spoilt
        changed = []
        for party in _parties(app):
            for identifier in party.get("identifier") or []:
                system = identifier.get("system")
                if system == pesel:
                    identifier["type"] = {"coding": [{"system": _V2_0203, "code": "NI"}]}
                # numbers that references name (owners, the company the reports are ordered for) are kept: a typo
                # there would leave a reference naming nobody, not a dirty register
                if system in counts and identifier.get("value") not in referenced:
                    counts[system] += 1
                    if counts[system] % every[system] == 1:
                        identifier["value"] = _spoilt(identifier["value"])
            changed.append(party)
        app[SERVICE].load(changed)

    on_startup(app, spoil)


_V2_0203 = "http://terminology.hl7.org/CodeSystem/v2-0203"


def _referenced_numbers(contract: Any, system: str) -> Iterator[str]:
    """The values of `system` that references of the seed data name (owners by NIP)."""
    from reference_impl.seed import seed_resources

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            named = node.get("identifier")
            if isinstance(named, dict) and named.get("system") == system and isinstance(named.get("value"), str):
                yield named["value"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    yield from walk(seed_resources(contract))


# -- "{pesel_system} | PESEL (Employee)" says where the namespace is used; it does not forbid another holder ------


@deviation(
    "pesel-on-an-asset-holder",
    "an AssetHolder who is a natural person carries a PESEL in {pesel_system} beside the Employees' PESELs (the "
    "contract places the PESEL on Employees without forbidding it elsewhere)",
)
def pesel_on_an_asset_holder(app: web.Application, settings: Any) -> None:
    def add(app: web.Application) -> None:
        service = app[SERVICE]
        holder = next(
            p
            for p in _parties(app)
            if str(p.get("id", "")).startswith("party-asset-holder-")
            and not any(i.get("system") == service.contract.installation.values["nip_system"] for i in p["identifier"])
        )
        pesel = {"system": service.contract.installation.values["pesel_system"], "value": "64022801232"}
        service.load([{**holder, "identifier": [*holder["identifier"], pesel]}])

    on_startup(app, add)


# -- NamingSystem: "the key, the actual system, and the reference key"; its shape is not shown ----------------------

_SYSTEM_MEMBERS = ("system", "namespace", "uri", "uniqueId")
_REFERENCE_KEY_FORMS = (
    lambda flag: "yes" if flag else "no",
    lambda flag: "true" if flag else "false",
    lambda flag: {"coding": [{"system": "urn:example:acme:yes-no", "code": "Y" if flag else "N"}]},
    lambda flag: flag,
)


@deviation(
    "naming-systems-in-another-shape",
    "GET /v1/naming-systems serves each namespace with its key as the last arc of its system (text, number or "
    "Coding), a title, the system under `system`, `namespace`, `uri` or `uniqueId[]`, the reference key as yes/no "
    "or true/false text, a Y/N code or a boolean, and `usage` as objects naming a resource type and a profile",
)
def naming_systems_in_another_shape(app: web.Application, settings: Any) -> None:
    def another_shape(position: int, item: dict[str, Any], contract: Any) -> dict[str, Any]:
        system, contract_key = str(item.get("system")), str(item.get("key"))
        own = OWN_NAMESPACE_KEYS.get(contract_key, contract_key)
        arc = system.rsplit(".", 1)[-1] if system.startswith("urn:oid:") else own
        key: Any = (arc, int(arc) if arc.isdigit() else arc, {"code": arc})[position % 3]
        member = _SYSTEM_MEMBERS[position % len(_SYSTEM_MEMBERS)]
        usage = []
        for name in item.get("usage") or []:
            profile = contract.profiles.get(name)
            usage.append(
                {"type": profile.resource_type, "profile": profile.url} if profile is not None else {"type": name}
            )
        return {
            "resourceType": "NamingSystem",
            "id": item.get("id"),
            "key": key,
            "title": item.get("name"),
            member: [{"value": system}] if member == "uniqueId" else system,
            "referenceKey": _REFERENCE_KEY_FORMS[position % len(_REFERENCE_KEY_FORMS)](bool(item.get("referenceKey"))),
            "usage": usage,
        }

    def served(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and isinstance(body.get("items"), list):
            contract = request.app[SERVICE].contract
            body["items"] = [
                another_shape(position, item, contract) if isinstance(item, dict) else item
                for position, item in enumerate(body["items"], start=int(request.query.get("offset", "0") or 0))
            ]
        return body

    rewrite_json_answer(app, path_is("GET", NAMING_SYSTEMS), served)


# -- "identifier | document id in namespace DocumentReference.Id (reference key), number, etc." ---------------------


@deviation(
    "warehouse-document-numbers",
    "each warehouse document carries its number (WZ/0001/2025) beside its id, in a namespace of the installation "
    "published as a NamingSystem that is no reference key; documents are read and referenced by their id",
)
def warehouse_document_numbers(app: web.Application, settings: Any) -> None:
    def number(app: web.Application) -> None:
        service = app[SERVICE]
        contract = service.contract
        arc = max(int(a) for a in contract.installation.namespace_keys.values()) + 1
        system = f"urn:oid:1.2.616.1.113769.4.{contract.installation.number}.{arc}"
        profile = contract.profiles["WarehouseDocument"].url
        conditions = service.queries.conditions("DocumentReference", {"profile": [profile]})
        documents = service.store.search("DocumentReference", conditions)
        for position, document in enumerate(documents, start=1):
            document["identifier"] = [*document["identifier"], {"system": system, "value": f"WZ/{position:04d}/2025"}]
        naming_system = {
            "resourceType": "NamingSystem",
            "id": "ns-warehouse-document-number",
            "name": "warehouse document number",
            "key": "warehouse-document-number",
            "system": system,
            "referenceKey": False,
            "usage": ["WarehouseDocument"],
        }
        service.load([*documents, naming_system])

    on_startup(app, number)
