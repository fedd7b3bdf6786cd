"""Fixed-asset documents: reads with the filters of openapi.json, $document-content, and the writes the
contract allows on documents (POST of scan and workflow status, PATCH of workflow data only).

Documents with and without content are discovered: a document whose read shows an attachment with data
has content; when reads show attachment data at all, a document whose read shows none has none. The
writes change a document of the target's own data and put its workflow status back afterwards; they run
in one xdist group so that they never change the same document at once."""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Any

import pytest

from conformance.suite.support.writes import (
    DOCUMENT_CONTENT,
    FIXED_ASSET_DOCUMENTS,
    attribute_like,
    codes,
    has_identifier,
    identifiers,
    is_workflow,
    namespace_systems,
    nip_system,
    read_document,
    token,
    without_workflow,
    workflow_of,
)
from profiles.coded import codes_of, same_form

WRITES_GROUP = pytest.mark.xdist_group("fixed-asset-document-writes")
ASSET_REFERENCE_TYPES = {"Location", "CostCenter"}
DIRECT_FIELDS = {"location", "costCenter", "costcenter", "responsible", "responsiblePerson", "responsibleParty"}


# -- discovery ---------------------------------------------------------------------------------------------


def _documents(api: Any) -> list[dict[str, Any]]:
    return api.read_all(FIXED_ASSET_DOCUMENTS, resource_type="FixedAssetDocument")


def _document_key(contract: Any, document: dict[str, Any]) -> tuple[str, str] | None:
    found = identifiers(document, namespace_systems(contract, "fixed-asset-document"))
    return found[0] if found else None


def _shows_content(document: dict[str, Any]) -> bool:
    return any(isinstance(a, dict) and a.get("data") and a.get("contentType") for a in document.get("attachment") or [])


def _content(api: Any, system: str, value: str, **params: Any) -> Any:
    return api.get(DOCUMENT_CONTENT, {"identifier": token(system, value), **params})


def _assert_content(api: Any, response: Any, system: str, value: str) -> dict[str, Any]:
    """A 200 of $document-content: a valid FixedAssetDocument, the one asked for, with exactly one
    attachment holding contentType and base64 data."""
    assert response.status_code == 200, (
        f"$document-content of {system}|{value}, a document with content, answered {response.status_code}"
    )
    document = response.json()
    api.judge(document, "FixedAssetDocument", where=f"$document-content of {system}|{value}")
    assert has_identifier(document, system, value), f"$document-content of {system}|{value} answered another document"
    attachments = document.get("attachment")
    assert isinstance(attachments, list) and len(attachments) == 1, (
        f"$document-content must answer exactly one attachment, not {len(attachments or [])}"
    )
    [attachment] = attachments
    assert isinstance(attachment.get("contentType"), str) and attachment["contentType"], (
        "the attachment has no contentType"
    )
    assert isinstance(attachment.get("data"), str) and attachment["data"], "the attachment has no data"
    try:
        base64.b64decode(attachment["data"], validate=True)
    except (binascii.Error, ValueError):
        pytest.fail(f"the data of $document-content of {system}|{value} is not base64")
    return attachment


def _with_content(api: Any, contract: Any) -> list[tuple[tuple[str, str], dict[str, Any]]]:
    """(identifier, document) of documents that have content: shown by their read, else by a 200 of
    $document-content (for a target whose reads leave attachment data out)."""
    keyed = [(key, d) for d in _documents(api) if (key := _document_key(contract, d)) is not None]
    shown = [(key, d) for key, d in keyed if _shows_content(d)]
    if shown:
        return shown
    return [(key, d) for key, d in keyed if _content(api, *key).status_code == 200]


def _workflow_document(api: Any, contract: Any) -> tuple[tuple[str, str], dict[str, Any], dict[str, Any]]:
    """A document with content and one attachment carrying workflow data: (identifier, document, its
    content as answered by $document-content). The last one, to keep clear of tests that take the first."""
    candidates = [
        (key, d)
        for key, d in _with_content(api, contract)
        if len(d.get("attachment") or []) == 1 and workflow_of(d["attachment"][0])
    ]
    if not candidates:
        pytest.skip("the target shows no fixed-asset document with content and one attachment with workflow data")
    key, document = candidates[-1]
    content = _assert_content(api, _content(api, *key), *key)
    return key, document, content


