"""A fault for every filter parameter the contract's endpoint tables give a read, with a meaning the contract
shows: the parameter is still checked (a malformed value is a 400, a required one stays required) but then
selects nothing, so the read answers as if it were not given. Each breaks the requirement whose row lists the
parameter for that read; the suite's filter checks must kill every one (the parameters whose meaning is not
shown, such as lastModified or usage, have none)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations.reads import ignore_filter

IGNORED = [
    # (resource type, path, parameter, the requirement listing the parameter for the read)
    ("Party", "/v1/parties", "profile", "ERIS-FILTER-006"),
    ("Party", "/v1/parties", "type", "ERIS-FILTER-005"),
    ("Party", "/v1/parties", "identifier", "ERIS-FILTER-005"),
    ("Party", "/v1/parties", "owner", "ERIS-FILTER-005"),
    ("Party", "/v1/parties", "attribute", "ERIS-FILTER-005"),
    ("PartyRole", "/v1/party-roles", "party", "ERIS-FILTER-007"),
    ("PartyRelationship", "/v1/party-relationships", "type", "ERIS-FILTER-008"),
    ("PartyRelationship", "/v1/party-relationships", "partyFrom", "ERIS-FILTER-008"),
    ("PartyRelationship", "/v1/party-relationships", "partyTo", "ERIS-FILTER-008"),
    ("PartyRelationship", "/v1/party-relationships", "attribute", "ERIS-FILTER-008"),
    ("Location", "/v1/locations", "identifier", "ERIS-LOC-002"),
    ("Location", "/v1/locations", "owner", "ERIS-LOC-002"),
    ("Location", "/v1/locations", "attribute", "ERIS-LOC-002"),
    # Location type: none, the reference's locations carry no type (the contract declares no vocabulary for
    # it); the check runs on a target whose locations have one
    ("GrantAssignment", "/v1/grant-assignments", "granted", "ERIS-ACCESS-004"),
    ("GrantAssignment", "/v1/grant-assignments", "attribute", "ERIS-ACCESS-004"),
    ("FixedAssetDocument", "/v1/fixed-asset-documents", "identifier", "ERIS-ASSET-010"),
    ("FixedAssetDocument", "/v1/fixed-asset-documents", "owner", "ERIS-ASSET-010"),
    ("FixedAssetDocument", "/v1/fixed-asset-documents", "attribute", "ERIS-ASSET-010"),
    ("DocumentReference", "/v1/document-references", "profile", "ERIS-DOC-004"),
    ("DocumentReference", "/v1/document-references", "identifier", "ERIS-DOC-004"),
    ("DocumentReference", "/v1/document-references", "attribute", "ERIS-DOC-004"),
    ("DocumentReference", "/v1/document-references", "type", "ERIS-DOC-004"),
    ("DocumentReference", "/v1/document-references", "participant", "ERIS-DOC-004"),
]


def _register(resource_type: str, path: str, parameter: str, requirement: str) -> None:
    name = f"{parameter.lower()}-filter-ignored-on-{path.removeprefix('/v1/')}"
    summary = f"GET {path}?{parameter}=... answers as if {parameter} were not given (it is still checked)"

    @deviation(name, summary, breaks=requirement)
    def install(app: web.Application, settings: Any) -> None:
        ignore_filter(app, resource_type, parameter)


for row in IGNORED:
    _register(*row)
