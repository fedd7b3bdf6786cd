"""The large set of Contractors for benchmarks (`--seed large:N`)."""

from __future__ import annotations

import random

from reference_impl.seed.builder import Key
from reference_impl.seed.constants import SEED, Resource
from reference_impl.seed.generated import nip_sequence
from reference_impl.seed.tables import (
    CITIES,
    FORMS,
    STEMS,
    TAILS,
)


class LargeSetPart:
    """The part of the seed builder (reference_impl.seed.Builder) for:
    the large set of Contractors for benchmarks (`--seed large:N`)."""

    # -- the large set ----------------------------------------------------------------------------

    def large(self, count: int) -> list[Resource]:
        """`count` more Contractors, each with one PartyRole and one GrantAssignment."""
        rng = random.Random(SEED + 1)
        nips = nip_sequence(951_000_000)
        roles = ("customer", "supplier", "payer")
        profile = self.profile("Contractor")
        portal = self.capabilities["crm.portal.access"]
        contractor_ns, warehouse_ns = self.ns["contractor"], self.ns["contractor-warehouse"]
        found: list[Resource] = []
        for offset in range(count):
            number = 100_001 + offset
            register_id = f"K-{number:06d}"
            stem, tail, form = rng.choice(STEMS), rng.choice(TAILS), rng.choice(FORMS)
            city, postal = rng.choice(CITIES)
            name = f"{stem}{tail} {form} {number}"
            nip = next(nips)
            while nip in self.used_nips:  # never the number of a party of the fixed set
                nip = next(nips)
            party_id = f"party-contractor-{number:06d}"
            key = Key("Party", contractor_ns, register_id, name)
            role = roles[offset % 3]
            found.append(
                {
                    "resourceType": "Party",
                    "id": party_id,
                    "meta": {"profile": list(profile), "lastUpdated": "2025-01-02T00:00:00Z"},
                    "owner": self.owner(),
                    "category": [self.cc("party-kind", "contractor")],
                    "status": self.cc("party-status", "active"),
                    "type": self.cc("party-type", "finance"),
                    "identifier": [
                        {"system": contractor_ns, "value": register_id},
                        {"system": warehouse_ns, "value": register_id},
                        {"system": self.nip_system, "value": nip, "type": "TAX"},
                    ],
                    "name": self.cc("party-name", "finance", name),
                    "number": f"P-{number + 100_000:06d}",
                    "address": [
                        {
                            "use": self.cc("address-use", "work"),
                            "text": f"ul. Handlowa {1 + offset % 200}, {postal} {city}",
                        }
                    ],
                    "contactPoint": [self.contact("email", f"biuro@k{number}.example.com")],
                    "attribute": [{"code": "finance", "value": f"payment-term-days:{(14, 30)[offset % 2]}"}],
                }
            )
            found.append(
                {
                    "resourceType": "PartyRole",
                    "id": f"role-contractor-{number:06d}",
                    "owner": self.owner(),
                    "identifier": [{"system": contractor_ns, "value": register_id}],
                    "party": self.ref(key),
                    "role": self.cc("party-role", role, role.capitalize()),
                }
            )
            found.append(
                {
                    "resourceType": "GrantAssignment",
                    "id": f"grant-contractor-{number:06d}",
                    "owner": self.owner(),
                    "assignedTo": self.ref(key),
                    "granted": [self.ref(portal)],
                    "scope": [self.role_ref(key)],
                    "period": {"start": "2025-01-02"},
                    "basis": self.cc("grant-basis", "contract"),
                }
            )
        return found
