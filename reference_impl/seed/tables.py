"""The facts of the seed data set, read from reference_impl/seed/data/*.json: one table a name, rows as tuples
(each file's descriptions give the columns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "ASSETS",
    "ASSET_DOCUMENTS",
    "ASSET_HOLDERS",
    "CAPABILITIES",
    "CITIES",
    "COMPONENTS",
    "CONTRACTORS",
    "COST_CENTERS",
    "EMPLOYEES",
    "EMPLOYEE_HIRED",
    "EMPLOYMENT_TYPE",
    "EU_TRADING",
    "EU_VAT_PREFIX",
    "FORMER_EMPLOYEE",
    "FORMS",
    "HR_DOCUMENTS",
    "ITEMS",
    "LOCATIONS",
    "STEMS",
    "TAILS",
    "WAREHOUSE_DOCUMENTS",
]

DATA_DIR = Path(__file__).with_name("data")


def _tables() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(DATA_DIR.glob("*.json")):
        for name, table in json.loads(path.read_text(encoding="utf-8"))["tables"].items():
            found[name] = table["rows"]
    return found


def _rows(rows: list[Any]) -> tuple[Any, ...]:
    return tuple(tuple(row) if isinstance(row, list) else row for row in rows)


_TABLES = _tables()
CONTRACTORS = _rows(_TABLES["contractors"])
EU_VAT_PREFIX = {country: tuple(prefix) for country, prefix in _TABLES["eu-vat-prefix"].items()}
EU_TRADING = frozenset(_TABLES["eu-trading"])
EMPLOYEES = _rows(_TABLES["employees"])
EMPLOYEE_HIRED = _rows(_TABLES["employee-hired"])
EMPLOYMENT_TYPE = _rows(_TABLES["employment-type"])
FORMER_EMPLOYEE: int = _TABLES["former-employee"]
ASSET_HOLDERS = _rows(_TABLES["asset-holders"])
CAPABILITIES = _rows(_TABLES["capabilities"])
COST_CENTERS = _rows(_TABLES["cost-centers"])
LOCATIONS = _rows(_TABLES["locations"])
ASSETS = _rows(_TABLES["assets"])
COMPONENTS = _rows(_TABLES["components"])
ASSET_DOCUMENTS = _rows(_TABLES["asset-documents"])
HR_DOCUMENTS = _rows(_TABLES["hr-documents"])
WAREHOUSE_DOCUMENTS = _rows(_TABLES["warehouse-documents"])
ITEMS = _rows(_TABLES["items"])
STEMS = _rows(_TABLES["stems"])
TAILS = _rows(_TABLES["tails"])
FORMS = _rows(_TABLES["forms"])
CITIES = _rows(_TABLES["cities"])