def _restore_workflow(api: Any, key: tuple[str, str], workflow: dict[str, Any], like: Any) -> None:
    if workflow:
        body = {
            "resourceType": "FixedAssetDocument",
            "attachment": [{"attribute": [attribute_like(like, code, value) for code, value in workflow.items()]}],
        }
        api.patch(FIXED_ASSET_DOCUMENTS, json=body, params={"identifier": token(*key)})


# -- fixed-asset documents: reads --------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ASSET-010", "ERIS-ASSET-001", "ERIS-READ-001")
def test_fixed_asset_documents_read_by_identifier_owner_and_attribute(api: Any, contract: Any) -> None:
    documents = [d for d in _documents(api) if _document_key(contract, d) is not None]
    if not documents:
        pytest.skip(
            "the target serves no fixed-asset document with an identifier in the FixedAssetDocument.Id namespace"
        )
    for document in documents[:10]:
        system, value = _document_key(contract, document)
        assert read_document(api, system, value).get("id") == document.get("id")
    owned = next(
        (
            (document, owner["identifier"]["value"])
            for document in documents
            for owner in document.get("owner") or []
            if isinstance(owner, dict)
            and isinstance(owner.get("identifier"), dict)
            and owner["identifier"].get("system") == nip_system(contract)
        ),
        None,
    )
    if owned is not None:
        document, nip = owned
        items = api.read_all(
            FIXED_ASSET_DOCUMENTS, {"owner": token(nip_system(contract), nip)}, resource_type="FixedAssetDocument"
        )
        assert document.get("id") in [item.get("id") for item in items], (
            f"GET {FIXED_ASSET_DOCUMENTS}?owner={nip_system(contract)}|{nip} misses {document.get('id')}, owned by it"
        )
    attributed = next(
        (
            (document, a)
            for document in documents
            for a in document.get("attribute") or []
            if isinstance(a, dict) and codes_of(a.get("code")) and isinstance(a.get("value"), str)
        ),
        None,
    )
    if attributed is not None:
        document, attribute = attributed
        code = codes_of(attribute["code"])[0]
        filter_value = f"{code}|{attribute['value']}"
        items = api.read_all(FIXED_ASSET_DOCUMENTS, {"attribute": filter_value}, resource_type="FixedAssetDocument")
        assert document.get("id") in [item.get("id") for item in items], (
            f"GET {FIXED_ASSET_DOCUMENTS}?attribute={filter_value} misses {document.get('id')}, which has it"
        )
        for item in items:
            assert any(
                isinstance(a, dict) and code in codes_of(a.get("code")) and a.get("value") == attribute["value"]
                for a in item.get("attribute") or []
            ), f"GET {FIXED_ASSET_DOCUMENTS}?attribute={filter_value} returns {item.get('id')}, which lacks it"


@pytest.mark.requirement("ERIS-ASSET-011")
def test_document_content_of_a_document_with_content(api: Any, contract: Any) -> None:
    found = _with_content(api, contract)
    if not found:
        pytest.skip("the target shows no fixed-asset document with content")
    for key, document in found[:3]:
        attachment = _assert_content(api, _content(api, *key), *key)
        shown = [a.get("data") for a in document.get("attachment") or [] if isinstance(a, dict) and a.get("data")]
        if shown:
            assert attachment["data"] in shown, f"$document-content of {token(*key)} is not the content its read shows"
        _assert_content(api, _content(api, *key, format="blob"), *key)
        owners = [
            o["identifier"]["value"]
            for o in document.get("owner") or []
            if isinstance(o, dict)
            and isinstance(o.get("identifier"), dict)
            and o["identifier"].get("system") == nip_system(contract)
        ]
        if owners:
            _assert_content(api, _content(api, *key, owner=token(nip_system(contract), owners[0])), *key)


