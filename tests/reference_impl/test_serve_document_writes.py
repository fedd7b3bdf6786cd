"""Writes of fixed-asset documents (PATCH changes only workflow data) and document references to `eris serve`."""

from __future__ import annotations

import base64
import copy
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from serve_fixtures import (
    ALL,
    EMPLOYER_NIP,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    errors_of,
    ids,
    ns,
    profile_url,
    running,
    schema_errors,
    seed_by_id,
    seed_of,
)
from serve_writes_fixtures import DOCREF, EMPLOYER_OWNER, FAD, hr_inbox_body, read_by_identifier

from profiles.validator import WRITE

CONTENT = "/v1/fixed-asset-documents/$document-content"
HR_INBOX = profile_url("HrInboxDocument")


@pytest.fixture
def server() -> Iterator[RunningServer]:
    """A server of its own for each test that changes data (one starts in a few hundredths of a second)."""
    with running() as own:
        yield own


# -- fixed-asset documents -------------------------------------------------------------------------


def test_patch_of_a_fixed_asset_document_changes_only_workflow_data(server: RunningServer) -> None:
    stored = seed_by_id("fixed-asset-document-0004")
    number = stored["identifier"][0]["value"]
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": [{"system": FAD, "value": "FAD-HACKED-0001"}],
        "status": {"coding": [{"system": f"{VOCAB}/fixed-asset-document-status", "code": "posted"}]},
        "date": "1999-01-01",
        "comment": "not a workflow change",
        "attachment": [
            {
                "contentType": "text/plain",
                "data": base64.b64encode(b"replaced content").decode(),
                "title": "replaced.txt",
                "attribute": [
                    {"code": "workflow-status", "value": "approved"},
                    {"code": "workflow-link", "value": "https://workflow.example.com/cases/WF-NEW"},
                    {"code": "schema", "value": "XX"},
                ],
            }
        ],
    }
    response = server.client.patch("/v1/fixed-asset-documents", params={"identifier": f"{FAD}|{number}"}, json=body)
    assert response.status_code == 200, response.text
    document = response.json()
    assert errors_of(document, "FixedAssetDocument") == []
    expected = copy.deepcopy(stored)
    workflow = {a["code"]: a["value"] for a in expected["attachment"][0]["attribute"]}
    workflow.update({"workflow-status": "approved", "workflow-link": "https://workflow.example.com/cases/WF-NEW"})
    changed = {a["code"]: a["value"] for a in document["attachment"][0]["attribute"]}
    assert changed == workflow
    for element in ("identifier", "status", "date", "type", "owner", "fixedAsset", "attribute", "id"):
        assert document.get(element) == stored.get(element), element
    assert "comment" not in document
    for element in ("contentType", "data", "title"):
        assert document["attachment"][0][element] == stored["attachment"][0][element], element
    assert read_by_identifier(server, "/v1/fixed-asset-documents", FAD, number) == [document]
    assert read_by_identifier(server, "/v1/fixed-asset-documents", FAD, "FAD-HACKED-0001") == []
    content = server.client.get(CONTENT, params={"identifier": f"{FAD}|{number}"}).json()
    assert content["attachment"][0]["data"] == stored["attachment"][0]["data"]


def test_post_of_a_fixed_asset_document_registers_scan_and_workflow_status(server: RunningServer) -> None:
    pdf = b"%PDF-1.4\n% a scan\n"
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": [{"system": FAD}],
        "owner": EMPLOYER_OWNER,
        "attachment": [
            {
                "contentType": "application/pdf",
                "data": base64.b64encode(pdf).decode(),
                "attribute": [{"code": "workflow-status", "value": "in-review"}],
            }
        ],
    }
    assert errors_of(body, "FixedAssetDocument", WRITE) == []
    before = len(seed_of("FixedAssetDocument"))
    response = server.client.post("/v1/fixed-asset-documents", json=body)
    assert response.status_code == 200, response.text
    document = response.json()
    assert errors_of(document, "FixedAssetDocument") == []
    [value] = [i["value"] for i in document["identifier"] if i["system"] == FAD]
    assert value
    assert read_by_identifier(server, "/v1/fixed-asset-documents", FAD, value) == [document]
    assert server.count("/v1/fixed-asset-documents") == before + 1
    assert server.count("/v1/fixed-asset-documents", owner=EMPLOYER_NIP) == before + 1
    content = server.client.get(CONTENT, params={"identifier": f"{FAD}|{value}"})
    assert content.status_code == 200, content.text
    assert base64.b64decode(content.json()["attachment"][0]["data"], validate=True) == pdf


