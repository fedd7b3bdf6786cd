"""Writes of the reference implementation (`eris serve`) against the contract: creating and updating
Contractors, bad write bodies refused without a change, fixed-asset documents (only workflow data
change on PATCH), document references, Notifications pushed to a real receiver, Bearer tokens, the
gateway rate limit, and data that survive a restart.

Every test that changes data runs its own server (they start in a few hundredths of a second)."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from serve_fixtures import (
    ALL,
    CONTRACT,
    EMPLOYER_NIP,
    NIP_SYSTEM,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    contractor_body,
    errors_of,
    ids,
    ns,
    profile_url,
    running,
    schema_errors,
    seed_by_id,
    seed_of,
    seeded_settings,
)

from profiles.validator import WRITE
from reference_impl.app import APPLICATION_KEYS, ServerSettings, create_app
from reference_impl.seed import OWN_ORGANIZATION_NIP, seed_resources
from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, mint_token

PARTIES = len(seed_of("Party"))
EMPLOYER_OWNER = [{"type": "Party", "identifier": {"system": NIP_SYSTEM, "value": OWN_ORGANIZATION_NIP}}]
CONTENT = "/v1/fixed-asset-documents/$document-content"


@pytest.fixture
def server() -> Iterator[RunningServer]:
    with running() as own:
        yield own


@pytest.fixture(scope="module")
def refusing() -> Iterator[RunningServer]:
    """A server for writes that must be refused: each test checks that nothing was added."""
    with running() as own:
        yield own


def _values_in(party: dict[str, Any], system: str) -> list[str]:
    return [i.get("value") for i in party.get("identifier", []) if i.get("system") == system]


def _read_by_identifier(server: RunningServer, path: str, system: str, value: str) -> list[dict[str, Any]]:
    return assert_envelope(server.client.get(path, params={"identifier": f"{system}|{value}", **ALL}), None)


# -- POST /v1/parties ------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["meta-profile", "category"])
def test_post_creates_a_contractor_with_an_assigned_identifier_and_number(server: RunningServer, by: str) -> None:
    body = contractor_body("Nowa Firma S.A.", by="category" if by == "category" else "meta")
    assert errors_of(body, "Party", WRITE) == []
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    assert party["resourceType"] == "Party" and party["id"]
    assert profile_url("Contractor") in party["meta"]["profile"]
    assert {"system": f"{VOCAB}/party-kind", "code": "contractor"} in [
        c for cc in party["category"] for c in cc["coding"]
    ]
    assert party["name"] == body["name"]
    [value] = _values_in(party, ns("contractor"))
    assert isinstance(value, str) and value
    assert isinstance(party.get("number"), str) and party["number"]
    for identifier in party["identifier"]:
        found = _read_by_identifier(server, "/v1/parties", identifier["system"], identifier["value"])
        assert found == [party], identifier
    assert server.count() == PARTIES + 1
    assert party["id"] in ids(
        assert_envelope(server.client.get("/v1/parties", params={"profile": profile_url("Contractor"), **ALL}), "Party")
    )


def test_post_assigns_the_value_in_the_given_warehouse_namespace(server: RunningServer) -> None:
    body = contractor_body("Magazynowa Firma Sp. z o.o.", identifier=[{"system": ns("contractor-warehouse")}])
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    [value] = _values_in(party, ns("contractor-warehouse"))
    assert value
    assert _read_by_identifier(server, "/v1/parties", ns("contractor-warehouse"), value) == [party]


def test_post_assigns_the_value_in_the_second_contractor_register_it_names(server: RunningServer) -> None:
    second = CONTRACT.namespace_systems("contractor")[1]  # the example installation has two registers
    response = server.client.post(
        "/v1/parties", json=contractor_body("Druga Firma S.A.", identifier=[{"system": second}])
    )
    assert response.status_code == 200, response.text
    party = response.json()
    [value] = _values_in(party, second)
    assert _values_in(party, ns("contractor")) == []
    assert _read_by_identifier(server, "/v1/parties", second, value) == [party]
    published = assert_envelope(server.client.get("/v1/naming-systems", params=ALL), "NamingSystem")
    assert second in [item.get("system") for item in published]


def test_a_null_element_of_a_write_body_is_read_as_left_out(server: RunningServer) -> None:
    body = contractor_body("Nullowa S.A.", comment=None, owner=None, number=None)
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert "comment" not in party and party["owner"] and party["number"]
    [value] = _values_in(party, ns("contractor"))
    patched = server.client.patch(
        "/v1/parties",
        params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP},
        json=contractor_body("Nullowa S.A.", comment=None, partOf=None),
    )
    assert patched.status_code == 200, patched.text
    assert "comment" not in patched.json() and "partOf" not in patched.json()


def test_post_without_an_identifier_lets_the_profile_choose_the_namespace(server: RunningServer) -> None:
    response = server.client.post("/v1/parties", json=contractor_body("Bez Identyfikatora S.A.", identifier=[]))
    assert response.status_code == 200, response.text
    [value] = _values_in(response.json(), ns("contractor"))
    assert _read_by_identifier(server, "/v1/parties", ns("contractor"), value) == [response.json()]


def test_post_always_creates_a_new_party_with_new_values(server: RunningServer) -> None:
    first = server.client.post("/v1/parties", json=contractor_body("Pierwsza S.A.")).json()
    second = server.client.post("/v1/parties", json=contractor_body("Pierwsza S.A.")).json()
    assert first["id"] != second["id"]
    assert first["number"] != second["number"]
    assert _values_in(first, ns("contractor")) != _values_in(second, ns("contractor"))
    existing = {v for p in seed_of("Party") for v in _values_in(p, ns("contractor"))}
    assert not existing & {*_values_in(first, ns("contractor")), *_values_in(second, ns("contractor"))}
    assert server.count() == PARTIES + 2


def test_post_with_the_identifier_value_of_another_party_does_not_duplicate_it(server: RunningServer) -> None:
    body = contractor_body("Podszywka S.A.", identifier=[{"system": ns("contractor"), "value": "K-000001"}])
    response = server.client.post("/v1/parties", json=body)
    if response.status_code != 200:
        assert_problem(response, tuple(range(400, 500)))
    found = _read_by_identifier(server, "/v1/parties", ns("contractor"), "K-000001")
    assert ids(found) == ["party-contractor-000001"]


def _employee_by_profile() -> dict[str, Any]:
    body = contractor_body(by="meta", identifier=[{"system": ns("employee")}])
    body["meta"]["profile"] = [profile_url("Employee")]
    return body


def _employee_by_category() -> dict[str, Any]:
    return contractor_body(
        identifier=[{"system": ns("employee")}],
        category=[{"coding": [{"system": f"{VOCAB}/party-kind", "code": "employee"}]}],
    )


def _no_profile() -> dict[str, Any]:
    body = contractor_body()
    del body["category"]
    return body


JSON = "application/json"
BAD_POSTS = [
    pytest.param(json.dumps(_no_profile()).encode(), JSON, "profile-unrecognised", id="no-profile"),
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


# -- PATCH /v1/parties ------------------------------------------------------------------------------


def test_patch_updates_a_seed_party_and_the_update_reads_back(server: RunningServer) -> None:
    stored = seed_by_id("party-contractor-000002")
    identifier = f"{ns('contractor')}|K-000002"
    body = contractor_body(
        "Biuro Rachunkowe Bilans Sp. z o.o.",
        comment="przekształcenie spółki",
        status={"coding": [{"system": f"{VOCAB}/party-status", "code": "inactive"}]},
    )
    del body["identifier"]
    response = server.client.patch("/v1/parties", params={"identifier": identifier, "owner": EMPLOYER_NIP}, json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    assert party["id"] == stored["id"] and party["number"] == stored["number"]
    assert party["identifier"] == stored["identifier"]
    assert party["comment"] == "przekształcenie spółki"
    assert party["name"] == body["name"]
    assert party["status"]["coding"][0]["code"] == "inactive"
    assert _read_by_identifier(server, "/v1/parties", ns("contractor"), "K-000002") == [party]
    inactive = server.client.get("/v1/parties", params={"status": "inactive", **ALL}).json()["items"]
    assert party["id"] in ids(inactive)
    assert server.count() == PARTIES


def test_patch_updates_a_created_party_addressed_by_its_assigned_identifier(server: RunningServer) -> None:
    created = server.client.post("/v1/parties", json=contractor_body("Do Zmiany S.A.", owner=EMPLOYER_OWNER)).json()
    [value] = _values_in(created, ns("contractor"))
    body = contractor_body("Po Zmianie S.A.", owner=EMPLOYER_OWNER)
    response = server.client.patch(
        "/v1/parties", params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP}, json=body
    )
    assert response.status_code == 200, response.text
    assert response.json()["name"]["coding"][0]["display"] == "Po Zmianie S.A."
    assert response.json()["id"] == created["id"]
    assert _read_by_identifier(server, "/v1/parties", ns("contractor"), value) == [response.json()]
    assert server.count() == PARTIES + 1


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


# -- fixed-asset documents --------------------------------------------------------------------------

FAD = ns("fixed-asset-document")


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
    assert _read_by_identifier(server, "/v1/fixed-asset-documents", FAD, number) == [document]
    assert _read_by_identifier(server, "/v1/fixed-asset-documents", FAD, "FAD-HACKED-0001") == []
    content = server.client.get(CONTENT, params={"identifier": f"{FAD}|{number}"}).json()
    assert content["attachment"][0]["data"] == stored["attachment"][0]["data"]


def test_patch_of_an_unknown_fixed_asset_document_is_a_404(refusing: RunningServer) -> None:
    body = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "approved"}]}]}
    response = refusing.client.patch(
        "/v1/fixed-asset-documents", params={"identifier": f"{FAD}|FAD-0000-0000"}, json=body
    )
    assert_problem(response, 404)


def test_patch_of_a_fixed_asset_document_requires_its_identifier(refusing: RunningServer) -> None:
    body = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "approved"}]}]}
    assert_problem(refusing.client.patch("/v1/fixed-asset-documents", json=body), 400, "identifier")


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
    assert _read_by_identifier(server, "/v1/fixed-asset-documents", FAD, value) == [document]
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


# -- document references -----------------------------------------------------------------------------

DOCREF = ns("document-reference")
HR_INBOX = profile_url("HrInboxDocument")


def _hr_inbox_body(**extra: Any) -> dict[str, Any]:
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


def test_post_of_an_hr_inbox_document_answers_a_message(server: RunningServer) -> None:
    body = _hr_inbox_body()
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


@pytest.mark.parametrize(
    "attachment",
    [[], [{"contentType": "application/pdf"}], [{"contentType": "application/pdf", "data": ""}]],
    ids=["no-attachment", "no-data", "empty-data"],
)
def test_post_of_an_hr_inbox_document_without_content_is_a_422(refusing: RunningServer, attachment: list[Any]) -> None:
    before = refusing.count("/v1/document-references")
    response = refusing.client.post("/v1/document-references", json=_hr_inbox_body(attachment=attachment))
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


def test_post_with_the_identifier_of_another_document_does_not_duplicate_it(server: RunningServer) -> None:
    value = seed_by_id("document-hr-0001")["identifier"][0]["value"]
    response = server.client.post(
        "/v1/document-references", json=_hr_inbox_body(identifier=[{"system": DOCREF, "value": value}])
    )
    if response.status_code != 200:
        assert_problem(response, tuple(range(400, 500)))
    assert ids(_read_by_identifier(server, "/v1/document-references", DOCREF, value)) == ["document-hr-0001"]


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
    assert _read_by_identifier(server, "/v1/document-references", DOCREF, value) == [document]
    receipts = server.client.get("/v1/document-references", params={"type": "goods-receipt", **ALL}).json()["items"]
    assert stored["id"] in ids(receipts)
    changed = server.client.get("/v1/document-references", params={"statusDate": f"ge{since}", **ALL}).json()["items"]
    assert ids(changed) == [stored["id"]]


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


# -- notifications ------------------------------------------------------------------------------------


class Receiver:
    """A subscriber: an aiohttp server on a free port of 127.0.0.1 that records every POST."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self.server = RunningServer(app=app)
        self.url = f"{self.server.url}/hook"

    async def _receive(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self._arrived:
            self.received.append(body)
            self._arrived.notify_all()
        return web.Response(status=204)

    def wait_for(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    subscriber = Receiver()
    try:
        yield subscriber
    finally:
        subscriber.server.stop()


def _check_notification(notification: dict[str, Any], operation: str, identifier: dict[str, str]) -> None:
    assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}, notification
    assert errors_of(notification, "Notification") == []
    assert notification["resourceType"] == "Notification"
    assert [c["code"] for c in notification["operation"]["coding"]] == [operation]
    assert notification["operation"]["coding"][0]["system"] == f"{VOCAB}/notification-operation"
    assert notification["reference"]["type"] == "Party"
    assert notification["reference"]["identifier"] == identifier
    assert "reference" not in notification["reference"]


def test_a_post_and_a_patch_of_a_party_each_push_a_notification(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        created = server.client.post("/v1/parties", json=contractor_body("Powiadomiona S.A.", owner=EMPLOYER_OWNER))
        assert created.status_code == 200, created.text
        [value] = _values_in(created.json(), ns("contractor"))
        identifier = {"system": ns("contractor"), "value": value}
        [first] = receiver.wait_for(1)
        _check_notification(first, "created", identifier)
        updated = server.client.patch(
            "/v1/parties",
            params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP},
            json=contractor_body("Powiadomiona Sp. z o.o.", owner=EMPLOYER_OWNER),
        )
        assert updated.status_code == 200, updated.text
        notifications = receiver.wait_for(2)
        assert len(notifications) == 2
        _check_notification(notifications[1], "updated", identifier)
        assert notifications[0]["id"] != notifications[1]["id"]
        assert notifications[0]["date"] <= notifications[1]["date"]


def test_writes_of_documents_push_notifications_too(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        fad = seed_by_id("fixed-asset-document-0001")["identifier"][0]
        patch = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "archived"}]}]}
        response = server.client.patch(
            "/v1/fixed-asset-documents", params={"identifier": f"{fad['system']}|{fad['value']}"}, json=patch
        )
        assert response.status_code == 200, response.text
        assert server.client.post("/v1/document-references", json=_hr_inbox_body()).status_code == 200
        notifications = receiver.wait_for(2)
        assert len(notifications) == 2
        for notification in notifications:
            assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}
            assert errors_of(notification, "Notification") == []
        first, second = notifications
        assert first["reference"] == {"type": "FixedAssetDocument", "identifier": fad}
        assert first["operation"]["coding"][0]["code"] == "updated"
        assert second["reference"]["type"] == "DocumentReference"
        assert second["reference"]["identifier"]["system"] == DOCREF
        assert second["operation"]["coding"][0]["code"] == "created"