@pytest.mark.requirement("ERIS-ERR-201", "ERIS-ASSET-011")
def test_document_content_of_a_document_without_content_is_a_404(api: Any, contract: Any) -> None:
    keyed = [(key, d) for d in _documents(api) if (key := _document_key(contract, d)) is not None]
    if not any(_shows_content(d) for _, d in keyed):
        pytest.skip("the target's reads show no attachment data, so a document without content cannot be told apart")
    without = [(key, d) for key, d in keyed if not _shows_content(d)]
    if not without:
        pytest.skip("every fixed-asset document of the target has content")
    for key, _ in without[:5]:
        response = _content(api, *key)
        assert response.status_code == 404, (
            f"$document-content of {token(*key)}, a document without content, answered {response.status_code}, not 404"
        )


# -- fixed-asset documents: writes ---------------------------------------------------------------------------


def _marker() -> str:
    return f"eris-check-{uuid.uuid4().hex[:8]}"


def _answered_200(response: Any, what: str, requirement: str, findings: Any) -> bool:
    """Whether a write answered 200; a failure recorded otherwise: another 2xx breaks ERIS-WRITE-001 (the write
    may still have been made, so the test goes on), anything else `requirement` (the test ends)."""
    if response.status_code == 200:
        return True
    answered = f"{what} answered {response.status_code}, not 200: {response.text[:300]}"
    findings.add("ERIS-WRITE-001" if 200 < response.status_code < 300 else requirement, answered)
    if not 200 < response.status_code < 300:
        findings.check()
    return False


@WRITES_GROUP
@pytest.mark.requirement("ERIS-ASSET-012", "ERIS-ASSET-003", "ERIS-ASSET-001", "ERIS-WRITE-001")
def test_patch_of_a_fixed_asset_document_changes_its_workflow_data(api: Any, contract: Any, findings: Any) -> None:
    key, _, content = _workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(before["attachment"][0])
    marker = _marker()
    body = {
        "resourceType": "FixedAssetDocument",
        "attachment": [{"attribute": [attribute_like(before, "workflow-status", marker)]}],
    }
    api.assert_valid(body, "FixedAssetDocument", where="the suite's PATCH body", context="write")
    try:
        response = api.patch(FIXED_ASSET_DOCUMENTS, json=body, params={"identifier": token(*key)})
        what = f"PATCH {FIXED_ASSET_DOCUMENTS}?identifier={token(*key)} of workflow data"
        _answered_200(response, what, "ERIS-ASSET-012", findings)
        after = read_document(api, *key)
        changed = workflow_of((after.get("attachment") or [{}])[0])
        if changed.get("workflow-status") != marker:
            findings.add("ERIS-ASSET-012", "a read after PATCH does not show the new workflow-status")
        for code in ("workflow-link", "workflow-system"):
            if changed.get(code) != original.get(code):
                findings.add("ERIS-ASSET-012", f"PATCH of workflow-status changed {code}")
        if codes(after.get("status")) != codes(before.get("status")):
            findings.add("ERIS-ASSET-001", "PATCH of workflow data changed the read-only status")
        if without_workflow(after) != without_workflow(before):
            findings.add(
                "ERIS-ASSET-012",
                "PATCH of a fixed-asset document changed more than its workflow data (attachment[].attribute[])",
            )
        again = _assert_content(api, _content(api, *key), *key)
        if again["data"] != content["data"]:
            findings.add("ERIS-ASSET-012", "PATCH of workflow data changed the document's content")
    finally:
        _restore_workflow(api, key, original, before)
    findings.check()


