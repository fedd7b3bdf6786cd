"""A deterministic corpus of contract payloads for the validator benchmark.

`generate(n, seed)` yields `(resource_type, document)`: a mix of the payloads an integrator
validates (Party of the four profiles, Location, DocumentReference of both profiles, the
fixed-asset resources, GrantAssignment, Capability, ValueSet, Notification, report orders), each
roughly 300 to 1,500 bytes of JSON. About 5% are slightly invalid: one mutation each, chosen so
that the eris validator reports at least one error for it (some only a profile rule can see,
some the JSON Schemas see too). `generate_labelled` also yields the mutation's name ("" for a
valid document), so a benchmark can check the verdicts.

The same seed gives the same corpus, with one exception: the RSA public key of the report
orders is generated once per process (key generation cannot be seeded); every order of a run
carries that one key, so only its bytes differ between runs.

Placeholder values (namespace URLs, installation arcs) come from the installation's
`placeholders()`; codes come from the value sets of the terminology, so valid documents are
valid for the installation whatever its configuration.
"""

from __future__ import annotations

import base64
import copy
import random
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from profiles import load_contract, load_installation
from profiles.identifier_formats import nip_check_digit, regon_check_digit
from profiles.installation import INSTALLATION_OID_ARC

INVALID_SHARE = 0.05

Document = dict[str, Any]

_FIRST_NAMES = ("Anna", "Piotr", "Katarzyna", "Tomasz", "Magdalena", "Marek", "Agnieszka", "Paweł", "Ewa", "Jan")
_LAST_NAMES = ("Nowak", "Kowalska", "Wiśniewski", "Wójcik", "Kamińska", "Lewandowski", "Zielińska", "Szymański")
_FIRMS = ("Hydro-Tech", "Polmet", "Baltic Logistics", "Agro-Serwis", "Elektromontaż", "Stal-Bud", "Mazovia Trade")
_FORMS = ("sp. z o.o.", "S.A.", "sp.j.", "sp.k.")
_CITIES = (("Gdańsk", "80-"), ("Kraków", "30-"), ("Poznań", "60-"), ("Wrocław", "50-"), ("Łódź", "90-"))
_STREETS = ("ul. Długa", "ul. Polna", "al. Jerozolimskie", "ul. Przemysłowa", "ul. Kwiatowa", "ul. Portowa")
_ASSETS = ("Forklift Linde H25", "Laptop Dell Latitude 5440", "CNC lathe DMG CLX 350", "Delivery van Iveco Daily")
_CAPABILITIES = ("invoice-approve", "payroll-view", "asset-transfer", "stock-adjust", "report-order", "party-edit")


