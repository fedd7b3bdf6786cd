"""What each operation of the contract answers for: the requirement that a failure of its answers counts against
(a 5xx, a body that is not the contract's, an answer past the run's bounds) when no more precise one is known."""

from __future__ import annotations

__all__ = ["OPERATION_REQUIREMENTS", "REPORTS", "operation_requirement"]

REPORTS = "POST /v1/reports"

OPERATION_REQUIREMENTS = {
    "GET /v1/parties": "ERIS-READ-003",
    "POST /v1/parties": "ERIS-PARTY-012",
    "PATCH /v1/parties": "ERIS-PARTY-015",
    "GET /v1/party-roles": "ERIS-FILTER-007",
    "GET /v1/party-relationships": "ERIS-FILTER-008",
    "GET /v1/locations": "ERIS-LOC-002",
    "GET /v1/value-sets": "ERIS-VS-004",
    "GET /v1/naming-systems": "ERIS-NS-001",
    "GET /v1/capabilities": "ERIS-ACCESS-003",
    "GET /v1/grant-assignments": "ERIS-ACCESS-004",
    "GET /v1/fixed-assets": "ERIS-ASSET-004",
    "GET /v1/asset-components": "ERIS-ASSET-004",
    "GET /v1/fixed-asset-allocations": "ERIS-ASSET-007",
    "GET /v1/cost-centers": "ERIS-ASSET-004",
    "GET /v1/fixed-asset-documents": "ERIS-ASSET-010",
    "POST /v1/fixed-asset-documents": "ERIS-ASSET-013",
    "PATCH /v1/fixed-asset-documents": "ERIS-ASSET-012",
    "GET /v1/fixed-asset-documents/$document-content": "ERIS-ASSET-011",
    "GET /v1/document-references": "ERIS-DOC-004",
    "POST /v1/document-references": "ERIS-DOC-005",
    "PATCH /v1/document-references": "ERIS-DOC-006",
    REPORTS: "ERIS-ERR-001",
}


def operation_requirement(method: str, path: str) -> str | None:
    """The requirement of `method` `path` (a path of the contract, without query), None for anything else."""
    return OPERATION_REQUIREMENTS.get(f"{method.upper()} {path}")
