"""The contract's structure as data: JSON Schema 2020-12 files, one per type, and openapi.json."""

import json
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).parent
ID_BASE = "https://schemas.eris.example/v1/"


def load_schemas(directory: Path = SCHEMA_DIR) -> dict[str, dict[str, Any]]:
    """Every `<Name>.schema.json` of `directory`, by Name."""
    return {
        path.name.removesuffix(".schema.json"): json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(directory.glob("*.schema.json"))
    }


__all__ = ["ID_BASE", "SCHEMA_DIR", "load_schemas"]