def test_a_refused_write_pushes_no_notification(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        assert_problem(server.client.post("/v1/parties", json=_no_profile()), tuple(range(400, 500)))
        created = server.client.post("/v1/parties", json=contractor_body("Jedyna S.A."))
        assert created.status_code == 200
        notifications = receiver.wait_for(1)
        time.sleep(0.2)
        assert len(receiver.received) == 1
        assert notifications[0]["operation"]["coding"][0]["code"] == "created"


# -- authentication -----------------------------------------------------------------------------------


def test_post_reports_demands_a_token_and_reads_do_not(refusing: RunningServer) -> None:
    response = refusing.client.post("/v1/reports", json={"format": "csv"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert_problem(refusing.client.post("/v1/reports", json={}, headers={"Authorization": "Bearer not.a.token"}), 401)
    assert_problem(refusing.client.post("/v1/reports", json={}, headers={"Authorization": "Basic dXNlcjpwYXNz"}), 401)
    assert_envelope(refusing.client.get("/v1/parties"), "Party")
    assert_envelope(refusing.client.get("/v1/parties", headers={"Authorization": "Bearer not.a.token"}), "Party")


def test_post_reports_with_a_valid_token_gets_past_authentication() -> None:
    with running() as server:
        token = mint_token(server.app[APPLICATION_KEYS].private_key, subject="integrator", rights=[REPORT_RIGHT])
        response = server.client.post("/v1/reports", json={}, headers={"Authorization": f"Bearer {token}"})
        # past authentication, an empty order is refused for its missing reportId (test_serve_reports.py)
        assert "report type not found" in assert_problem(response, 404)["detail"]


def test_a_token_on_every_endpoint() -> None:
    with running(seeded_settings(token_on_every_endpoint=True)) as server:
        keys = server.app[APPLICATION_KEYS]
        response = server.client.get("/v1/parties")
        assert_problem(response, 401)
        assert response.headers["www-authenticate"].startswith("Bearer")
        good = mint_token(keys.private_key, subject="integrator", rights=[], key_id=keys.key_id)
        assert_envelope(server.client.get("/v1/parties", headers={"Authorization": f"Bearer {good}"}), "Party")
        without_kid = mint_token(keys.private_key, subject="integrator", rights=[REPORT_RIGHT])
        assert_envelope(
            server.client.get("/v1/locations", headers={"Authorization": f"Bearer {without_kid}"}), "Location"
        )
        other = ApplicationKeys.generate()
        for forged in (
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT]),
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=keys.key_id),
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=other.key_id),
            mint_token(keys.private_key, subject="late", rights=[], lifetime_seconds=60, now=time.time() - 3600),
        ):
            assert_problem(server.client.get("/v1/parties", headers={"Authorization": f"Bearer {forged}"}), 401)
        create = server.client.post("/v1/parties", json=contractor_body())
        assert_problem(create, 401)
        listed = server.client.get("/v1/parties", params=ALL, headers={"Authorization": f"Bearer {good}"})
        assert len(listed.json()["items"]) == PARTIES


