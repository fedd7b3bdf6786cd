"""Keep ``schemas/openapi.json`` self-contained.

Paths, parameters and responses of ``schemas/openapi.json`` are written by hand and refer to
``#/components/schemas/<Name>``. The schemas themselves live in ``schemas/<Name>.schema.json``
and refer to each other by relative reference (``"$ref": "Identifier.schema.json"``). Tools such
as schemathesis do not resolve those against an embedded ``$id``, so this module copies every
schema file into ``components/schemas/<Name>`` (without ``$id`` and ``$schema``) and rewrites its
references to local JSON pointers:

    "X.schema.json"            -> "#/components/schemas/X"
    "X.schema.json#/$defs/y"   -> "#/components/schemas/X/$defs/y"
    "#/$defs/y" (inside X)     -> "#/components/schemas/X/$defs/y"

Hand-written components under ``components/schemas`` are kept when they are named
``<Name>Envelope`` for a schema file ``<Name>`` (per-endpoint read envelopes); every other entry
there is regenerated from the files, so a removed schema file leaves nothing stale behind.

    python -m profiles.openapi_bundle            rewrite schemas/openapi.json
    python -m profiles.openapi_bundle --check    exit 1 if it is not up to date
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
OPENAPI_FILE = "openapi.json"
SCHEMA_SUFFIX = ".schema.json"
ID_BASE = "https://schemas.eris.example/v1/"
COMPONENT_PREFIX = "#/components/schemas/"
ENVELOPE_SUFFIX = "Envelope"

# JSON Schema 2020-12 keywords whose value is a schema, a list of schemas or a map of schemas.
# Only these are walked, so a property named "$ref" or a "$ref" key inside const/enum/default/
# examples data is never mistaken for a reference.
_SCHEMA_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "contains",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP_KEYWORDS = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})


class BundleError(ValueError):
    """A schema file cannot be bundled (unexpected $id, unresolvable or external reference)."""


def schema_id(name: str) -> str:
    return f"{ID_BASE}{name}{SCHEMA_SUFFIX}"


def load_schema_files(schema_dir: Path) -> dict[str, dict[str, Any]]:
    """Every ``<Name>.schema.json`` of ``schema_dir``, by Name, in name order."""
    schemas: dict[str, dict[str, Any]] = {}
    for path in sorted(Path(schema_dir).glob(f"*{SCHEMA_SUFFIX}")):
        name = path.name[: -len(SCHEMA_SUFFIX)]
        with path.open(encoding="utf-8") as handle:
            schema = json.load(handle)
        if not isinstance(schema, dict):
            raise BundleError(f"{path.name}: the schema is not a JSON object")
        declared = schema.get("$id", schema_id(name))
        if declared != schema_id(name):
            raise BundleError(f"{path.name}: $id is {declared!r}, expected {schema_id(name)!r}")
        schemas[name] = schema
    return schemas


def _rewrite_ref(ref: str, name: str, names: set[str]) -> str:
    absolute = urljoin(schema_id(name), ref)
    target, fragment = urldefrag(absolute)
    if fragment and not fragment.startswith("/"):
        raise BundleError(f"{name}: reference {ref!r} uses an anchor; use a JSON pointer")
    if not target.startswith(ID_BASE) or not target.endswith(SCHEMA_SUFFIX):
        raise BundleError(f"{name}: reference {ref!r} points outside the schema files")
    target_name = target[len(ID_BASE) : -len(SCHEMA_SUFFIX)]
    if target_name not in names:
        raise BundleError(f"{name}: reference {ref!r} names no schema file")
    return f"{COMPONENT_PREFIX}{target_name}{fragment}"


def _rewrite(node: Any, name: str, names: set[str], *, root: bool = False) -> Any:
    """A copy of the schema ``node`` with its references made local to the bundle."""
    if not isinstance(node, dict):
        return copy.deepcopy(node)  # boolean schema
    if not root and "$id" in node:
        raise BundleError(f"{name}: an embedded $id inside the schema is not supported")
    if "$dynamicRef" in node:
        raise BundleError(f"{name}: $dynamicRef is not supported")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if root and key in ("$id", "$schema"):
            continue
        if key == "$ref" and isinstance(value, str):
            out[key] = _rewrite_ref(value, name, names)
        elif key in _SCHEMA_KEYWORDS:
            if isinstance(value, list):  # draft-04..2019-09 tuple form of items
                out[key] = [_rewrite(item, name, names) for item in value]
            else:
                out[key] = _rewrite(value, name, names)
        elif key in _SCHEMA_LIST_KEYWORDS and isinstance(value, list):
            out[key] = [_rewrite(item, name, names) for item in value]
        elif key in _SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {prop: _rewrite(sub, name, names) for prop, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out


def bundle_schemas(schema_dir: Path) -> dict[str, Any]:
    """``components/schemas`` entries made from the schema files, by Name."""
    files = load_schema_files(schema_dir)
    names = set(files)
    return {name: _rewrite(schema, name, names, root=True) for name, schema in files.items()}


def _is_hand_written(component: str, file_names: set[str]) -> bool:
    base = component[: -len(ENVELOPE_SUFFIX)]
    return component not in file_names and component.endswith(ENVELOPE_SUFFIX) and base in file_names


def build_openapi(paths_document: dict, schema_dir: Path) -> dict:
    """``paths_document`` with ``components/schemas`` filled from ``schema_dir``.

    The input is not modified. Hand-written ``<Name>Envelope`` components are kept; all other
    schema components are replaced by the bundled schema files. Components are in name order.
    """
    document = copy.deepcopy(paths_document)
    generated = bundle_schemas(schema_dir)
    file_names = set(generated)
    components = document.setdefault("components", {})
    existing = components.get("schemas") or {}
    merged = dict(generated)
    for component, schema in existing.items():
        if _is_hand_written(component, file_names):
            merged[component] = schema
    components["schemas"] = {component: merged[component] for component in sorted(merged)}
    return document


def render(document: dict) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def check(schema_dir: Path = SCHEMA_DIR) -> str | None:
    """None when ``openapi.json`` is up to date, else a one-line reason."""
    path = Path(schema_dir) / OPENAPI_FILE
    current = path.read_text(encoding="utf-8")
    expected = render(build_openapi(json.loads(current), schema_dir))
    if current != expected:
        return f"{path} is not up to date with the schema files: run python -m profiles.openapi_bundle"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m profiles.openapi_bundle",
        description="Copy schemas/*.schema.json into the components of schemas/openapi.json.",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if openapi.json is not up to date")
    parser.add_argument("--schema-dir", type=Path, default=SCHEMA_DIR, help="default: the schemas/ folder")
    args = parser.parse_args(argv)
    path = args.schema_dir / OPENAPI_FILE
    try:
        if args.check:
            problem = check(args.schema_dir)
            if problem:
                print(problem, file=sys.stderr)
                return 1
            return 0
        document = json.loads(path.read_text(encoding="utf-8"))
        text = render(build_openapi(document, args.schema_dir))
    except (OSError, json.JSONDecodeError, BundleError) as exc:
        print(f"openapi_bundle: {exc}", file=sys.stderr)
        return 2
    if path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
