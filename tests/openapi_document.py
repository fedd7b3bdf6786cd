"""schemas/openapi.json as its tests read it: where it lives, its parsed text, and its local $ref pointers."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from project_paths import ROOT

SCHEMA_DIR = ROOT / "schemas"
OPENAPI = SCHEMA_DIR / "openapi.json"


def read_openapi() -> dict[str, Any]:
    return json.loads(OPENAPI.read_text(encoding="utf-8"))


def pointer(document: Any, ref: str) -> Any:
    assert ref.startswith("#"), f"non-local $ref {ref!r}"
    node = document
    fragment = unquote(ref[1:])
    if not fragment:
        return node
    assert fragment.startswith("/"), f"$ref {ref!r} is not a JSON pointer"
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node
