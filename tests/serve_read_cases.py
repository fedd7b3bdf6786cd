"""What the read tests of `eris serve` share: seed identifiers they ask by, seed predicates, the content path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serve_fixtures import REGON_SYSTEM, identifier_value, ns, seed_by_id, seed_of

EMPLOYER = seed_by_id("party-employer")
EMPLOYER_REGON = f"{REGON_SYSTEM}|{identifier_value(EMPLOYER, REGON_SYSTEM)}"
EMPLOYER_ORG_ID = f"{ns('employee')}|{identifier_value(EMPLOYER, ns('employee'))}"
CONTRACTOR_1 = f"{ns('contractor')}|K-000001"
DOCUMENT_CONTENT_PATH = "/v1/fixed-asset-documents/$document-content"


def seed_ids(resource_type: str, predicate: Callable[[dict[str, Any]], bool] = lambda _: True) -> list[str]:
    return [r["id"] for r in seed_of(resource_type) if predicate(r)]


def codings(concept: Any) -> set[tuple[str, str]]:
    """The (system, code) pairs of a CodeableConcept or a list of them."""
    concepts = concept if isinstance(concept, list) else [concept] if isinstance(concept, dict) else []
    return {(c.get("system"), c.get("code")) for cc in concepts for c in cc.get("coding", [])}


def coded(element: str, code: str, system: str | None = None) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(c == code and system in (None, s) for s, c in codings(r.get(element)))