def test_post_cannot_set_the_read_only_status_of_a_new_document(server: RunningServer) -> None:
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": [{"system": FAD}],
        "status": {"coding": [{"system": f"{VOCAB}/fixed-asset-document-status", "code": "posted"}]},
        "attachment": [{"contentType": "text/plain", "data": base64.b64encode(b"scan").decode()}],
    }
    response = server.client.post("/v1/fixed-asset-documents", json=body)
    if response.status_code != 200:
        assert_problem(response, tuple(range(400, 500)))
        return
    assert [c["code"] for c in response.json()["status"]["coding"]] == ["open"]


def test_post_of_a_scan_for_an_existing_document_gives_it_content(server: RunningServer) -> None:
    stored = seed_by_id("fixed-asset-document-0005")
    identifier = f"{FAD}|{stored['identifier'][0]['value']}"
    assert_problem(server.client.get(CONTENT, params={"identifier": identifier}), 404)
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": stored["identifier"],
        "attachment": [{"contentType": "text/plain", "data": base64.b64encode(b"scan").decode()}],
    }
    response = server.client.post("/v1/fixed-asset-documents", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["id"] == stored["id"] and response.json()["status"] == stored["status"]
    assert server.count("/v1/fixed-asset-documents") == len(seed_of("FixedAssetDocument"))
    content = server.client.get(CONTENT, params={"identifier": identifier})
    assert content.status_code == 200, content.text
    assert base64.b64decode(content.json()["attachment"][0]["data"]) == b"scan"


# -- document references ---------------------------------------------------------------------------


def test_post_of_an_hr_inbox_document_answers_a_message(server: RunningServer) -> None:
    body = hr_inbox_body()
    assert errors_of(body, "DocumentReference", WRITE) == []
    response = server.client.post("/v1/document-references", json=body)
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"message"}
    assert schema_errors("WriteMessage", response.json()) == []
    assert errors_of(response.json(), "WriteMessage") == []
    inbox = assert_envelope(
        server.client.get("/v1/document-references", params={"profile": HR_INBOX, **ALL}), "DocumentReference"
    )
    assert len(inbox) == len([d for d in seed_of("DocumentReference") if HR_INBOX in d["meta"]["profile"]]) + 1
    mine = server.client.get("/v1/document-references", params={"participant": f"{ns('employee')}|E-0002"}).json()[
        "items"
    ]
    assert [d["type"] for d in mine] == [body["type"]]


def test_post_with_the_identifier_of_another_document_does_not_duplicate_it(server: RunningServer) -> None:
    value = seed_by_id("document-hr-0001")["identifier"][0]["value"]
    response = server.client.post(
        "/v1/document-references", json=hr_inbox_body(identifier=[{"system": DOCREF, "value": value}])
    )
    if response.status_code != 200:
        assert_problem(response, tuple(range(400, 500)))
    assert ids(read_by_identifier(server, "/v1/document-references", DOCREF, value)) == ["document-hr-0001"]


def test_patch_of_a_warehouse_document_changes_status_and_type(server: RunningServer) -> None:
    stored = seed_by_id("document-warehouse-0004")
    since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    status = {"coding": [{"system": f"{VOCAB}/warehouse/document-status", "code": "posted"}]}
    doc_type = {"coding": [{"system": f"{VOCAB}/warehouse/document-type", "code": "goods-receipt"}]}
    body = {
        "resourceType": "DocumentReference",
        "category": stored["category"],
        "identifier": stored["identifier"],
        "status": status,
        "type": doc_type,
    }
    assert errors_of(body, "DocumentReference", WRITE) == []
    response = server.client.patch("/v1/document-references", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert set(answer) <= {"items", "nextToken"} and "items" in answer
    [document] = answer["items"]
    assert errors_of(document, "DocumentReference") == []
    assert document["status"] == status and document["type"] == doc_type
    for element in ("id", "identifier", "issueDate", "participant", "position", "basedOn", "owner", "category"):
        assert document.get(element) == stored.get(element), element
    value = stored["identifier"][0]["value"]
    assert read_by_identifier(server, "/v1/document-references", DOCREF, value) == [document]
    receipts = server.client.get("/v1/document-references", params={"type": "goods-receipt", **ALL}).json()["items"]
    assert stored["id"] in ids(receipts)
    changed = server.client.get("/v1/document-references", params={"statusDate": f"ge{since}", **ALL}).json()["items"]
    assert ids(changed) == [stored["id"]]
