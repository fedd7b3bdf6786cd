"""The operations of the contract, read once from `schemas/openapi.json`: methods, paths, query parameters, the
filter each parameter is (`x-eris-filter`), and the requirements each operation carries (`x-eris-requirements`).

Every consumer asks here: the reference implementation (which parameters exist, which are required, what a
filter looks at), the conformance suite (the list reads and their filters), the property phase and the
strategies (the document itself), `eris requirements --trace` (the requirements of an operation).

`x-eris-filter` of a query parameter says what the contract fixes about it:

| kind | the parameter selects items whose ... |
|---|---|
| `identifier` | identifier[] holds the `system|value` given |
| `owner` | owner[] references the Party named by `system|value` (any of its identifiers) |
| `reference` | Reference(s) at `element` name the resource given by `system|value` |
| `coded` | CodeableConcept(s) at `element` carry the `system|code` given |
| `attribute` | attribute[] holds the `code|value` given (repeatable: all must match) |
| `profile` | profile is the profile URL given |
| `string` | string at `element` equals the value given |
| `alias` | (another name of the parameter `of`) |
| `not-shown` | the contract names the parameter but not what it looks at or the form of its value |

`namespaces: "internal"` narrows a reference filter to the installation's own Party namespaces. `requirement`: the
requirement whose row lists the parameter for the read, where a check met on the way must place a failure of the
filter (the identifier filters, on which every read-back relies).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from schemas import SCHEMA_DIR

__all__ = [
    "OPENAPI_FILE",
    "PAGING",
    "Filter",
    "Operation",
    "Parameter",
    "list_read",
    "list_reads",
    "openapi_document",
    "operation",
    "operations",
]

OPENAPI_FILE = SCHEMA_DIR / "openapi.json"
FILTER_KINDS = ("identifier", "owner", "reference", "coded", "attribute", "profile", "string", "alias", "not-shown")
_METHODS = ("get", "post", "patch", "put", "delete")
PAGING = ("count", "offset")


@dataclass(frozen=True)
class Filter:
    kind: str
    element: str = ""
    """The element looked at; for identifier, owner and attribute the element of that name."""
    namespaces: str | None = None
    of: str | None = None
    """For an alias: the parameter it is another name of."""
    requirement: str | None = None

    @property
    def shown(self) -> bool:
        """Whether the contract fixes what the parameter selects (so a target that ignores it is wrong)."""
        return self.kind not in ("not-shown", "alias")


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str
    required: bool
    schema: dict[str, Any]
    filter: Filter | None

    @property
    def default(self) -> Any:
        return self.schema.get("default")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    parameters: tuple[Parameter, ...]
    requirements: tuple[str, ...]
    item_type: str | None
    """For a list read, the type of the items of its (first) envelope; None for any other operation."""

    @property
    def query(self) -> dict[str, Parameter]:
        return {p.name: p for p in self.parameters if p.location == "query"}

    @property
    def required(self) -> list[str]:
        return [p.name for p in self.parameters if p.location == "query" and p.required]

    @property
    def filters(self) -> dict[str, Filter]:
        """Query parameters other than count and offset, with what each selects."""
        return {
            p.name: p.filter or Filter("not-shown")
            for p in self.parameters
            if p.location == "query" and p.name not in PAGING
        }

    @property
    def is_list_read(self) -> bool:
        return self.item_type is not None


@cache
def _document() -> dict[str, Any]:
    return json.loads(OPENAPI_FILE.read_text(encoding="utf-8"))


def openapi_document() -> dict[str, Any]:
    """A copy of the whole document (for schemathesis and the strategies, which may change what they get)."""
    return copy.deepcopy(_document())


@cache
def operations() -> tuple[Operation, ...]:
    """Every operation, in the order of openapi.json."""
    document = _document()
    found = []
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for method, spec in item.items():
            if method not in _METHODS:
                continue
            parameters = tuple(_parameter(document, p) for p in [*shared, *spec.get("parameters", [])])
            paged = method == "get" and any(p.name == "count" for p in parameters)
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    operation_id=spec["operationId"],
                    parameters=parameters,
                    requirements=tuple(spec.get("x-eris-requirements", ())),
                    item_type=_item_type(spec) if paged else None,
                )
            )
    return tuple(found)


def operation(method: str, path: str) -> Operation:
    """KeyError for an operation the contract does not have."""
    for found in operations():
        if found.method == method.upper() and found.path == path:
            return found
    raise KeyError(f"{method.upper()} {path} is not an operation of openapi.json")


def list_reads() -> tuple[Operation, ...]:
    """Every GET paged with count and offset, in the order of openapi.json."""
    return tuple(found for found in operations() if found.is_list_read)


def list_read(path: str) -> Operation:
    return operation("GET", path)


def _parameter(document: dict[str, Any], spec: dict[str, Any]) -> Parameter:
    if "$ref" in spec:
        spec = document["components"]["parameters"][spec["$ref"].rsplit("/", 1)[-1]]
    described = spec.get("x-eris-filter")
    flt = None
    if described is not None:
        if described.get("kind") not in FILTER_KINDS:
            raise ValueError(f"parameter {spec['name']}: x-eris-filter kind {described.get('kind')!r} is unknown")
        kind = described["kind"]
        flt = Filter(
            kind=kind,
            element=described.get("element", kind if kind in ("identifier", "owner", "attribute") else ""),
            namespaces=described.get("namespaces"),
            of=described.get("of"),
            requirement=described.get("requirement"),
        )
    return Parameter(spec["name"], spec["in"], bool(spec.get("required", False)), spec.get("schema", {}), flt)


def _item_type(spec: dict[str, Any]) -> str:
    schema = spec["responses"]["200"]["content"]["application/json"]["schema"]
    envelope = schema["anyOf"][0] if "anyOf" in schema else schema  # value sets: the listing comes first
    return envelope["$ref"].rsplit("/", 1)[-1].removesuffix("Envelope")
