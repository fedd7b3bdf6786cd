"""Fixed-asset documents as the tests of conformance/suite/fixed_assets find them: the documents listed and their
keys (the FixedAssetDocument.Id namespace), which have content (shown by their read, else asked of
$document-content) and what a 200 of $document-content must be, the workflow data of their attachments, and how a
test puts workflow data back after writing it."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import httpx
import pytest

from conformance.harness.plugin import Api, not_exercised
from conformance.suite.support.writes import (
    DOCUMENT_CONTENT,
    FIXED_ASSET_DOCUMENTS,
    attribute_like,
    has_identifier,
    identifiers,
    namespace_systems,
    token,
    without_workflow,
    workflow_of,
)
from profiles import Contract

__all__ = [
    "WITHOUT_CONTENT",
    "assert_content",
    "asset_documents",
    "attachments_of",
    "beyond_workflow",
    "document_content",
    "document_key",
    "documents_with_content",
    "holds_content",
    "keyed_documents",
    "restore_workflow",
    "shows_content",
    "workflow_attachment",
    "workflow_document",
    "workflow_values",
    "workflows_of",
]

WITHOUT_CONTENT = "fixed_asset_document_without_content"
"""The [data] entry naming a document without content (conformance.configuration.target.DATA_ENTRIES)."""


def asset_documents(api: Api) -> list[dict[str, Any]]:
    return api.read_all(FIXED_ASSET_DOCUMENTS, resource_type="FixedAssetDocument")


def document_key(contract: Contract, document: dict[str, Any]) -> tuple[str, str] | None:
    found = identifiers(document, namespace_systems(contract, "fixed-asset-document"))
    return found[0] if found else None


def keyed_documents(api: Api, contract: Contract) -> list[tuple[tuple[str, str], dict[str, Any]]]:
    """(identifier in the FixedAssetDocument.Id namespace, document) of every document listed."""
    return [(key, d) for d in asset_documents(api) if (key := document_key(contract, d)) is not None]


def attachments_of(document: Any) -> list[dict[str, Any]]:
    found = document.get("attachment") if isinstance(document, dict) else None
    return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else []


def shows_content(document: dict[str, Any]) -> bool:
    return any(a.get("data") and a.get("contentType") for a in attachments_of(document))


def document_content(api: Api, system: str, value: str, **params: Any) -> httpx.Response:
    return api.get(DOCUMENT_CONTENT, {"identifier": token(system, value), **params})


def holds_content(response: httpx.Response) -> bool:
    """Whether a $document-content answer is a 200 whose document holds an attachment with data."""
    if response.status_code != 200:
        return False
    try:
        return shows_content(response.json())
    except ValueError:
        return False


def assert_content(api: Api, response: httpx.Response, system: str, value: str) -> dict[str, Any]:
    """A 200 of $document-content: a valid FixedAssetDocument, the one asked for, with exactly one
    attachment holding contentType and base64 data."""
    assert response.status_code == 200, (
        f"$document-content of {system}|{value}, a document with content, answered {response.status_code}"
    )
    document = response.json()
    api.judge(document, "FixedAssetDocument", where=f"$document-content of {system}|{value}")
    assert has_identifier(document, system, value), f"$document-content of {system}|{value} answered another document"
    attachments = document.get("attachment")
    # "Response 200: a FixedAssetDocument with exactly one attachment[] holding contentType and data (base64)"
    assert isinstance(attachments, list) and len(attachments) == 1, (
        f"$document-content of {system}|{value} must answer exactly one attachment, not {len(attachments or [])}"
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


def documents_with_content(api: Api, contract: Contract) -> list[tuple[tuple[str, str], dict[str, Any]]]:
    """(identifier, document) of the documents that have content: shown by their read, else by a
    $document-content that holds it."""
    return [
        (key, d)
        for key, d in keyed_documents(api, contract)
        if shows_content(d) or holds_content(document_content(api, *key))
    ]


def workflows_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The workflow data of each attachment that has some, in no particular order."""
    return [found for a in attachments_of(document) if (found := workflow_of(a))]


def workflow_values(document: dict[str, Any], code: str) -> list[Any]:
    return sorted((w[code] for w in workflows_of(document) if code in w), key=repr)


def workflow_attachment(document: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in attachments_of(document) if workflow_of(a))


def workflow_document(api: Api, contract: Contract) -> tuple[tuple[str, str], dict[str, Any], dict[str, Any]]:
    """A document with content and an attachment carrying workflow data: (identifier, document, its content
    as answered by $document-content). One with a single attachment when there is one (a PATCH of one
    attachment's workflow data then names it beyond doubt); the last one, to keep clear of tests that take
    the first."""
    candidates = [(key, d) for key, d in documents_with_content(api, contract) if workflows_of(d)]
    if not candidates:
        not_exercised(
            f"no fixed-asset document listed by GET {FIXED_ASSET_DOCUMENTS} has content and an attachment with "
            "workflow data (attachment[].attribute[] workflow-status, workflow-link, workflow-system)",
            exercise="a fixed-asset document with a scan and workflow data in the target's data",
        )
    key, document = sorted(candidates, key=lambda c: len(attachments_of(c[1])) == 1)[-1]
    content = assert_content(api, document_content(api, *key), *key)
    return key, document, content


def beyond_workflow(document: dict[str, Any]) -> dict[str, Any]:
    """What a write of workflow data leaves as it was (writes.without_workflow), attachments in no order."""
    rest = without_workflow(document)
    if isinstance(rest.get("attachment"), list):
        rest["attachment"] = sorted(rest["attachment"], key=lambda a: json.dumps(a, sort_keys=True))
    return rest


def restore_workflow(api: Api, key: tuple[str, str], workflow: dict[str, Any], like: Any) -> None:
    if workflow:
        body = {
            "resourceType": "FixedAssetDocument",
            "attachment": [{"attribute": [attribute_like(like, code, value) for code, value in workflow.items()]}],
        }
        api.patch(FIXED_ASSET_DOCUMENTS, json=body, params={"identifier": token(*key)})
