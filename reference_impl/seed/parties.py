"""Parties of all four profiles, their roles and relationships."""

from __future__ import annotations

from typing import Any

from reference_impl.seed.builder import Key
from reference_impl.seed.constants import ASCII, OWN_ORGANIZATION_NAME, OWN_ORGANIZATION_NIP, Resource
from reference_impl.seed.generated import iban_pl, pesel_for, regon_from
from reference_impl.seed.tables import (
    ASSET_HOLDERS,
    CONTRACTORS,
    EMPLOYEE_HIRED,
    EMPLOYEES,
    EMPLOYMENT_TYPE,
    EU_TRADING,
    EU_VAT_PREFIX,
    FORMER_EMPLOYEE,
)


class PartiesPart:
    """The part of the seed builder (reference_impl.seed.Builder) for:
    parties of all four profiles, their roles and relationships."""

    def parties(self) -> list[Resource]:
        return [self.employer_party(), *self.contractor_parties(), *self.employee_parties(), *self.holder_parties()]

    def employer_party(self) -> Resource:
        party = self.party(
            "party-employer",
            "Employer",
            "employer",
            "finance",
            "active",
            OWN_ORGANIZATION_NAME,
            "finance",
            "P-000001",
            [
                {"system": self.nip_system, "value": OWN_ORGANIZATION_NIP, "type": "TAX"},
                {"system": self.regon_system, "value": regon_from("47032135")},
                {"system": self.eu_vat_system, "value": f"PL{OWN_ORGANIZATION_NIP}"},
                self.installation_id("employee", "ORG-0001"),
            ],
            "2024-12-02T07:30:00Z",
        )
        party["address"] = [
            self.address("ul. Przemysłowa 12", "93-373", "Łódź"),
            {**self.address("skr. poczt. 41", "90-001", "Łódź"), "type": self.cc("address-type", "postal")},
        ]
        party["contactPoint"] = [
            self.contact("phone", "+48 42 680 11 00"),
            self.contact("email", "sekretariat@eris-produkcja.example.pl"),
            self.contact("url", "https://eris-produkcja.example.pl"),
        ]
        party["attribute"] = [
            {"code": "finance", "value": "vat-payer"},
            {"code": "assets", "value": "asset-register-keeper"},
        ]
        return party

    def contractor_parties(self) -> list[Resource]:
        parties = []
        heads: dict[int, str] = {}
        for index, (name, city, street, postal, country, _, status, branch_of) in enumerate(CONTRACTORS):
            number = index + 1
            register_id = f"K-{number:06d}"
            identifiers: list[dict[str, Any]] = [
                self.installation_id("contractor", register_id),
                self.installation_id("contractor-warehouse", register_id),
            ]
            if country != "PL":
                prefix, length = EU_VAT_PREFIX[country]
                identifiers.append({"system": self.eu_vat_system, "value": prefix + self._digits(length)})
            elif branch_of is not None:  # a branch: the head office's REGON extended to a local unit
                identifiers.append(
                    {"system": self.regon_system, "value": regon_from(heads[branch_of] + self._digits(4))}
                )
            else:
                nip = self.new_nip()
                regon = self.new_regon()
                heads[index] = regon
                identifiers += [
                    {"system": self.nip_system, "value": nip, "type": "TAX"},
                    {"system": self.regon_system, "value": regon},
                ]
                if index in EU_TRADING:
                    identifiers.append({"system": self.eu_vat_system, "value": f"PL{nip}"})
            party_id = f"party-contractor-{number:06d}"
            party = self.party(
                party_id,
                "Contractor",
                "contractor",
                "finance",
                status,
                name,
                "finance",
                f"P-{100 + number:06d}",
                identifiers,
                f"2024-{1 + index % 12:02d}-{10 + index:02d}T09:{index * 3:02d}:00Z",
            )
            party["category"].append(self.cc("party-category", "domestic" if country == "PL" else "foreign"))
            party["address"] = [self.address(street, postal, city, country)]
            slug = "".join(ch for ch in name.split()[0].lower() if ch.isascii() and ch.isalnum())
            party["contactPoint"] = [
                self.contact("email", f"biuro@{slug}.example.com"),
                self.contact(
                    "phone",
                    f"+48 {self.rng.randint(12, 91)} {self.rng.randint(100, 999)} "
                    f"{self.rng.randint(10, 99)} {self.rng.randint(10, 99)}",
                ),
            ]
            party["attribute"] = [
                {"code": "finance", "value": f"payment-term-days:{(14, 21, 30, 60)[index % 4]}"},
                {"code": "warehouse", "value": "delivery-point" if index % 3 else "pickup"},
            ]
            if country == "PL" and branch_of is None and index % 2 == 0:
                party["contained"] = [
                    {
                        "resourceType": "BankAccount",
                        "id": "bank-1",
                        "accountNumber": iban_pl(f"{self.rng.randrange(10**8):08d}", self._digits(16)),
                        "currency": "PLN",
                    }
                ]
            key = Key("Party", self.ns["contractor"], register_id, name)
            if branch_of is not None:
                head = parties[branch_of]
                head_nip = next(i["value"] for i in head["identifier"] if i["system"] == self.nip_system)
                party["partOf"] = self.ref(
                    Key("Party", self.nip_system, head_nip, head["name"]["coding"][0]["display"])
                )
            self.contractors.append(key)
            parties.append(party)
        return parties

    def employee_parties(self) -> list[Resource]:
        parties = []
        for index, (first, last, born, female, _, _) in enumerate(EMPLOYEES):
            number = index + 1
            employee_id = f"E-{number:04d}"
            name = f"{first} {last}"
            party = self.party(
                f"party-employee-{number:04d}",
                "Employee",
                "employee",
                "hr",
                "inactive" if index == FORMER_EMPLOYEE else "active",
                name,
                "hr",
                f"P-{200 + number:06d}",
                [
                    self.installation_id("employee", employee_id),
                    {"system": self.pesel_system, "value": pesel_for(born, 100 + 37 * index, female)},
                ],
                f"2024-11-{1 + index:02d}T12:00:00Z",
            )
            party["address"] = [
                {
                    **self.address(f"ul. Kwiatowa {3 + index}", "90-001", "Łódź"),
                    "use": self.cc("address-use", "home"),
                }
            ]
            login = f"{first[0]}.{last}".lower().translate(ASCII)
            party["contactPoint"] = [self.contact("email", f"{login}@eris-produkcja.example.pl")]
            superior = EMPLOYEES[index][5]
            center = "CC-100" if superior is None else "CC-210" if index == 1 or superior == 1 else "CC-120"
            party["attribute"] = [
                {"code": "finance", "value": f"cost-center:{center}"},
                {"code": "assets", "value": "responsible-person"},
            ]
            self.employees.append(Key("Party", self.ns["employee"], employee_id, name))
            parties.append(party)
        return parties

    def holder_parties(self) -> list[Resource]:
        parties = []
        for index, (name, has_nip, internal) in enumerate(ASSET_HOLDERS):
            number = index + 1
            holder_id = f"AH-{number:04d}"
            identifiers: list[dict[str, Any]] = [self.installation_id("asset-holder", holder_id)]
            if has_nip:
                identifiers.append({"system": self.nip_system, "value": self.new_nip(), "type": "TAX"})
            party = self.party(
                f"party-asset-holder-{number:04d}",
                "AssetHolder",
                "asset-holder",
                "assets",
                "active",
                name,
                "assets",
                f"P-{300 + number:06d}",
                identifiers,
                f"2024-10-{1 + index:02d}T10:15:00Z",
            )
            party["address"] = [self.address(f"ul. Leasingowa {1 + index}", "00-950", "Warszawa")]
            party["contactPoint"] = [self.contact("phone", f"+48 22 500 {10 + index} 00")]
            party["attribute"] = [{"code": "assets", "value": "internal" if internal else "external"}]
            if internal:
                party["partOf"] = self.ref(self.employer)
            self.asset_holders.append(Key("Party", self.ns["asset-holder"], holder_id, name))
            parties.append(party)
        return parties

    def _digits(self, count: int) -> str:
        return "".join(str(self.rng.randrange(10)) for _ in range(count))

    # -- roles and relationships ------------------------------------------------------------------

    def party_roles(self) -> list[Resource]:
        roles = [self.party_role("party-employer", self.employer, "employer", "Employer")]
        for index, key in enumerate(self.contractors):
            role = CONTRACTORS[index][5]
            roles.append(self.party_role(f"party-contractor-{index + 1:06d}", key, role, role.capitalize()))
        for index, key in enumerate(self.employees):
            roles.append(self.party_role(f"party-employee-{index + 1:04d}", key, "employee", "Employee"))
        return roles

    def relationships(self) -> list[Resource]:
        found = []
        employment_types = self.concepts("employment-type")
        for index, key in enumerate(self.employees):
            code = employment_types[EMPLOYMENT_TYPE[index] % len(employment_types)][0]
            found.append(
                {
                    "resourceType": "PartyRelationship",
                    "id": f"rel-employment-{index + 1:04d}",
                    "owner": self.owner(),
                    "type": self.cc("party-relationship-type", "employer-employee", "Employer - employee"),
                    "partyFrom": self.role_ref(self.employer),
                    "partyTo": self.role_ref(key),
                    "period": {"start": EMPLOYEE_HIRED[index]}
                    if index != FORMER_EMPLOYEE
                    else {"start": EMPLOYEE_HIRED[index], "end": "2024-12-31"},
                    "attribute": [
                        {"code": "employment-id", "value": f"UM/{EMPLOYEE_HIRED[index][:4]}/{index + 1:04d}"},
                        {"code": "employment-type", "value": code},
                        {"code": "position", "value": EMPLOYEES[index][4]},
                    ],
                }
            )
        for index, row in enumerate(EMPLOYEES):
            superior = row[5]
            if superior is None:
                continue
            found.append(
                {
                    "resourceType": "PartyRelationship",
                    "id": f"rel-reporting-{index + 1:04d}",
                    "owner": self.owner(),
                    "type": self.cc("party-relationship-type", "superior-subordinate", "Superior - subordinate"),
                    "partyFrom": self.role_ref(self.employees[superior]),
                    "partyTo": self.role_ref(self.employees[index]),
                    "attribute": [
                        {
                            "code": "hierarchy-level",
                            "value": self.concept(
                                "organization-assignment-hierarchy-level", "department" if superior else "division"
                            )[0],
                        }
                    ],
                }
            )
        return found

    # -- locations --------------------------------------------------------------------------------
