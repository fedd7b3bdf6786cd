"""Shared by the tests of writes to `eris serve`: the seed's party count, the employer as owner, bodies, a read-back."""

from __future__ import annotations

import base64
from typing import Any

from serve_fixtures import ALL, NIP_SYSTEM, VOCAB, RunningServer, assert_envelope, contractor_body, ns, seed_of

from reference_impl.seed import OWN_ORGANIZATION_NIP

PARTIES = len(seed_of("Party"))
EMPLOYER_OWNER = [{"type": "Party", "identifier": {"system": NIP_SYSTEM, "value": OWN_ORGANIZATION_NIP}}]
FAD = ns("fixed-asset-document")
DOCREF = ns("document-reference")


def identifier_values_in(party: dict[str, Any], system: str) -> list[str]:
    """The values of the identifiers of `party` in the namespace `system`."""
    return [i.get("value") for i in party.get("identifier", []) if i.get("system") == system]


def read_by_identifier(server: RunningServer, path: str, system: str, value: str) -> list[dict[str, Any]]:
    """The items a read of `path` finds by the identifier `system|value`."""
    return assert_envelope(server.client.get(path, params={"identifier": f"{system}|{value}", **ALL}), None)


def contractor_body_without_profile() -> dict[str, Any]:
    """A Contractor write body with neither a category nor a meta.profile to name its profile."""
    body = contractor_body()
    del body["category"]
    return body


def hr_inbox_body(**extra: Any) -> dict[str, Any]:
    """A write body of an HR inbox document (a leave request of employee E-0002); `extra` elements replace or add."""
    body = {
        "resourceType": "DocumentReference",
        "category": [{"coding": [{"system": f"{VOCAB}/hr/document-category", "code": "hr-inbox-document"}]}],
        "identifier": [{"system": DOCREF}],
        "type": {"coding": [{"system": f"{VOCAB}/hr/document-type", "code": "leave-request"}]},
        "participant": [{"type": "PartyRole", "identifier": {"system": ns("employee"), "value": "E-0002"}}],
        "attachment": [{"contentType": "application/pdf", "data": base64.b64encode(b"%PDF-1.4\n").decode()}],
    }
    body.update(extra)
    return body
