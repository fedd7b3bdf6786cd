"""The base of the seed builder: the installation's systems and codes, and the pieces every part uses."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from profiles import Contract
from reference_impl.seed.constants import OWN_ORGANIZATION_NAME, OWN_ORGANIZATION_NIP, SEED, Resource
from reference_impl.seed.generated import nip_from, regon_from

# -- the fixed part of the data set ---------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """How references name one resource: its type, reference-key identifier and display."""

    resource_type: str
    system: str
    value: str
    display: str


class BuilderBase:
    """What every part of the seed builder shares: the installation's systems and codes, references by
    reference-key identifier, and the pieces of a Party."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        values = contract.installation.placeholders()
        self.vocab = values["vocab_url"]
        self.ns_url = values["ns_url"]
        self.nip_system = values["nip_system"]
        self.regon_system = values["regon_system"]
        self.eu_vat_system = values["eu_vat_system"]
        self.pesel_system = values["pesel_system"]
        self.ns = {key: contract.installation_namespace_key(key) for key in contract.installation.namespace_keys}
        self.rng = random.Random(SEED)
        self.employer = Key("Party", self.nip_system, OWN_ORGANIZATION_NIP, OWN_ORGANIZATION_NAME)
        self.contractors: list[Key] = []
        self.employees: list[Key] = []
        self.asset_holders: list[Key] = []
        self.locations: dict[str, Key] = {}
        self.cost_centers: dict[str, Key] = {}
        self.capabilities: dict[str, Key] = {}
        self.assets: list[Key] = []
        self.components: list[Key] = []
        self.documents: dict[str, Key] = {}
        self.used_nips = {OWN_ORGANIZATION_NIP}

    # -- shared pieces ----------------------------------------------------------------------------

    def cc(self, vocabulary: str, code: str, display: str | None = None) -> dict[str, Any]:
        coding = {"system": f"{self.vocab}/{vocabulary}", "code": code}
        if display is not None:
            coding["display"] = display
        return {"coding": [coding]}

    def concepts(self, vocabulary: str) -> list[tuple[str, str | None]]:
        """The (code, display) pairs of a value set of the terminology with listed codes."""
        value_set = self.contract.value_set_resources[f"{self.vocab}/{vocabulary}"]
        return [
            (concept["code"], concept.get("display"))
            for include in value_set["compose"]["include"]
            for concept in include.get("concept", [])
        ]

    def concept(self, vocabulary: str, wanted: str) -> tuple[str, str | None]:
        """A code of an implementation-defined value set: `wanted` when the installation has it, else its
        first code (the content of these sets is fixed at deployment, not by the contract)."""
        concepts = self.concepts(vocabulary)
        return next((pair for pair in concepts if pair[0] == wanted), concepts[0])

    def coded(self, vocabulary: str, wanted: str) -> dict[str, Any]:
        return self.cc(vocabulary, *self.concept(vocabulary, wanted))

    @staticmethod
    def ref(key: Key, resource_type: str | None = None) -> dict[str, Any]:
        return {
            "type": resource_type or key.resource_type,
            "identifier": {"system": key.system, "value": key.value},
            "display": key.display,
        }

    def role_ref(self, party: Key) -> dict[str, Any]:
        return self.ref(party, "PartyRole")

    def owner(self) -> list[dict[str, Any]]:
        return [self.ref(self.employer)]

    def profile(self, name: str) -> list[str]:
        return [f"{self.ns_url}/StructureDefinition/{name}"]

    def installation_id(self, key: str, value: str) -> dict[str, str]:
        return {"system": self.ns[key], "value": value}

    def new_nip(self) -> str:
        while True:
            nip = nip_from(f"{self.rng.randint(1, 9)}{self.rng.randrange(10**8):08d}")
            if nip is not None and nip not in self.used_nips:
                self.used_nips.add(nip)
                return nip

    def new_regon(self) -> str:
        return regon_from(f"{self.rng.randint(1, 9)}{self.rng.randrange(10**7):07d}")

    def address(self, street: str, postal_code: str, city: str, country: str = "PL") -> dict[str, Any]:
        return {
            "use": self.cc("address-use", "work"),
            "type": self.cc("address-type", "physical"),
            "text": f"{street}, {postal_code} {city}",
            "component": [
                {"type": self.cc("address-component-type", "street"), "value": street},
                {"type": self.cc("address-component-type", "postal-code"), "value": postal_code},
                {"type": self.cc("address-component-type", "city"), "value": city},
                {"type": self.cc("address-component-type", "country"), "value": country},
            ],
        }

    def contact(self, kind: str, value: str) -> dict[str, Any]:
        return {"system": self.cc("contact-point-system", kind), "value": value}

    def party(
        self,
        party_id: str,
        profile: str,
        kind: str,
        party_type: str,
        status: str,
        name: str,
        name_code: str,
        number: str,
        identifiers: list[dict[str, Any]],
        updated: str,
    ) -> Resource:
        return {
            "resourceType": "Party",
            "id": party_id,
            "meta": {"profile": self.profile(profile), "lastUpdated": updated},
            "owner": self.owner(),
            "category": [self.cc("party-kind", kind)],
            "status": self.cc("party-status", status),
            "type": self.cc("party-type", party_type),
            "identifier": identifiers,
            "name": self.cc("party-name", name_code, name),
            "number": number,
        }

    def party_role(self, party_id: str, party: Key, role: str, display: str) -> Resource:
        return {
            "resourceType": "PartyRole",
            "id": f"role-{party_id.removeprefix('party-')}",
            "owner": self.owner(),
            "identifier": [{"system": party.system, "value": party.value}],
            "party": self.ref(party),
            "role": self.cc("party-role", role, display),
        }

    # -- parties ----------------------------------------------------------------------------------
