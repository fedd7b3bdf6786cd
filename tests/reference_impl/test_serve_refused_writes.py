"""Writes `eris serve` refuses (bad bodies, unknown targets, no token): a 4xx problem, and nothing changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from serve_fixtures import (
    ALL,
    EMPLOYER_NIP,
    NIP_SYSTEM,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    contractor_body,
    ns,
    profile_url,
    running,
    seed_by_id,
)
from serve_writes_fixtures import DOCREF, FAD, PARTIES, contractor_body_without_profile, hr_inbox_body


@pytest.fixture(scope="module")
def refusing() -> Iterator[RunningServer]:
    """A server for writes that must be refused: each test checks that nothing was added."""
    with running() as own:
        yield own


def _employee_by_profile() -> dict[str, Any]:
    body = contractor_body(by="meta", identifier=[{"system": ns("employee")}])
    body["meta"]["profile"] = [profile_url("Employee")]
    return body


def _employee_by_category() -> dict[str, Any]:
    return contractor_body(
        identifier=[{"system": ns("employee")}],
        category=[{"coding": [{"system": f"{VOCAB}/party-kind", "code": "employee"}]}],
    )


JSON = "application/json"


BAD_POSTS = [
    pytest.param(json.dumps(contractor_body_without_profile()).encode(), JSON, "profile-unrecognised", id="no-profile"),
    pytest.param(json.dumps(_employee_by_profile()).encode(), JSON, "profile-not-writable", id="employee-by-profile"),
    pytest.param(json.dumps(_employee_by_category()).encode(), JSON, "profile-not-writable", id="employee-by-category"),
    pytest.param(b'{"resourceType": "Party", ', JSON, None, id="malformed-json"),
    pytest.param(json.dumps([contractor_body()]).encode(), JSON, None, id="json-array"),
    pytest.param(b'"Party"', JSON, None, id="json-string"),
    pytest.param(json.dumps(contractor_body(name=5)).encode(), JSON, "schema-type", id="name-a-number"),
    pytest.param(json.dumps(contractor_body(identifier="K-1")).encode(), JSON, "schema-type", id="identifier-a-string"),
    pytest.param(json.dumps(contractor_body(category={"code": "x"})).encode(), JSON, None, id="category-an-object"),
    pytest.param(json.dumps(contractor_body()).encode(), "text/plain", None, id="text-plain"),
    pytest.param(b"resourceType=Party", "application/x-www-form-urlencoded", None, id="form"),
    pytest.param(b'{"resourceType": "Party", "comment": "\xff\xfe"}', JSON, None, id="not-utf-8"),
]


# -- POST /v1/parties ------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "content_type", "issue_code"), BAD_POSTS)
def test_a_bad_post_is_a_4xx_problem_and_adds_no_party(
    refusing: RunningServer, body: bytes, content_type: str, issue_code: str | None
) -> None:
    before = refusing.count()
    response = refusing.client.post("/v1/parties", content=body, headers={"content-type": content_type})
    problem = assert_problem(response, tuple(range(400, 500)))
    if issue_code is not None:
        assert issue_code in [issue["code"] for issue in problem.get("issues", [])], problem
    assert refusing.count() == before == PARTIES


def test_an_oversized_body_is_a_413_and_adds_no_party(refusing: RunningServer) -> None:
    body = json.dumps(contractor_body(comment="x" * (8 * 1024 * 1024 + 1))).encode()
    assert len(body) > 8 * 1024 * 1024
    response = refusing.client.post("/v1/parties", content=body, headers={"content-type": "application/json"})
    assert_problem(response, 413)
    assert refusing.count() == PARTIES


# -- PATCH /v1/parties -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("identifier", "owner"),
    [
        (f"{ns('contractor')}|K-999999", EMPLOYER_NIP),
        (f"{ns('contractor')}|K-000002", f"{NIP_SYSTEM}|1234563218"),
    ],
    ids=["unknown-identifier", "other-owner"],
)
def test_patch_of_an_unknown_party_is_a_404(refusing: RunningServer, identifier: str, owner: str) -> None:
    response = refusing.client.patch(
        "/v1/parties", params={"identifier": identifier, "owner": owner}, json=contractor_body(comment="nowhere")
    )
    assert_problem(response, 404)
    assert refusing.count() == PARTIES


def test_patch_with_an_employee_body_is_refused_and_changes_nothing(refusing: RunningServer) -> None:
    params = {"identifier": f"{ns('contractor')}|K-000003", "owner": EMPLOYER_NIP}
    before = refusing.client.get("/v1/parties", params=params | ALL).json()
    assert_problem(
        refusing.client.patch("/v1/parties", params=params, json=_employee_by_profile()), tuple(range(400, 500))
    )
    assert_problem(
        refusing.client.patch("/v1/parties", params=params, content=b"{", headers={"content-type": "application/json"}),
        400,
    )
    assert refusing.client.get("/v1/parties", params=params | ALL).json() == before


# -- fixed-asset documents -------------------------------------------------------------------------


def test_patch_of_an_unknown_fixed_asset_document_is_a_404(refusing: RunningServer) -> None:
    body = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "approved"}]}]}
    response = refusing.client.patch(
        "/v1/fixed-asset-documents", params={"identifier": f"{FAD}|FAD-0000-0000"}, json=body
    )
    assert_problem(response, 404)


def test_patch_of_a_fixed_asset_document_requires_its_identifier(refusing: RunningServer) -> None:
    body = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "approved"}]}]}
    assert_problem(refusing.client.patch("/v1/fixed-asset-documents", json=body), 400, "identifier")


# -- document references ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attachment",
    [[], [{"contentType": "application/pdf"}], [{"contentType": "application/pdf", "data": ""}]],
    ids=["no-attachment", "no-data", "empty-data"],
)
def test_post_of_an_hr_inbox_document_without_content_is_a_422(refusing: RunningServer, attachment: list[Any]) -> None:
    before = refusing.count("/v1/document-references")
    response = refusing.client.post("/v1/document-references", json=hr_inbox_body(attachment=attachment))
    assert_problem(response, 422)
    assert refusing.count("/v1/document-references") == before


def test_post_of_a_warehouse_document_is_refused(refusing: RunningServer) -> None:
    before = refusing.count("/v1/document-references")
    warehouse = {k: v for k, v in seed_by_id("document-warehouse-0001").items() if k not in ("id",)}
    warehouse["identifier"] = [{"system": DOCREF}]
    assert_problem(refusing.client.post("/v1/document-references", json=warehouse), tuple(range(400, 500)))
    assert refusing.count("/v1/document-references") == before


def test_patch_of_a_warehouse_document_without_identifier_is_a_4xx(refusing: RunningServer) -> None:
    stored = seed_by_id("document-warehouse-0003")
    body = {
        "resourceType": "DocumentReference",
        "category": stored["category"],
        "identifier": [],
        "status": stored["status"],
        "type": stored["type"],
    }
    assert_problem(refusing.client.patch("/v1/document-references", json=body), tuple(range(400, 500)))


def test_patch_of_an_unknown_warehouse_document_is_a_404(refusing: RunningServer) -> None:
    stored = seed_by_id("document-warehouse-0001")
    body = {
        "resourceType": "DocumentReference",
        "category": stored["category"],
        "identifier": [{"system": DOCREF, "value": "WD-1999-9999"}],
        "status": stored["status"],
        "type": stored["type"],
    }
    assert_problem(refusing.client.patch("/v1/document-references", json=body), 404)


# -- authentication ------------------------------------------------------------------------------


def test_post_reports_demands_a_token_and_reads_do_not(refusing: RunningServer) -> None:
    response = refusing.client.post("/v1/reports", json={"format": "csv"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert_problem(refusing.client.post("/v1/reports", json={}, headers={"Authorization": "Bearer not.a.token"}), 401)
    assert_problem(refusing.client.post("/v1/reports", json={}, headers={"Authorization": "Basic dXNlcjpwYXNz"}), 401)
    assert_envelope(refusing.client.get("/v1/parties"), "Party")
    assert_envelope(refusing.client.get("/v1/parties", headers={"Authorization": "Bearer not.a.token"}), "Party")