@WRITES_GROUP
@pytest.mark.requirement("ERIS-ASSET-012", "ERIS-ASSET-001")
def test_patch_of_a_fixed_asset_document_changes_nothing_but_workflow_data(
    api: Any, contract: Any, findings: Any
) -> None:
    """A body that also names other elements (status, comment, identifier, attachment content, another
    attribute): the contract leaves such a body open (ERIS-ASSET-016), so 200 or a 4xx; either way only
    workflow data may change (the status, read-only, least of all)."""
    key, _, content = _workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(before["attachment"][0])
    current = codes(before.get("status"))
    other_status = next(code for code in ("open", "closed", "posted") if code not in current)
    marker = _marker()
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": [{"system": key[0], "value": f"{key[1]}-ERIS"}],
        "status": same_form(before.get("status"), other_status),
        "comment": "not workflow data",
        "attribute": [attribute_like(before, "eris-check", marker)],
        "attachment": [
            {
                "contentType": "text/plain",
                "data": base64.b64encode(b"not the scan").decode(),
                "attribute": [
                    attribute_like(before, "workflow-status", marker),
                    attribute_like(before, "eris-check", marker),
                ],
            }
        ],
    }
    try:
        response = api.patch(FIXED_ASSET_DOCUMENTS, json=body, params={"identifier": token(*key)})
        if not (response.status_code == 200 or 400 <= response.status_code < 500):
            findings.add(
                "ERIS-ASSET-012",
                f"PATCH {FIXED_ASSET_DOCUMENTS} with more than workflow data answered {response.status_code}",
            )
        after = read_document(api, *key)
        if codes(after.get("status")) != current:
            findings.add("ERIS-ASSET-001", "PATCH changed the read-only status of a fixed-asset document")
        if without_workflow(after) != without_workflow(before):
            findings.add(
                "ERIS-ASSET-012",
                "PATCH of a fixed-asset document changed more than its workflow data (attachment[].attribute[])",
            )
        if response.status_code == 200:
            changed = workflow_of((after.get("attachment") or [{}])[0])
            if changed.get("workflow-status") != marker:
                findings.add("ERIS-ASSET-012", "an accepted PATCH did not change the workflow-status")
        if _assert_content(api, _content(api, *key), *key)["data"] != content["data"]:
            findings.add("ERIS-ASSET-012", "PATCH of a fixed-asset document changed its content")
        if api.read_identified(FIXED_ASSET_DOCUMENTS, key[0], f"{key[1]}-ERIS") != []:
            findings.add("ERIS-ASSET-012", "PATCH of a fixed-asset document changed its identifier")
    finally:
        _restore_workflow(api, key, original, before)
    findings.check()


@WRITES_GROUP
@pytest.mark.requirement("ERIS-ASSET-013", "ERIS-ASSET-003", "ERIS-ASSET-001", "ERIS-WRITE-001")
def test_post_writes_the_scan_and_workflow_status_of_a_fixed_asset_document(
    api: Any, contract: Any, findings: Any
) -> None:
    """The scan written is the document's own content (so its content does not change), with a new
    workflow-status; the status is put back afterwards."""
    key, _, content = _workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(before["attachment"][0])
    marker = _marker()
    kept = [a for a in before["attachment"][0].get("attribute") or [] if not is_workflow(a, "workflow-status")]
    body = {
        "resourceType": "FixedAssetDocument",
        "identifier": [{"system": key[0], "value": key[1]}],
        "attachment": [
            {
                "contentType": content["contentType"],
                "data": content["data"],
                "attribute": [*kept, attribute_like(before, "workflow-status", marker)],
            }
        ],
    }
    api.assert_valid(body, "FixedAssetDocument", where="the suite's POST body", context="write")
    try:
        response = api.post(FIXED_ASSET_DOCUMENTS, json=body)
        _answered_200(response, f"POST {FIXED_ASSET_DOCUMENTS} of scan and workflow status", "ERIS-ASSET-013", findings)
        after = read_document(api, *key)
        if workflow_of((after.get("attachment") or [{}])[0]).get("workflow-status") != marker:
            findings.add("ERIS-ASSET-013", "a read after POST does not show the workflow-status written")
        if codes(after.get("status")) != codes(before.get("status")):
            findings.add("ERIS-ASSET-001", "POST changed the read-only status")
        written = _assert_content(api, _content(api, *key), *key)
        if base64.b64decode(written["data"]) != base64.b64decode(content["data"]):
            findings.add("ERIS-ASSET-013", "$document-content after POST is not the scan written")
    finally:
        _restore_workflow(api, key, original, before)
    findings.check()
