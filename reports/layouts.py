"""The documented column layout of each report (POST /v1/reports, `reportId`), as data.

A layout is an Arrow schema: the generator writes it, docs/reports.md shows it (`layout_markdown`), and
a reader of a delivered report can check a file against it. Every column carries its meaning in
the field metadata under `description`. No column is ever null.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pyarrow as pa

from profiles.limits import LIMITS

__all__ = [
    "AMOUNT",
    "COST_ELEMENTS",
    "CURRENCY",
    "DESCRIPTION",
    "LAYOUTS",
    "UNIT_COST",
    "ReportLayout",
    "layout_markdown",
    "layout_of",
]

DESCRIPTION = b"description"
"""Key of a column's meaning in its field metadata."""

COST_ELEMENTS: tuple[str, ...] = (
    "depreciation",
    "materials",
    "energy",
    "external-services",
    "salaries",
    "social-security",
    "taxes-and-fees",
    "other",
)
"""The cost elements (costs by type), in the order of the rows of each cost center or product."""

CURRENCY = "PLN"
AMOUNT = pa.decimal128(18, 2)
UNIT_COST = pa.decimal128(18, 4)  # four places: a unit cost of a cheap part is a fraction of a grosz


@dataclass(frozen=True)
class ReportLayout:
    """One report: its id, what one row stands for, and its columns."""

    report_id: str
    row: str
    schema: pa.Schema


def _column(name: str, type_: pa.DataType, meaning: str) -> pa.Field:
    return pa.field(name, type_, nullable=False, metadata={DESCRIPTION: meaning.encode("utf-8")})


_ELEMENT_LIST = ", ".join(f"`{element}`" for element in COST_ELEMENTS)
_PERIOD = (
    _column("company_tax_no", pa.string(), "Tax number (NIP) of the company the report is for: `CompanyTaxNo`."),
    _column("year", pa.int16(), "Year of the reported month: `Year`."),
    _column("month", pa.int8(), f"Reported month, {LIMITS.month}: `Month`."),
)
_CURRENCY = _column("currency", pa.string(), f"Currency of the amounts, ISO 4217: always `{CURRENCY}`.")
_ELEMENT = _column("cost_element", pa.string(), f"Cost element (cost by type), one of {_ELEMENT_LIST}.")

COST_CALCULATION = ReportLayout(
    "cost-calculation",
    "one row per cost center active in the month and cost element (8 rows per cost center)",
    pa.schema(
        [
            *_PERIOD,
            _column("cost_center", pa.string(), "Code of the cost center (CostCenter identifier value)."),
            _column("cost_center_name", pa.string(), "Name of the cost center."),
            _ELEMENT,
            _column(
                "amount",
                AMOUNT,
                "Cost of the element booked to the cost center in the month. For `depreciation`: the monthly "
                "depreciation of the fixed assets allocated to the cost center.",
            ),
            _CURRENCY,
        ]
    ),
)

PRODUCT_LEVEL_COST_CALCULATION = ReportLayout(
    "product-level-cost-calculation",
    "one row per product of the product catalogue and cost element (8 rows per product)",
    pa.schema(
        [
            *_PERIOD,
            _column("product_code", pa.string(), "Code of the product in the catalogue (P-000001, P-000002, ...)."),
            _column("product_name", pa.string(), "Name of the product."),
            _column(
                "cost_center",
                pa.string(),
                "Code of the cost center that makes the product; empty when the company has no active cost center.",
            ),
            _ELEMENT,
            _column("quantity", pa.int64(), "Units of the product made in the month (the same on its 8 rows)."),
            _column("amount", AMOUNT, "Cost of the element for the whole quantity of the product made in the month."),
            _column("unit_cost", UNIT_COST, "`amount` / `quantity`, rounded half up to 4 decimal places."),
            _CURRENCY,
        ]
    ),
)

LAYOUTS: Mapping[str, ReportLayout] = MappingProxyType(
    {layout.report_id: layout for layout in (COST_CALCULATION, PRODUCT_LEVEL_COST_CALCULATION)}
)
"""Every report this kit generates, by reportId."""


def layout_of(report_id: str) -> ReportLayout:
    """The layout of a report; ValueError naming an unknown reportId."""
    try:
        return LAYOUTS[report_id]
    except KeyError:
        raise ValueError(f"unknown reportId {report_id!r}; known: {', '.join(LAYOUTS)}") from None


def layout_markdown() -> str:
    """A Markdown section per report: what a row is, then a table of column, type and meaning."""
    parts = []
    for layout in LAYOUTS.values():
        lines = [f"### `{layout.report_id}`", "", f"{layout.row[0].upper()}{layout.row[1:]}.", ""]
        lines += ["| Column | Type | Meaning |", "|---|---|---|"]
        for field in layout.schema:
            meaning = field.metadata[DESCRIPTION].decode("utf-8").replace("|", "\\|")
            lines.append(f"| `{field.name}` | {field.type} | {meaning} |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
