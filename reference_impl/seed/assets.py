"""Cost centers, fixed assets, components, allocations and fixed-asset documents."""

from __future__ import annotations

from typing import Any

from reference_impl.seed.builder import Key
from reference_impl.seed.constants import ASCII, OWN_ORGANIZATION_NAME, Resource
from reference_impl.seed.generated import b64, pdf
from reference_impl.seed.tables import (
    ASSET_DOCUMENTS,
    ASSETS,
    COMPONENTS,
    COST_CENTERS,
)


class AssetsPart:
    """The part of the seed builder (reference_impl.seed.Builder) for:
    cost centers, fixed assets, components, allocations and fixed-asset documents."""

    def cost_center_resources(self) -> list[Resource]:
        found = []
        for code, name, parent, start, end in COST_CENTERS:
            key = Key("CostCenter", self.ns["cost-center"], code, name)
            center: Resource = {
                "resourceType": "CostCenter",
                "id": f"cost-center-{code.lower()}",
                "owner": self.owner(),
                "identifier": [self.installation_id("cost-center", code)],
                "name": name,
                "period": {"start": start} if end is None else {"start": start, "end": end},
            }
            if parent is not None:
                center["partOf"] = self.ref(self.cost_centers[parent])
            self.cost_centers[code] = key
            found.append(center)
        return found

    def asset_resources(self) -> list[Resource]:
        found = []
        for index, row in enumerate(ASSETS):
            number, name, kind, status, acquired, value, rate, _, _, _, holder, maker, model = row
            full_name = f"{name} {maker} {model}" if kind != "building" else name
            key = Key("FixedAsset", self.ns["fixed-asset"], number, full_name)
            asset = {
                "resourceType": "FixedAsset",
                "id": f"fixed-asset-{index + 1:04d}",
                "owner": self.owner(),
                "identifier": [self.installation_id("fixed-asset", number)],
                "name": full_name,
                "status": self.cc("fixed-asset-status", status),
                "type": self.coded("asset-kind", kind),
                "acquisitionDate": acquired,
                "commissioningDate": acquired,
                **self.values(value, rate, acquired),
                "attribute": [
                    {"code": self.concept("esm-attribute", "manufacturer")[0], "value": maker},
                    {"code": self.concept("esm-attribute", "model")[0], "value": model},
                    {
                        "code": self.concept("esm-attribute", "serial-number")[0],
                        "value": f"SN{self.rng.randrange(10**8):08d}",
                    },
                    {"code": self.concept("esm-attribute", "year-of-manufacture")[0], "value": acquired[:4]},
                ],
            }
            if holder is not None:
                asset["holder"] = self.ref(self.asset_holders[holder])
            self.assets.append(key)
            found.append(asset)
        return found

    def values(self, value: float, rate: float, start: str, *, as_of: int = 2024) -> dict[str, Any]:
        years = max(0, as_of - int(start[:4]))
        depreciation = round(min(value, value * rate / 100 * years), 2)
        tax_rate = min(100.0, rate * 1.5 if rate < 20 else rate)
        tax_depreciation = round(min(value, value * tax_rate / 100 * years), 2)
        return {
            "balanceValue": {
                "initial": float(value),
                "depreciation": depreciation,
                "net": round(value - depreciation, 2),
                "currency": "PLN",
            },
            "taxValue": {
                "initial": float(value),
                "depreciation": tax_depreciation,
                "net": round(value - tax_depreciation, 2),
                "currency": "PLN",
            },
            "depreciation": {"method": "linear", "rate": rate, "taxRate": tax_rate, "start": start},
        }

    def component_resources(self) -> list[Resource]:
        found = []
        for index, (asset_index, suffix, name, share) in enumerate(COMPONENTS):
            asset_row = ASSETS[asset_index]
            parent = self.assets[asset_index]
            number = f"{parent.value}/{suffix}"
            key = Key("AssetComponent", self.ns["fixed-asset"], number, name)
            found.append(
                {
                    "resourceType": "AssetComponent",
                    "id": f"asset-component-{index + 1:04d}",
                    "owner": self.owner(),
                    "identifier": [self.installation_id("fixed-asset", number)],
                    "name": name,
                    "fixedAsset": self.ref(parent),
                    "status": self.cc("fixed-asset-status", asset_row[3]),
                    "acquisitionDate": asset_row[4],
                    **self.values(round(asset_row[5] * share, 2), asset_row[6], asset_row[4]),
                    "attribute": [
                        {
                            "code": self.concept("esm-attribute", "serial-number")[0],
                            "value": f"SN{self.rng.randrange(10**8):08d}",
                        }
                    ],
                }
            )
            self.components.append(key)
        return found

    def allocation(
        self,
        number: int,
        category: str,
        target: Key,
        start: str,
        *,
        asset: Key | None = None,
        component: Key | None = None,
        place: Key | None = None,
        end: str | None = None,
    ) -> Resource:
        display = {"location": "Location", "cost-center": "Cost center", "responsible-person": "Responsible person"}
        allocation: Resource = {
            "resourceType": "FixedAssetAllocation",
            "id": f"allocation-{number:04d}",
            "owner": self.owner(),
            "category": [self.cc("assets/allocation-category", category, display[category])],
        }
        if asset is not None:
            allocation["fixedAsset"] = self.ref(asset)
        if component is not None:
            allocation["assetComponent"] = self.ref(component)
        allocation["target"] = self.ref(target)
        if place is not None:
            allocation["participant"] = [self.ref(place)]
        allocation["dimension"] = self.cc("fixed-asset-allocation-dimension", category, display[category])
        allocation["period"] = {"start": start} if end is None else {"start": start, "end": end}
        return allocation

    def allocations(self) -> list[Resource]:
        found = []
        for index, row in enumerate(ASSETS):
            status, acquired, place, center, person = row[3], row[4], row[7], row[8], row[9]
            asset = self.assets[index]
            end = {"sold": "2024-03-28", "liquidated": "2024-10-15"}.get(status)
            if place is not None:
                found.append(
                    self.allocation(len(found) + 1, "location", self.locations[place], acquired, asset=asset, end=end)
                )
            found.append(
                self.allocation(
                    len(found) + 1, "cost-center", self.cost_centers[center], acquired, asset=asset, end=end
                )
            )
            if person is not None:
                found.append(
                    self.allocation(
                        len(found) + 1,
                        "responsible-person",
                        self.employees[person],
                        acquired,
                        asset=asset,
                        end=end,
                        place=self.locations[place] if place is not None else None,
                    )
                )
        ups = self.components[3]
        found.append(
            self.allocation(
                len(found) + 1, "location", self.locations["UP-003"], "2022-04-04", asset=self.assets[4], component=ups
            )
        )
        # a link of a usage place to a cost center (no asset): the workshop is booked to maintenance
        found.append(
            self.allocation(
                len(found) + 1, "cost-center", self.cost_centers["CC-220"], "2012-01-01", place=self.locations["UP-004"]
            )
        )
        return found

    def asset_documents(self) -> list[Resource]:
        found = []
        for index, (number, kind, status, asset_index, date, schema, content, workflow) in enumerate(ASSET_DOCUMENTS):
            asset = self.assets[asset_index]
            type_code, type_display = self.concept("esm-document-type", kind)
            document: Resource = {
                "resourceType": "FixedAssetDocument",
                "id": f"fixed-asset-document-{index + 1:04d}",
                "owner": self.owner(),
                "identifier": [self.installation_id("fixed-asset-document", number)],
                "status": self.cc("fixed-asset-document-status", status),
                "type": self.cc("esm-document-type", type_code, type_display),
                "date": date,
                "fixedAsset": [self.ref(asset)],
                "attribute": [{"code": "schema", "value": schema}],
            }
            if content is not None:
                title = f"{type_display or kind} {number}"
                lines = [OWN_ORGANIZATION_NAME.translate(ASCII), title, f"Asset: {asset.value}", f"Date: {date}"]
                if content == "pdf":
                    attachment = {"contentType": "application/pdf", "data": b64(pdf(lines)), "title": f"{number}.pdf"}
                else:
                    attachment = {
                        "contentType": "text/plain; charset=utf-8",
                        "data": b64(("\n".join(lines) + "\n").encode()),
                        "title": f"{number}.txt",
                    }
                attachment["attribute"] = [
                    {"code": "workflow-status", "value": workflow},
                    {"code": "workflow-link", "value": f"https://workflow.example.com/cases/WF-{number[4:]}"},
                    {"code": "workflow-system", "value": "docflow"},
                ]
                document["attachment"] = [attachment]
            self.documents[number] = Key("FixedAssetDocument", self.ns["fixed-asset-document"], number, number)
            found.append(document)
        return found

    # -- document envelopes -----------------------------------------------------------------------
