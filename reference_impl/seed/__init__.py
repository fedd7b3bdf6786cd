"""The seed data set of the reference implementation: a small, complete ERP installation.

The facts are data (reference_impl/seed/data/*.json, read by tables.py); the parts of the builder turn them
into resources of one installation (parties.py, places.py, assets.py, documents.py, large_set.py), taking
every system and code from the contract.

`seed_resources(contract)` returns every resource the server holds after a fresh start, as it
serves them. The data set exists so that a newcomer, an integrator's client or the conformance
suite finds something real behind every endpoint and every profile of the contract:

- Parties of all four profiles (34): the own organization (Employer) "Eris Produkcja Sp. z o.o.",
  whose NIP (`OWN_ORGANIZATION_NIP`) is the company that cost-calculation reports are ordered for
  and the `owner` of every other resource; 16 Contractors (domestic with NIP, REGON and EU VAT
  number, two branches with a 14-digit REGON and `partOf` their head office, foreign ones with an
  EU VAT number only, bank accounts in `contained`); 12 Employees with PESEL; 5 AssetHolders.
  More than 20, so the default page size (20) shows paging. Installation ids live in the
  namespaces of each profile (contractor and its warehouse copy, employee, asset-holder).
- One PartyRole per party but the asset holders (roles employer, employee, customer, supplier,
  payer). A PartyRole carries the reference-key identifier of the party that plays it, so
  `participant`, `scope`, `partyFrom` and `partyTo` name it in the Party namespace, as the
  contract's filters do (`participant`: internal Party namespace; `scope=<Party namespace>|<id>`).
- The Employer is also owned by itself: the owner is the company keeping the register.
- PartyRelationships: employer-employee for every employee, superior-subordinate for the
  reporting lines of a three-level organization.
- Locations of every profile (Warehouse, StorageLocation, UsagePlace) plus one site without a
  profile; NamingSystems (one per namespace of the installation); Capabilities and
  GrantAssignments (who may approve leave for whom, who may order reports, a contractor's portal).
- Fixed assets of every asset kind with components, cost centers in a hierarchy, allocations to
  a location, a cost center and a responsible person, and movement documents: four with scan
  content (PDF or text) and workflow data, two without content (`$document-content` answers 404).
- DocumentReferences: HR inbox documents (HrInboxDocument) and warehouse documents
  (WarehouseDocument) with positions, `basedOn` chains and participants.
- Every ValueSet of the terminology, taken from the `profiles/` files as they are.

Every reference names its target by a reference-key identifier that exists in the set; every
resource validates without an error (tests/reference_impl/test_seed.py). The data are fixed: no clock, and the
few generated values (tax numbers, serial numbers, names of the large set) come from
`random.Random(SEED)`, so two calls give equal data.

`large=N` adds N Contractors, each with a PartyRole and a GrantAssignment, for benchmarks
(`eris serve --seed large:N`); they are cheap to build (100,000 in a few seconds) and just as
valid.
"""

from __future__ import annotations

import copy
import gc

from profiles import Contract
from reference_impl.seed.assets import AssetsPart
from reference_impl.seed.builder import BuilderBase
from reference_impl.seed.constants import OWN_ORGANIZATION_NAME, OWN_ORGANIZATION_NIP, SEED, Resource
from reference_impl.seed.documents import DocumentsPart
from reference_impl.seed.large_set import LargeSetPart
from reference_impl.seed.parties import PartiesPart
from reference_impl.seed.places import PlacesPart


def installation_resources(contract: Contract) -> list[Resource]:
    """What every installation publishes whatever data it holds: its NamingSystems (the identifier namespaces it
    registers parties in) and the ValueSets of its terminology. A server without seed data still serves them."""
    builder = Builder(contract)
    return [
        *builder.naming_systems(),
        *(copy.deepcopy(dict(value_set)) for value_set in contract.value_set_resources.values()),
    ]


def own_organization_nip() -> str:
    """NIP of the own organization: the `CompanyTaxNo` of report orders and the seed's owner."""
    return OWN_ORGANIZATION_NIP


class Builder(PartiesPart, PlacesPart, AssetsPart, DocumentsPart, LargeSetPart, BuilderBase):
    """Builds the data set for one installation: every system and code from the contract."""

    def build(self) -> list[Resource]:
        parties = self.parties()
        locations = self.location_resources()
        capabilities = self.capability_resources()
        cost_centers = self.cost_center_resources()
        assets = self.asset_resources()
        components = self.component_resources()
        return [
            *parties,
            *self.party_roles(),
            *self.relationships(),
            *locations,
            *self.naming_systems(),
            *capabilities,
            *self.grants(),
            *cost_centers,
            *assets,
            *components,
            *self.allocations(),
            *self.asset_documents(),
            *self.hr_documents(),
            *self.warehouse_documents(),
            *(copy.deepcopy(dict(value_set)) for value_set in self.contract.value_set_resources.values()),
        ]


def seed_resources(contract: Contract, *, large: int = 0) -> list[Resource]:
    """Every resource of the seed data set as served, in a fixed order: the fixed set for this
    installation, then `large` more Contractors, each with a PartyRole and a GrantAssignment."""
    if large < 0:
        raise ValueError(f"large must be 0 or more, not {large}")
    builder = Builder(contract)
    resources = builder.build()
    if large:
        # Millions of small acyclic containers: the cyclic collector would walk them again and again
        # while they are built (2.5 times the build time) and can find nothing to free.
        collecting = gc.isenabled()
        gc.disable()
        try:
            resources += builder.large(large)
        finally:
            if collecting:
                gc.enable()
    return resources


__all__ = [
    "OWN_ORGANIZATION_NAME",
    "OWN_ORGANIZATION_NIP",
    "SEED",
    "installation_resources",
    "own_organization_nip",
    "seed_resources",
]
