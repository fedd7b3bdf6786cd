"""What the reference implementation knows for a cost-calculation report: the company, its cost
centers active in the month and the monthly depreciation of the fixed assets booked to each.

The depreciation rule is deliberately simple (straight line on the balance value):

- an asset's monthly depreciation is `balanceValue.initial` x `depreciation.rate` / 100 / 12,
  rounded half up to 0.01;
- it counts in a month when `depreciation.start` is on or before the month's last day, and stops
  once the months counted since the start have written off the initial value (the last month
  takes the remainder); recorded accumulated depreciation, value changes and components are not
  looked at;
- it is booked to the cost center of the asset's cost-center allocation whose period covers the
  month (when two do, as on a move within the month, the one that started last);
- a cost center is active when its period covers at least a day of the month.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from reference_impl.state import Service
from reports.generate import CostCenterBasis, ReportData

__all__ = ["monthly_depreciation", "report_data"]

_CENT = Decimal("0.01")
_COST_CENTER_ALLOCATION = "cost-center"
_ALLOCATION_CATEGORY = "assets/allocation-category"  # the seed's vocabulary of allocation categories


def report_data(service: Service, company_tax_no: str, year: int, month: int, product_count: int) -> ReportData | None:
    """The data of a report for the company with NIP `company_tax_no`; None when no Party of the
    installation has that NIP."""
    values = service.contract.installation.values
    company_key = f"{values['nip_system']}|{company_tax_no}"
    companies = _search(service, "Party", {"identifier": [company_key]}, count=1)
    if not companies:
        return None
    first_day = date(year, month, 1)
    last_day = date(year, month, calendar.monthrange(year, month)[1])
    owned = {"owner": [company_key]}
    centers = [c for c in _search(service, "CostCenter", owned) if _covers(c.get("period"), first_day, last_day)]
    center_of_identifier = {key: center["id"] for center in centers for key in _identifier_keys(center)}
    assets = {key: asset for asset in _search(service, "FixedAsset", owned) for key in _identifier_keys(asset)}
    category = f"{values['vocab_url']}/{_ALLOCATION_CATEGORY}|{_COST_CENTER_ALLOCATION}"
    allocations = _search(service, "FixedAssetAllocation", {"category": [category]})
    booked = {center["id"]: Decimal("0.00") for center in centers}
    for asset, center_id in _asset_cost_centers(allocations, assets, center_of_identifier, first_day, last_day):
        booked[center_id] += monthly_depreciation(asset, year, month)
    code_system = service.contract.installation_namespace_key("cost-center")
    return ReportData(
        company_tax_no=company_tax_no,
        company_name=_display_name(companies[0]),
        cost_centers=tuple(
            CostCenterBasis(_code(center, code_system), str(center.get("name", "")), booked[center["id"]])
            for center in centers
        ),
        product_count=product_count,
    )


def monthly_depreciation(asset: dict[str, Any], year: int, month: int) -> Decimal:
    """The depreciation of a FixedAsset in a month by the rule of this module; 0 when it has none."""
    try:
        initial = Decimal(str(asset["balanceValue"]["initial"]))
        rate = Decimal(str(asset["depreciation"]["rate"]))
        start = date.fromisoformat(str(asset["depreciation"]["start"])[:10])
    except (KeyError, TypeError, ValueError, InvalidOperation):
        return Decimal(0)
    monthly = (initial * rate / 100 / 12).quantize(_CENT, rounding=ROUND_HALF_UP)
    months_before = (year * 12 + month) - (start.year * 12 + start.month)
    if months_before < 0 or monthly <= 0:
        return Decimal(0)
    remaining = initial - monthly * months_before
    return max(Decimal(0), min(monthly, remaining)).quantize(_CENT)


def _search(
    service: Service, resource_type: str, query: dict[str, list[str]], *, count: int | None = None
) -> list[dict[str, Any]]:
    return service.store.search(resource_type, service.queries.conditions(resource_type, query), count=count)


def _asset_cost_centers(
    allocations: Iterable[dict[str, Any]],
    assets: dict[tuple[str, str], dict[str, Any]],
    center_of_identifier: dict[tuple[str, str], str],
    first_day: date,
    last_day: date,
) -> list[tuple[dict[str, Any], str]]:
    """(asset, id of the active cost center it is booked to in the month), per asset booked to one."""
    chosen: dict[str, tuple[str, dict[str, Any], str]] = {}
    for allocation in allocations:
        asset = assets.get(_reference_key(allocation.get("fixedAsset")))
        center_id = center_of_identifier.get(_reference_key(allocation.get("target")))
        if asset is None or center_id is None or not _covers(allocation.get("period"), first_day, last_day):
            continue  # a place's cost center, an asset of another company, or another month
        start = str((allocation.get("period") or {}).get("start", ""))
        if asset["id"] not in chosen or start > chosen[asset["id"]][0]:
            chosen[asset["id"]] = (start, asset, center_id)
    return [(asset, center_id) for _, asset, center_id in chosen.values()]


def _covers(period: Any, first_day: date, last_day: date) -> bool:
    """Whether a period (open at either end when a bound is missing) shares a day with first..last."""
    if not isinstance(period, dict):
        return True
    start, end = _day(period.get("start")), _day(period.get("end"))
    return (start is None or start <= last_day) and (end is None or end >= first_day)


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


def _identifier_keys(resource: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (str(identifier.get("system", "")), identifier["value"])
        for identifier in resource.get("identifier", [])
        if isinstance(identifier, dict) and isinstance(identifier.get("value"), str)
    ]


def _reference_key(reference: Any) -> tuple[str, str] | None:
    identifier = reference.get("identifier") if isinstance(reference, dict) else None
    if not isinstance(identifier, dict) or not isinstance(identifier.get("value"), str):
        return None
    return str(identifier.get("system", "")), identifier["value"]


def _code(center: dict[str, Any], code_system: str) -> str:
    keys = _identifier_keys(center)
    return next((value for system, value in keys if system == code_system), keys[0][1] if keys else center["id"])


def _display_name(party: dict[str, Any]) -> str:
    name = party.get("name")
    if isinstance(name, str):
        return name
    if isinstance(name, dict):
        for coding in name.get("coding", []):
            if isinstance(coding, dict) and isinstance(coding.get("display"), str):
                return coding["display"]
        if isinstance(name.get("text"), str):
            return name["text"]
    return ""
