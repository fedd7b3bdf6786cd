"""Locations, naming systems, capabilities and grant assignments."""

from __future__ import annotations

from typing import ClassVar

from reference_impl.seed.builder import Key
from reference_impl.seed.constants import Resource
from reference_impl.seed.tables import (
    CAPABILITIES,
    LOCATIONS,
)


class PlacesPart:
    """The part of the seed builder (reference_impl.seed.Builder) for:
    locations, naming systems, capabilities and grant assignments."""

    def location_resources(self) -> list[Resource]:
        found = []
        for code, profile, name, parent, manager in LOCATIONS:
            key = Key("Location", self.ns["location"], code, name)
            location: Resource = {
                "resourceType": "Location",
                "id": f"location-{code.lower()}",
                "owner": self.owner(),
                "identifier": [self.installation_id("location", code)],
                "name": name,
                "managingParty": self.ref(self.employees[manager]),
            }
            if profile is not None:
                location["meta"] = {"profile": self.profile(profile)}
            if profile == "UsagePlace":
                location["category"] = [self.cc("assets/location-category", "usage-place", "Usage place")]
            if parent is not None:
                location["partOf"] = self.ref(self.locations[parent])
            if code == "SITE-01":
                location["managingParty"] = self.ref(self.employer)
                location["address"] = self.address("ul. Przemysłowa 12", "93-373", "Łódź")
            if code == "WH-01":
                location["contained"] = [
                    {
                        "resourceType": "Location",
                        "id": "dock",
                        "identifier": [self.installation_id("location", "WH-01-DOCK")],
                        "name": "Rampa rozładunkowa",
                    }
                ]
            location["attribute"] = [{"code": "building", "value": "B" if code.startswith("WH-02") else "A"}]
            self.locations[code] = key
            found.append(location)
        return found

    # -- installation metadata ---------------------------------------------------------------------

    _USAGE: ClassVar[dict[str, tuple[str, ...]]] = {
        "nip": ("Party",),
        "regon": ("Party",),
        "eu-vat": ("Party",),
        "fixed-asset-document": ("FixedAssetDocument",),
        "document-reference": ("DocumentReference",),
        "capability": ("Capability",),
        "fixed-asset": ("FixedAsset", "AssetComponent"),
        "location": ("Location",),
        "cost-center": ("CostCenter",),
    }

    def naming_systems(self) -> list[Resource]:
        first_of_kind = {namespace.key: namespace.system for namespace in reversed(self.contract.namespaces.values())}
        return [
            {
                "resourceType": "NamingSystem",
                # a second namespace of a kind (a second register) is told apart by its <key> arc
                "id": f"ns-{namespace.key}"
                if first_of_kind[namespace.key] == namespace.system
                else f"ns-{namespace.key}-{namespace.system.rsplit('.', 1)[-1]}",
                "owner": self.owner(),
                "name": namespace.title,
                "key": namespace.key,
                "system": namespace.system,
                "referenceKey": namespace.reference_key,
                "usage": list(namespace.profiles or self._USAGE.get(namespace.key, ())),
            }
            for namespace in self.contract.namespaces.values()
        ]

    def capability_resources(self) -> list[Resource]:
        found = []
        for code, name, description, valid_from, valid_to in CAPABILITIES:
            key = Key("Capability", self.ns["capability"], code, name)
            capability: Resource = {
                "resourceType": "Capability",
                "id": f"capability-{code.replace('.', '-')}",
                "owner": self.owner(),
                "identifier": [self.installation_id("capability", code)],
                "name": name,
                "description": description,
                "validFrom": valid_from,
            }
            if valid_to is not None:
                capability["validTo"] = valid_to
            self.capabilities[code] = key
            found.append(capability)
        return found

    def grant(
        self,
        grant_id: str,
        holder: Key,
        capabilities: list[str],
        scope: list[Key],
        basis: str,
        start: str,
        *,
        end: str | None = None,
        given_by: Key | None = None,
        attributes: tuple[tuple[str, str], ...] | list[tuple[str, str]] = (),
    ) -> Resource:
        grant: Resource = {
            "resourceType": "GrantAssignment",
            "id": grant_id,
            "owner": self.owner(),
            "assignedTo": self.ref(holder),
            "granted": [self.ref(self.capabilities[code]) for code in capabilities],
            "period": {"start": start} if end is None else {"start": start, "end": end},
            "basis": self.cc("grant-basis", basis),
        }
        if scope:
            grant["scope"] = [self.role_ref(key) for key in scope]
        if given_by is not None:
            grant["givenBy"] = self.ref(given_by)
        if attributes:
            grant["attribute"] = [{"code": code, "value": value} for code, value in attributes]
        return grant

    def grants(self) -> list[Resource]:
        e = self.employees
        return [
            self.grant(
                "grant-0001",
                e[2],
                ["hr.inbox.read", "hr.leave.approve"],
                e[7:12],
                "position",
                "2014-03-01",
                given_by=e[0],
                attributes=[
                    ("direct-only", "false"),
                    ("employment-id", "UM/2014/0003"),
                    ("order-path", "ORG-0001/CC-100/CC-120"),
                ],
            ),
            self.grant(
                "grant-0002",
                e[1],
                ["hr.leave.approve"],
                e[3:7],
                "position",
                "2012-09-01",
                given_by=e[0],
                attributes=[
                    ("direct-only", "true"),
                    ("employment-id", "UM/2012/0002"),
                    ("order-path", "ORG-0001/CC-200"),
                ],
            ),
            self.grant(
                "grant-0003",
                e[3],
                ["warehouse.document.approve"],
                [],
                "role",
                "2015-06-01",
                given_by=e[1],
                attributes=[("employment-id", "UM/2015/0004")],
            ),
            self.grant(
                "grant-0004",
                e[4],
                ["assets.document.approve"],
                [],
                "delegation",
                "2025-01-01",
                end="2025-03-31",
                given_by=e[1],
                attributes=[("direct-only", "true")],
            ),
            self.grant(
                "grant-0005",
                e[2],
                ["finance.report.order"],
                [self.employer],
                "position",
                "2022-01-01",
                given_by=e[0],
                attributes=[("order-path", "ORG-0001/CC-100")],
            ),
            self.grant(
                "grant-0006",
                e[7],
                ["finance.report.order", "assets.document.approve"],
                [self.employer],
                "position",
                "2010-05-04",
                given_by=e[0],
                attributes=[("employment-id", "UM/2010/0008"), ("order-path", "ORG-0001/CC-100/CC-110")],
            ),
            self.grant(
                "grant-0007",
                self.contractors[0],
                ["crm.portal.access"],
                [self.contractors[0]],
                "contract",
                "2022-06-01",
                given_by=self.employer,
            ),
            self.grant(
                "grant-0008",
                e[11],
                ["hr.inbox.read", "legacy.export"],
                [],
                "direct",
                "2024-07-01",
                end="2024-12-31",
                given_by=e[2],
                attributes=[("direct-only", "true")],
            ),
        ]

    # -- fixed assets -----------------------------------------------------------------------------
