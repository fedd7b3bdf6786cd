"""One maker per kind of payload of the corpus (Party of the four profiles, Location, DocumentReference of both
profiles, the fixed-asset resources, GrantAssignment, Capability, ValueSet, Notification, report orders), each a valid
document of roughly 300 to 1,500 bytes of JSON, built from the parts of payload_parts.py.
"""

from __future__ import annotations

import copy
from functools import cache

from payload_parts import CITIES, Document, PayloadParts, nip, pesel, regon

__all__ = ["PayloadMaker"]

_ASSETS = ("Forklift Linde H25", "Laptop Dell Latitude 5440", "CNC lathe DMG CLX 350", "Delivery van Iveco Daily")
_CAPABILITIES = ("invoice-approve", "payroll-view", "asset-transfer", "stock-adjust", "report-order", "party-edit")


@cache
def _public_key_pem() -> str:
    """The one RSA-4096 public key of every report order of this process (4096: no size warning)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = rsa.generate_private_key(public_exponent=65537, key_size=4096)
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")


class PayloadMaker(PayloadParts):
    """Makes whole documents for one installation; all randomness comes from `rng`."""

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
        city, _ = self.rng.choice(CITIES)
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
