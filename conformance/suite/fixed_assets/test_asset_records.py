"""Fixed-asset records: the read-only records (fixed assets, components, allocations, cost centers, usage
places)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness.plugin import Api, Findings, not_exercised
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import as_object, list_read
from conformance.suite.support.writes import (
    codes,
    has_coding,
    identifiers,
    namespace_systems,
    profile_url,
    vocab,
)
from profiles import Contract

ALLOCATIONS = "/v1/fixed-asset-allocations"
ASSET_REFERENCE_TYPES = {"Location", "CostCenter"}
DIRECT_FIELDS = {"location", "costCenter", "costcenter", "responsible", "responsiblePerson", "responsibleParty"}


# -- read-only records ---------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ASSET-004", "ERIS-ASSET-005", "ERIS-READ-001", "ERIS-BASE-001")
def test_fixed_assets_are_served_without_direct_location_cost_center_or_person(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """FixedAsset "Has no direct fields for location, cost center or responsible person"."""
    assets = api.read_all("/v1/fixed-assets", resource_type="FixedAsset")
    if not assets:
        not_exercised("GET /v1/fixed-assets answers no fixed asset", exercise="data served by GET /v1/fixed-assets")
    forbidden = namespace_systems(contract, "location") | namespace_systems(contract, "cost-center")
    for asset in assets:
        direct = sorted(DIRECT_FIELDS & set(asset))
        if direct:
            findings.add("ERIS-ASSET-005", f"the fixed asset {asset.get('id')} has direct field(s) {direct}")
        for name, value in asset.items():
            if name == "owner":
                continue
            for reference in value if isinstance(value, list) else [value]:
                if not isinstance(reference, dict):
                    continue
                named = as_object(reference.get("identifier"))
                if reference.get("type") in ASSET_REFERENCE_TYPES or named.get("system") in forbidden:
                    findings.add(
                        "ERIS-ASSET-005",
                        f"the fixed asset {asset.get('id')} names a location or cost center directly in {name!r}: "
                        "allocations do that (FixedAssetAllocation)",
                    )
    findings.check()


@pytest.mark.requirement("ERIS-ASSET-004", "ERIS-ASSET-006", "ERIS-READ-001")
def test_asset_components_point_to_their_parent_fixed_asset(api: Api, findings: Findings) -> None:
    components = api.read_all("/v1/asset-components", resource_type="AssetComponent")
    if not components:
        not_exercised(
            "GET /v1/asset-components answers no asset component", exercise="data served by GET /v1/asset-components"
        )
    assets = api.read_all("/v1/fixed-assets", resource_type="FixedAsset")
    served = {key for asset in assets for key in identifiers(asset)}
    for component in components:
        pointed = [
            (named.get("system"), named.get("value"))
            for name, value in component.items()
            if name != "owner"
            for reference in (value if isinstance(value, list) else [value])
            if isinstance(reference, dict) and isinstance(named := reference.get("identifier"), dict)
        ]
        if not any(key in served for key in pointed):  # "AssetComponent ... points to the parent FixedAsset"
            findings.add(
                "ERIS-ASSET-006",
                f"the asset component {component.get('id')} points to no fixed asset of GET /v1/fixed-assets "
                f"(references by identifier: {pointed})",
            )
    findings.check()


@pytest.mark.requirement("ERIS-ASSET-004", "ERIS-READ-001")
def test_cost_centers_are_served(api: Api) -> None:
    api.read_all("/v1/cost-centers", resource_type="CostCenter")


@pytest.mark.requirement("ERIS-ASSET-004", "ERIS-ASSET-007")
@pytest.mark.parametrize(
    "path", ["/v1/fixed-assets", "/v1/asset-components", "/v1/fixed-asset-allocations", "/v1/cost-centers"]
)
@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_fixed_asset_records_are_read_only(api: Api, path: str, method: str) -> None:
    response = api.request(method, path, json={"resourceType": "FixedAsset", "name": "eris"})
    assert 400 <= response.status_code < 500, f"{method} {path} answered {response.status_code}; it is read-only"


def _of_category(allocation: dict[str, Any], category: str) -> bool:
    """Whether the allocation carries the category the filter value names: system|code, or a bare code in any
    system (the form of the value is not shown). The category is read in the form served: one CodeableConcept
    where the contract has `category[]` is ERIS-ASSET-002's finding, not the filter's."""
    system, bar, code = category.rpartition("|")
    return code in codes(allocation.get("category"), system if bar else None)


@pytest.mark.requirement("ERIS-ASSET-007", "ERIS-ASSET-002", "ERIS-ASSET-008", "ERIS-READ-001")
def test_allocations_are_read_by_category_and_target_served_cost_centers(
    api: Api, discovery: Discovery, findings: Findings
) -> None:
    """The categories are the target's own: the contract names the dimensions (location, cost center,
    responsible person) but no category code, so they are taken from its value sets (Discovery)."""
    read = list_read(ALLOCATIONS)
    categories = [params["category"] for params in discovery.required_values(read)]
    if not categories:
        not_exercised(
            f"no allocation found by GET {ALLOCATIONS}, with {discovery.searched(read)}",
            exercise="a value set listed by GET /v1/value-sets, its url naming allocation or dimension, whose codes "
            "are the categories of the target's allocations",
        )
    centers = {
        key for center in api.read_all("/v1/cost-centers", resource_type="CostCenter") for key in identifiers(center)
    }
    for category in categories:
        allocations = api.read_all(ALLOCATIONS, {"category": category}, resource_type="FixedAssetAllocation")
        strangers = [a.get("id") for a in allocations if not _of_category(a, category)]
        if strangers:
            findings.add(
                "ERIS-ASSET-007",
                f"GET {ALLOCATIONS}?category={category} returns allocations of another category: {strangers[:10]}",
            )
        for allocation in allocations:
            target = allocation.get("target")
            if (
                isinstance(target, dict)
                and target.get("type") == "CostCenter"
                and isinstance(target.get("identifier"), dict)
            ):
                named = (target["identifier"].get("system"), target["identifier"].get("value"))
                if named not in centers:  # "CostCenter ... Used as FixedAssetAllocation.target"
                    findings.add(
                        "ERIS-ASSET-008",
                        f"the allocation {allocation.get('id')} targets the cost center {named}, "
                        "which /v1/cost-centers does not serve",
                    )
    findings.check()


@pytest.mark.requirement("ERIS-ASSET-009", "ERIS-LOC-001", "ERIS-READ-001")
def test_usage_places_are_locations_of_the_usage_place_category(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """A location the UsagePlace read answers carries the category usage-place (ERIS-LOC-001) when it claims
    the profile; one that does not claim it is another location the read should have left out (ERIS-ASSET-009)."""
    url = profile_url(contract, "UsagePlace")
    places = api.read_all("/v1/locations", {"profile": url}, resource_type="Location")
    if not places:
        not_exercised(
            f"GET /v1/locations?profile={url} answers no usage place",
            exercise="data served by GET /v1/locations: a location of profile UsagePlace",
        )
    system = f"{vocab(contract)}/assets/location-category"
    for place in places:
        if not has_coding(place.get("category") or [], system, "usage-place"):
            claims = url in ((place.get("meta") or {}).get("profile") or [])
            findings.add(
                "ERIS-LOC-001" if claims else "ERIS-ASSET-009",
                f"the location {place.get('id')} answered for profile UsagePlace has no category usage-place of "
                f"{system}" + ("" if claims else " and does not claim the profile"),
            )
    findings.check()