@cache
def _public_key_pem() -> str:
    """The one RSA-4096 public key of every report order of this process (4096: no size warning)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = rsa.generate_private_key(public_exponent=65537, key_size=4096)
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")


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


class _Builder:
    """Builds documents for one installation; all randomness comes from `rng`."""

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

    # -- small parts -------------------------------------------------------------------------

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
        city, postal = self.rng.choice(_CITIES)
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

    # -- resources ---------------------------------------------------------------------------

    def party(self) -> tuple[str, Document]:
        profile = self.rng.choice(("Employee", "Employer", "Contractor", "AssetHolder"))
        kind = {"Employee": "employee", "Employer": "employer", "Contractor": "contractor"}.get(profile, "asset-holder")
        own_key = {"Employee": "employee", "Employer": "employee", "Contractor": "contractor"}.get(
            profile, "asset-holder"
        )
        person = profile == "Employee"
        name = self.person() if person else self.firm()
        identifiers = [self.identifier(own_key)]
        if person:
            identifiers.append({"system": self.pesel_system, "value": pesel(self.rng)})
        else:
            identifiers.append(self.nip_identifier())
            if self.rng.random() < 0.4:
                identifiers.append({"system": self.regon_system, "value": regon(self.rng)})
        if profile == "Contractor" and self.rng.random() < 0.3:
            identifiers.append(self.identifier("contractor-warehouse"))
        if profile == "Contractor" and self.rng.random() < 0.2:
            identifiers.append({"system": self.eu_vat_system, "value": f"PL{nip(self.rng)}"})
        document: Document = {"resourceType": "Party", "id": self.next_id("party")}
        meta = self.maybe_meta(profile)
        if meta:
            document["meta"] = meta
        document["identifier"] = identifiers
        document["name"] = self.concept("party-name", display=name)
        if self.rng.random() < 0.7:
            document["number"] = f"{kind[0].upper()}-{self.rng.randint(1, 99_999):05d}"
        document["status"] = self.concept("party-status")
        document["type"] = self.concept("party-type")
        categories = [self.concept("party-kind")]
        categories[0]["coding"][0]["code"] = kind
        if self.rng.random() < 0.3:
            categories.append(self.concept("party-category", ("domestic", "foreign", "key-account", "public-sector")))
        document["category"] = categories
        if profile != "Employer" and self.rng.random() < 0.6:
            document["owner"] = self.owner()
        document["address"] = [self.address() for _ in range(1 if self.rng.random() < 0.85 else 2)]
        if self.rng.random() < 0.5:
            document["contactPoint"] = [
                {
                    "system": self.concept("contact-point-system", ("phone", "email", "fax", "web")),
                    "value": "+48 " + " ".join(str(self.rng.randint(100, 899)) for _ in range(3)),
                }
            ]
        if person and self.rng.random() < 0.5:
            document["partOf"] = self.reference("Party", self.identifier("employee"), self.firm())
        if profile == "Contractor" and self.rng.random() < 0.5:
            iban = "PL" + "".join(str(self.rng.randint(0, 9)) for _ in range(26))
            document["contained"] = [{"resourceType": "BankAccount", "iban": iban, "currency": "PLN"}]
        if self.rng.random() < 0.5:
            document["attribute"] = [
                {"code": self.code("party-attribute-type"), "value": self.rng.choice(("A", "B", "C", True, 30))}
            ]
        return "Party", document

    def location(self) -> tuple[str, Document]:
        profile = self.rng.choice(("Warehouse", "StorageLocation", "UsagePlace", None))
        document: Document = {"resourceType": "Location", "id": self.next_id("loc")}
        meta = self.maybe_meta(profile, share=1.0 if profile in ("Warehouse", "StorageLocation") else 0.5)
        if meta:
            document["meta"] = meta
        document["identifier"] = [self.identifier("location")]
        city, _ = self.rng.choice(_CITIES)
        label = {"Warehouse": "Warehouse", "StorageLocation": "Rack", "UsagePlace": "Room"}.get(profile, "Office")
        document["name"] = f"{label} {city} {self.rng.randint(1, 40)}"
        if profile == "UsagePlace":
            document["category"] = [self.concept("assets/location-category")]
        document["owner"] = self.owner()
        if self.rng.random() < 0.6:
            holder = self.identifier("asset-holder") if self.rng.random() < 0.5 else self.nip_identifier()
            document["managingParty"] = self.reference("Party", holder, self.firm())
        if profile != "Warehouse" and self.rng.random() < 0.6:
            document["partOf"] = self.reference("Location", self.identifier("location"))
        document["address"] = self.address()
        if self.rng.random() < 0.4:
            document["comment"] = "Access by badge only; deliveries 7:00-15:00."
        return "Location", document

    def document_reference(self) -> tuple[str, Document]:
        hr = self.rng.random() < 0.5
        document: Document = {"resourceType": "DocumentReference", "id": self.next_id("doc")}
        meta = self.maybe_meta("HrInboxDocument" if hr else "WarehouseDocument", share=0.4)
        if meta:
            document["meta"] = meta
        document["identifier"] = [self.identifier("document-reference")]
        if hr:
            document["category"] = [self.concept("hr/document-category")]
            document["type"] = self.concept("hr/document-type", ("leave-request", "sick-leave", "data-change"))
            document["space"] = self.concept("document-space")
            document["issueDate"] = self.date(2024, 2026)
            employee = self.identifier("employee")
            document["participant"] = [self.reference("Party", employee, self.person())]
            document["attribute"] = [
                {"code": "hr", "value": self.rng.choice(("leave", "payroll", "personal-data"))},
                {"code": "external-system-name", "value": "hr-portal"},
            ]
            document["attachment"] = [self.attachment(self.rng.randint(30, 240))]
        else:
            document["category"] = [self.concept("warehouse/document-category")]
            document["type"] = self.concept("warehouse/document-type", ("PZ", "WZ", "MM", "RW"))
            document["status"] = self.concept("warehouse/document-status", ("draft", "approved", "cancelled"))
            document["issueDate"] = self.date(2024, 2026)
            document["owner"] = self.owner()
            document["participant"] = [self.reference("Party", self.identifier("contractor"), self.firm())]
            positions = []
            for _ in range(self.rng.randint(1, 2)):
                positions.append(
                    {
                        "code": self.concept("warehouse/document-position-type"),
                        "value": [
                            {"type": "quantity", "valueDecimal": round(self.rng.uniform(1, 500), 2)},
                            {"type": "unit", "valueString": self.code("unit-of-measure")},
                        ],
                    }
                )
            document["position"] = positions
            if self.rng.random() < 0.3:
                document["basedOn"] = [self.reference("DocumentReference", self.identifier("document-reference"))]
        return "DocumentReference", document

    def fixed_asset(self) -> tuple[str, Document]:
        document: Document = {
            "resourceType": "FixedAsset",
            "id": self.next_id("fa"),
            "identifier": [self.identifier("fixed-asset", f"ST/{self.rng.randint(1, 9999):04d}")],
            "owner": self.owner(),
            "name": self.rng.choice(_ASSETS),
            "status": self.concept("fixed-asset-status", ("in-use", "leased", "liquidated", "sold")),
            "type": self.concept("asset-kind"),
            "acquisitionDate": self.date(),
            "initialValue": round(self.rng.uniform(2_000, 400_000), 2),
            "currency": "PLN",
            "depreciation": {
                "method": self.rng.choice(("linear", "degressive")),
                "rate": self.rng.choice((10, 20, 30)),
            },
        }
        if self.rng.random() < 0.6:
            document["attribute"] = [
                {"code": "serial-number", "value": f"SN{self.rng.randint(10**7, 10**8 - 1)}"},
                {"code": "manufacturer", "value": self.rng.choice(("Linde", "Dell", "DMG Mori", "Iveco"))},
            ]
        return "FixedAsset", document

    def fixed_asset_document(self) -> tuple[str, Document]:
        document: Document = {
            "resourceType": "FixedAssetDocument",
            "id": self.next_id("fad"),
            "identifier": [self.identifier("fixed-asset-document", f"OT/{self.rng.randint(1, 999)}/2025")],
            "owner": self.owner(),
            "status": self.concept("fixed-asset-document-status"),
            "type": self.concept("esm-document-type"),
            "date": self.date(2024, 2026),
        }
        attachment = self.attachment(self.rng.randint(40, 300))
        attachment["attribute"] = [
            {"code": "workflow-status", "value": self.rng.choice(("new", "in-approval", "approved"))},
            {"code": "workflow-system", "value": "docflow"},
        ]
        if self.rng.random() < 0.5:
            attachment["attribute"].append(
                {"code": "workflow-link", "value": f"https://docflow.example/t/{self.serial}"}
            )
        document["attachment"] = [attachment]
        return "FixedAssetDocument", document

    def fixed_asset_allocation(self) -> tuple[str, Document]:
        dimension = self.rng.choice(("cost-center", "location", "responsible-person"))
        document: Document = {
            "resourceType": "FixedAssetAllocation",
            "id": self.next_id("faa"),
            "owner": self.owner(),
            "category": [{"coding": [{"system": f"{self.vocab}/fixed-asset-allocation-dimension", "code": dimension}]}],
            "dimension": {"coding": [{"system": f"{self.vocab}/fixed-asset-allocation-dimension", "code": dimension}]},
            "fixedAsset": self.reference(
                "FixedAsset", self.identifier("fixed-asset", f"ST/{self.rng.randint(1, 9999):04d}")
            ),
        }
        if dimension == "cost-center":
            document["target"] = self.reference(
                "CostCenter", self.identifier("cost-center", f"MPK-{self.rng.randint(100, 999)}")
            )
        elif dimension == "location":
            document["target"] = self.reference("Location", self.identifier("location"))
        else:
            document["target"] = self.reference("Party", self.identifier("employee"), self.person())
            document["participant"] = [self.reference("Location", self.identifier("location"), "Room 2.14")]
        document["period"] = {"start": self.date(2020, 2025)}
        return "FixedAssetAllocation", document

    def grant_assignment(self) -> tuple[str, Document]:
        granted = self.rng.sample(_CAPABILITIES, self.rng.randint(1, 3))
        document: Document = {
            "resourceType": "GrantAssignment",
            "id": self.next_id("ga"),
            "identifier": [self.identifier("employee", f"GA-{self.rng.randint(1, 99_999)}")],
            "assignedTo": self.reference("Party", self.identifier("employee"), self.person()),
            "granted": [self.reference("Capability", self.identifier("capability", code)) for code in granted],
            "scope": [self.reference("PartyRole", self.identifier("employee"))],
            "period": {"start": self.date(2022, 2025)},
            "basis": {"coding": [{"system": f"{self.vocab}/grant-basis", "code": "role-default"}]},
            "givenBy": self.reference("Party", self.identifier("employee"), self.person()),
            "attribute": [{"code": self.code("grant-assignment-attribute-type"), "value": "true"}],
        }
        if self.rng.random() < 0.5:
            document["period"]["end"] = self.date(2026, 2028)
        return "GrantAssignment", document

    def capability(self) -> tuple[str, Document]:
        code = self.rng.choice(_CAPABILITIES)
        document: Document = {
            "resourceType": "Capability",
            "id": self.next_id("cap"),
            "identifier": [self.identifier("capability", code)],
            "name": code.replace("-", " ").capitalize()
            if self.rng.random() < 0.5
            else {"coding": [{"system": f"{self.vocab}/capability-code", "code": code}]},
            "description": f"Right to {code.replace('-', ' ')} in the ERP modules of the installation.",
            "status": {"coding": [{"system": f"{self.vocab}/capability-status", "code": "active"}]},
            "validFrom": self.date(2020, 2024),
        }
        if self.rng.random() < 0.3:
            document["validTo"] = f"{self.date(2027, 2030)}T23:59:59Z"
        return "Capability", document

    def value_set(self) -> tuple[str, Document]:
        url = self.rng.choice(sorted(self.value_set_resources))
        document = copy.deepcopy(dict(self.value_set_resources[url]))
        profile = self.value_set_profiles.get(url)
        if profile is not None and "meta" not in document:
            document["meta"] = {"profile": [profile]}
        if self.rng.random() < 0.3:
            document["owner"] = self.owner()
        return "ValueSet", document

    def notification(self) -> tuple[str, Document]:
        resource_type, key = self.rng.choice(
            (("Party", "contractor"), ("Party", "employee"), ("FixedAsset", "fixed-asset"), ("Location", "location"))
        )
        document: Document = {
            "resourceType": "Notification",
            "id": self.next_id("ntf"),
            "status": self.concept("notification-status"),
            "operation": self.concept("notification-operation"),
            "date": self.date_time(utc=False),
            "reference": {"type": resource_type, "identifier": self.identifier(key)},
        }
        if self.rng.random() < 0.5:
            document["comment"] = f"{resource_type} changed in the source system"
        return "Notification", document

    def report_order(self) -> tuple[str, Document]:
        document: Document = {
            "format": self.rng.choice(("parquet", "csv")),
            "publicKeyPem": _public_key_pem(),
            "runAt": self.date_time(),
            "storage": self.rng.choice(
                (
                    {"type": "http", "connectionString": "https://receiver.example/reports/in"},
                    {"type": "local", "connectionString": "reports/outbox"},
                    {"type": "blob", "connectionString": "DefaultEndpointsProtocol=https;AccountName=acme"},
                )
            ),
            "reportId": self.rng.choice(self.operations),
            "parameters": {
                "CompanyTaxNo": nip(self.rng),
                "Year": str(self.rng.randint(2020, 2026)),
                "Month": str(self.rng.randint(1, 12)),
            },
        }
        if self.rng.random() < 0.3:
            document["groupId"] = "finance-monthly"
        if self.rng.random() < 0.5:
            document["compression"] = self.rng.random() < 0.5
        return "ReportOrder", document


# -- mutations: each makes a valid document slightly invalid, with at least one eris error ------

Mutation = Callable[[_Builder, Document], None]


def _unknown_element(b: _Builder, d: Document) -> None:
    d["extension"] = [{"url": f"{b.ns}/StructureDefinition/legacy-flag", "valueBoolean": True}]


def _status_plain_string(b: _Builder, d: Document) -> None:
    d["status"] = "active"


def _missing_id(b: _Builder, d: Document) -> None:
    del d["id"]


def _identifier_relative_system(b: _Builder, d: Document) -> None:
    d["identifier"][0]["system"] = "nip"


def _identifier_foreign_installation(b: _Builder, d: Document) -> None:
    d["identifier"][0]["system"] = b.oid("location", installation="99")


def _coding_numeric_code(b: _Builder, d: Document) -> None:
    field = "category" if "category" in d else "type"
    concept = d[field][0] if isinstance(d[field], list) else d[field]
    concept["coding"][0]["code"] = 1


def _status_code_not_in_value_set(b: _Builder, d: Document) -> None:
    d["status"]["coding"][0]["code"] = "archived"


def _party_type_not_in_value_set(b: _Builder, d: Document) -> None:
    d["type"]["coding"][0]["code"] = "crm"


def _party_namespace_of_other_profile(b: _Builder, d: Document) -> None:
    kinds = {c["coding"][0]["code"] for c in d["category"]}
    d["identifier"][0]["system"] = b.oid("asset-holder" if "asset-holder" not in kinds else "contractor")


def _owner_by_pesel(b: _Builder, d: Document) -> None:
    d["owner"] = [b.reference("Party", {"system": b.pesel_system, "value": pesel(b.rng)})]


def _issue_date_month_13(b: _Builder, d: Document) -> None:
    d["issueDate"] = "2025-13-01"


def _participant_not_reference_key(b: _Builder, d: Document) -> None:
    d["participant"][0]["identifier"] = b.identifier("contractor-warehouse")


def _notification_reference_not_installation(b: _Builder, d: Document) -> None:
    d["reference"]["identifier"] = b.nip_identifier()


def _notification_without_date(b: _Builder, d: Document) -> None:
    del d["date"]


def _period_without_start(b: _Builder, d: Document) -> None:
    d["period"] = {"end": "2027-12-31"}


def _valid_from_not_iso(b: _Builder, d: Document) -> None:
    d["validFrom"] = "01.01.2024"


def _value_set_concept_without_code(b: _Builder, d: Document) -> None:
    d["compose"]["include"][0]["concept"] = [{"display": "Other"}]


def _value_set_url_relative(b: _Builder, d: Document) -> None:
    d["url"] = "value-sets/" + d["id"]


def _usage_place_without_category(b: _Builder, d: Document) -> None:
    d["meta"] = {"profile": [f"{b.ns}/StructureDefinition/UsagePlace"]}
    d.pop("category", None)


def _dimension_as_array(b: _Builder, d: Document) -> None:
    d["dimension"] = [d["dimension"]]


def _attachment_data_not_base64(b: _Builder, d: Document) -> None:
    attachments = d.setdefault("attachment", [b.attachment(48)])
    attachments[0]["data"] = attachments[0]["data"].rstrip("=") + "!"


def _order_run_at_not_utc(b: _Builder, d: Document) -> None:
    d["runAt"] = d["runAt"].removesuffix("Z") + "+02:00"


def _order_without_report_id(b: _Builder, d: Document) -> None:
    del d["reportId"]


def _order_month_13(b: _Builder, d: Document) -> None:
    d["parameters"]["Month"] = "13"


def _order_format_xlsx(b: _Builder, d: Document) -> None:
    d["format"] = "xlsx"


def _order_storage_without_connection(b: _Builder, d: Document) -> None:
    d["storage"] = {"type": d["storage"]["type"]}


_BASE = (_missing_id, _identifier_relative_system, _identifier_foreign_installation)

_MUTATIONS: dict[str, tuple[Mutation, ...]] = {
    "Party": (
        *_BASE,
        _unknown_element,
        _status_plain_string,
        _coding_numeric_code,
        _status_code_not_in_value_set,
        _party_type_not_in_value_set,
        _party_namespace_of_other_profile,
        _owner_by_pesel,
    ),
    "Location": (*_BASE, _owner_by_pesel, _usage_place_without_category),
    "DocumentReference": (
        *_BASE,
        _unknown_element,
        _coding_numeric_code,
        _issue_date_month_13,
        _participant_not_reference_key,
        _attachment_data_not_base64,
    ),
    "FixedAsset": (*_BASE, _status_plain_string, _owner_by_pesel),
    "FixedAssetDocument": (*_BASE, _status_code_not_in_value_set, _attachment_data_not_base64),
    "FixedAssetAllocation": (_missing_id, _dimension_as_array, _owner_by_pesel),
    "GrantAssignment": (*_BASE, _unknown_element, _period_without_start),
    "Capability": (*_BASE, _unknown_element, _valid_from_not_iso),
    "ValueSet": (_missing_id, _unknown_element, _value_set_concept_without_code, _value_set_url_relative),
    "Notification": (
        _missing_id,
        _unknown_element,
        _status_code_not_in_value_set,
        _notification_reference_not_installation,
        _notification_without_date,
    ),
    "ReportOrder": (
        _order_run_at_not_utc,
        _order_without_report_id,
        _order_month_13,
        _order_format_xlsx,
        _order_storage_without_connection,
    ),
}

# Share of each kind in the corpus: master data dominates, as in the traffic of an installation.
_MIX: tuple[tuple[Callable[[_Builder], tuple[str, Document]], int], ...] = (
    (_Builder.party, 26),
    (_Builder.location, 8),
    (_Builder.document_reference, 14),
    (_Builder.fixed_asset, 8),
    (_Builder.fixed_asset_document, 8),
    (_Builder.fixed_asset_allocation, 7),
    (_Builder.grant_assignment, 8),
    (_Builder.capability, 5),
    (_Builder.value_set, 4),
    (_Builder.notification, 8),
    (_Builder.report_order, 4),
)


@cache
def _contract() -> Any:
    return load_contract()


def generate_labelled(
    n: int, seed: int = 1, invalid_share: float = INVALID_SHARE
) -> Iterator[tuple[str, Document, str]]:
    """`n` documents as `(resource_type, document, mutation)`; mutation is "" for a valid one."""
    rng = random.Random(seed)
    builder = _Builder(rng)
    kinds = [kind for kind, _ in _MIX]
    weights = [weight for _, weight in _MIX]
    for _ in range(n):
        resource_type, document = rng.choices(kinds, weights)[0](builder)
        mutation = ""
        if rng.random() < invalid_share:
            mutate = rng.choice(_MUTATIONS[resource_type])
            mutate(builder, document)
            mutation = mutate.__name__.lstrip("_")
        yield resource_type, document, mutation


def served(n: int, seed: int = 1) -> Iterator[tuple[str, Document]]:
    """`n` documents as `(resource_type, document)` that name their type, as `eris validate` reads them without
    --resource-type: report orders carry no resourceType and are left out."""
    count = 0
    for resource_type, document, _ in generate_labelled(n * 2, seed):
        if "resourceType" in document:
            yield resource_type, document
            count += 1
            if count == n:
                return


def generate(n: int, seed: int = 1) -> Iterator[tuple[str, Document]]:
    """`n` documents as `(resource_type, document)`, about 5% of them slightly invalid."""
    for resource_type, document, _ in generate_labelled(n, seed):
        yield resource_type, document
