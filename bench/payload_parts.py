"""The small parts of the corpus's payloads, made from one seeded random source: identifiers of this installation
and NIP, REGON and PESEL numbers whose check digits hold, codes of the terminology's value sets, references, names,
dates, addresses, attachments and meta. The makers of whole payloads (payload_makers.py) and the mutations
(payload_mutations.py) build on them.
"""

from __future__ import annotations

import base64
import random
from functools import cache
from typing import Any

from profiles import load_contract, load_installation
from profiles.identifier_formats import nip_check_digit, regon_check_digit
from profiles.installation import INSTALLATION_OID_ARC

__all__ = ["CITIES", "Document", "PayloadParts", "nip", "pesel", "regon"]

Document = dict[str, Any]

_FIRST_NAMES = ("Anna", "Piotr", "Katarzyna", "Tomasz", "Magdalena", "Marek", "Agnieszka", "Paweł", "Ewa", "Jan")
_LAST_NAMES = ("Nowak", "Kowalska", "Wiśniewski", "Wójcik", "Kamińska", "Lewandowski", "Zielińska", "Szymański")
_FIRMS = ("Hydro-Tech", "Polmet", "Baltic Logistics", "Agro-Serwis", "Elektromontaż", "Stal-Bud", "Mazovia Trade")
_FORMS = ("sp. z o.o.", "S.A.", "sp.j.", "sp.k.")
CITIES = (("Gdańsk", "80-"), ("Kraków", "30-"), ("Poznań", "60-"), ("Wrocław", "50-"), ("Łódź", "90-"))
_STREETS = ("ul. Długa", "ul. Polna", "al. Jerozolimskie", "ul. Przemysłowa", "ul. Kwiatowa", "ul. Portowa")


def nip(rng: random.Random) -> str:
    """A NIP (10 digits) whose check digit is valid."""
    while True:
        digits = "".join(map(str, [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(8)]))
        check = nip_check_digit(digits)
        if check is not None:
            return digits + str(check)


def regon(rng: random.Random) -> str:
    """A 9-digit REGON whose check digit is valid."""
    digits = "".join(str(rng.randint(0, 9)) for _ in range(8))
    return digits + str(regon_check_digit(digits))


def pesel(rng: random.Random) -> str:
    """A PESEL (birth date of 1960-1999, serial, check digit) whose check digit is valid."""
    body = f"{rng.randint(60, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(0, 9999):04d}"
    checksum = sum(int(d) * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=True))
    return body + str((10 - checksum % 10) % 10)


@cache
def _contract() -> Any:
    return load_contract()


class PayloadParts:
    """The parts of documents for one installation; all randomness comes from `rng`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        placeholders = load_installation().placeholders()
        self.ns = placeholders["ns_url"]
        self.vocab = placeholders["vocab_url"]
        self.nip_system = placeholders["nip_system"]
        self.regon_system = placeholders["regon_system"]
        self.eu_vat_system = placeholders["eu_vat_system"]
        self.pesel_system = placeholders["pesel_system"]
        self.installation = placeholders["installation"]
        self.keys = {
            name.removeprefix("namespaces."): value
            for name, value in placeholders.items()
            if name.startswith("namespaces.")
        }
        contract = _contract()
        self.value_sets = contract.value_sets
        self.value_set_resources = contract.value_set_resources
        self.value_set_profiles = {
            profile.canonical_url: profile.url
            for profile in contract.profiles.values()
            if profile.resource_type == "ValueSet" and profile.canonical_url
        }
        self.operations = sorted(contract.operations)
        self.serial = 0

    def next_id(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}-{self.serial:07d}"

    def oid(self, key: str, installation: str | None = None) -> str:
        return f"{INSTALLATION_OID_ARC}{installation or self.installation}.{self.keys[key]}"

    def code(self, value_set: str, fallback: tuple[str, ...] = ()) -> str:
        """A code of the value set: one of its codes, or of `fallback` when it takes any code."""
        codes = self.value_sets[f"{self.vocab}/{value_set}"].systems[f"{self.vocab}/{value_set}"]
        return self.rng.choice(sorted(codes) if codes else fallback)

    def concept(self, value_set: str, fallback: tuple[str, ...] = (), display: str | None = None) -> dict[str, Any]:
        code = self.code(value_set, fallback)
        coding = {"system": f"{self.vocab}/{value_set}", "code": code}
        if display is not None or self.rng.random() < 0.5:
            coding["display"] = display or code.replace("-", " ").capitalize()
        return {"coding": [coding]}

    def identifier(self, key: str, value: str | None = None) -> dict[str, Any]:
        return {"system": self.oid(key), "value": value or f"{self.rng.randint(1, 999_999):06d}"}

    def nip_identifier(self, value: str | None = None) -> dict[str, Any]:
        identifier = {"system": self.nip_system, "value": value or nip(self.rng)}
        if self.rng.random() < 0.5:
            identifier["type"] = "TAX"
        return identifier

    def reference(self, resource_type: str, identifier: dict[str, Any], display: str | None = None) -> dict[str, Any]:
        reference = {"type": resource_type, "identifier": identifier}
        if display:
            reference["display"] = display
        return reference

    def owner(self) -> list[dict[str, Any]]:
        return [self.reference("Party", self.nip_identifier(), self.firm())]

    def person(self) -> str:
        return f"{self.rng.choice(_FIRST_NAMES)} {self.rng.choice(_LAST_NAMES)}"

    def firm(self) -> str:
        return f"{self.rng.choice(_FIRMS)} {self.rng.choice(_FORMS)}"

    def date(self, first_year: int = 2015, last_year: int = 2026) -> str:
        return f"{self.rng.randint(first_year, last_year)}-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"

    def date_time(self, utc: bool = True) -> str:
        zone = "Z" if utc or self.rng.random() < 0.5 else self.rng.choice(("+01:00", "+02:00"))
        return f"{self.date(2024, 2026)}T{self.rng.randint(0, 23):02d}:{self.rng.randint(0, 59):02d}:00{zone}"

    def address(self) -> dict[str, Any]:
        city, postal = self.rng.choice(CITIES)
        return {
            "use": self.rng.choice(("billing", "postal", "physical")),
            "line": [f"{self.rng.choice(_STREETS)} {self.rng.randint(1, 180)}"],
            "city": city,
            "postalCode": f"{postal}{self.rng.randint(0, 999):03d}",
            "country": "PL",
        }

    def attachment(self, size: int) -> dict[str, Any]:
        data = base64.b64encode(self.rng.randbytes(size)).decode("ascii")
        return {"contentType": self.rng.choice(("application/pdf", "image/png")), "data": data}

    def maybe_meta(self, profile: str | None, share: float = 0.6) -> dict[str, Any] | None:
        if profile is None or self.rng.random() >= share:
            return None
        meta: dict[str, Any] = {"profile": [f"{self.ns}/StructureDefinition/{profile}"]}
        if self.rng.random() < 0.5:
            meta["lastUpdated"] = self.date_time()
        return meta
