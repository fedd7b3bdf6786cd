"""What served items show of an installation, element by element: identifiers with their systems, values and types,
the identifiers of references, codings, profile claims. The contract fixes these shapes (Identifier, Reference,
CodeableConcept, meta.profile) but not whether a single one may stand where a list is expected, nor the form of
Identifier.type: every form is accepted."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from profiles.installation import INSTALLATION_OID_ARC

__all__ = [
    "NOT_OWN",
    "codings",
    "identifiers",
    "installation_arcs",
    "profile_claims",
    "reference_systems",
    "strings",
    "type_codes",
]

_INSTALLATION_SYSTEM = re.compile(re.escape(INSTALLATION_OID_ARC) + r"([0-9]+)\.([0-9]+)")
_PROFILE_URL = re.compile(r"(?P<base>.+)/StructureDefinition/(?P<profile>[A-Za-z][A-Za-z0-9]*)")
NOT_OWN = ("owner", "meta", "contained", "attribute")
"""Members of an item that describe something else: a system named in the owner (a Party by its NIP) is not the
item's own."""


def _as_list(node: Any) -> list[Any]:
    return node if isinstance(node, list) else [] if node is None else [node]


def installation_arcs(system: Any) -> tuple[str, str] | None:
    """(installation, key) of a system urn:oid:1.2.616.1.113769.4.<installation>.<key>; None for any other."""
    match = _INSTALLATION_SYSTEM.fullmatch(system) if isinstance(system, str) else None
    return (match[1], match[2]) if match else None


def identifiers(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The item's own identifiers that name a system (a string)."""
    return [i for i in _as_list(item.get("identifier")) if isinstance(i, dict) and isinstance(i.get("system"), str)]


def type_codes(identifier: dict[str, Any]) -> set[str]:
    """The codes of Identifier.type: a bare code, a Coding, a CodeableConcept, or a list of them."""
    found: set[str] = set()
    for node in _as_list(identifier.get("type")):
        if isinstance(node, str):
            found.add(node)
        elif isinstance(node, dict):
            codes = [node, *_as_list(node.get("coding"))]
            found.update(c["code"] for c in codes if isinstance(c, dict) and isinstance(c.get("code"), str))
    return {code.strip().upper() for code in found if code.strip()}


def reference_systems(node: Any, *, top: bool = True) -> Iterator[str]:
    """The systems of the identifiers of every Reference inside an item (not the item's own identifiers, nor
    those of contained resources)."""
    if isinstance(node, dict):
        identifier = node.get("identifier")
        if not top and isinstance(identifier, dict) and isinstance(identifier.get("system"), str):
            yield identifier["system"]
        for name, value in node.items():
            if name != "contained" and not (top and name == "identifier"):
                yield from reference_systems(value, top=False)
    elif isinstance(node, list):
        for value in node:
            yield from reference_systems(value, top=False)


def codings(node: Any) -> Iterator[tuple[str, str]]:
    """(system, code) of every coding anywhere in `node`."""
    if isinstance(node, dict):
        if isinstance(node.get("system"), str) and isinstance(node.get("code"), str):
            yield node["system"], node["code"]
        for value in node.values():
            yield from codings(value)
    elif isinstance(node, list):
        for value in node:
            yield from codings(value)


def profile_claims(item: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(base, profile name) of each URL of meta.profile of the form <base>/StructureDefinition/<profile>."""
    meta = item.get("meta")
    for url in _as_list(meta.get("profile")) if isinstance(meta, dict) else []:
        if isinstance(url, str) and (match := _PROFILE_URL.fullmatch(url)):
            yield match["base"], match["profile"]


def strings(node: Any) -> Iterator[str]:
    """Every string anywhere in `node`."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)