# -- rate limit -----------------------------------------------------------------------------------------


def test_the_fourth_quick_request_over_a_burst_of_three_is_a_429() -> None:
    with running(seeded_settings(rate_per_second=1, rate_burst=3)) as server:
        statuses = []
        for _ in range(4):
            response = server.client.get("/v1/capabilities")
            statuses.append(response.status_code)
        assert statuses == [200, 200, 200, 429]
        assert_problem(response, 429)
        retry_after = response.headers["retry-after"]
        assert retry_after.isdigit() and int(retry_after) >= 1


# -- persistence ----------------------------------------------------------------------------------------


def test_data_survive_a_restart_and_the_seed_is_loaded_once(tmp_path: Path) -> None:
    database = str(tmp_path / "eris.db")
    with running(seeded_settings(db=database)) as first:
        created = first.client.post("/v1/parties", json=contractor_body("Trwała S.A.", owner=EMPLOYER_OWNER)).json()
        [value] = _values_in(created, ns("contractor"))
        patched = first.client.patch(
            "/v1/parties",
            params={"identifier": f"{ns('contractor')}|K-000005", "owner": EMPLOYER_NIP},
            json=contractor_body("Budmar Oddział Kraków (zmiana)", comment="po restarcie"),
        )
        assert patched.status_code == 200, patched.text
    with running(seeded_settings(db=database)) as second:
        assert _read_by_identifier(second, "/v1/parties", ns("contractor"), value) == [created]
        [again] = _read_by_identifier(second, "/v1/parties", ns("contractor"), "K-000005")
        assert again == patched.json()
        assert second.count() == PARTIES + 1
        assert second.count("/v1/locations") == len(seed_of("Location"))
        later = second.client.post("/v1/parties", json=contractor_body("Następna S.A.")).json()
        assert later["number"] != created["number"]
        assert _values_in(later, ns("contractor")) != [value]
    with running(ServerSettings(db=database, seed=None, rate_per_second=0)) as third:
        assert third.count() == PARTIES + 2


def test_simulated_source_changes_are_stored_and_notified() -> None:
    received: list[dict] = []

    async def receive(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.Response(status=204)

    async def scenario() -> None:
        receiver = web.Application()
        receiver.router.add_post("/n", receive)
        receiver_server = TestServer(receiver, host="127.0.0.1")
        await receiver_server.start_server()
        settings = ServerSettings(
            seed=seed_resources, notify_urls=[str(receiver_server.make_url("/n"))], source_change_every=0.05
        )
        async with TestClient(TestServer(create_app(settings), host="127.0.0.1")) as client:
            for _ in range(100):
                if received:
                    break
                await asyncio.sleep(0.05)
            answer = await client.get("/v1/parties", params={"identifier": _logical(received[0])})
            changed = (await answer.json())["items"]
        await receiver_server.close()
        assert received[0]["operation"]["coding"][0]["code"] == "updated"
        assert changed[0]["comment"].startswith("changed in the source system")

    asyncio.run(scenario())


def _logical(notification: dict) -> str:
    identifier = notification["reference"]["identifier"]
    return f"{identifier['system']}|{identifier['value']}"
