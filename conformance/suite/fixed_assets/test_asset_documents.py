"""Fixed-asset documents: reads with the filters of openapi.json, $document-content, and the writes the
contract allows on documents (POST of scan and workflow status, PATCH of workflow data only).

Whether a document has content is asked of $document-content, document by document: a list read may carry no
attachment data (the contract shows none there), and "404 when the document has no content". Where no listed
document answers that 404, the vendor may name one ([data] fixed_asset_document_without_content). The contract
fixes no order nor number of a document's attachments (beyond the one $document-content answers): no check
reads a position. The writes change a document of the target's own data and put its workflow status back
afterwards; they run in one xdist group so that they never change the same document at once."""

from __future__ import annotations

import base64
from functools import partial
from typing import Any

import httpx
import pytest

from conformance.configuration.target import Target
from conformance.evidence.outcomes import data_selected_by
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import Api, Findings, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.asset_documents import (
    WITHOUT_CONTENT,
    assert_content,
    asset_documents,
    attachments_of,
    beyond_workflow,
    document_content,
    document_key,
    holds_content,
    keyed_documents,
    restore_workflow,
    shows_content,
    workflow_attachment,
    workflow_document,
    workflow_values,
)
from conformance.suite.support.typed_values import typed_attributes
from conformance.suite.support.writes import (
    DOCUMENT_CONTENT,
    FIXED_ASSET_DOCUMENTS,
    attribute_like,
    codes,
    is_workflow,
    nip_system,
    read_document,
    token,
    workflow_of,
)
from profiles import Contract
from profiles.coded import codes_of, same_form

WRITES_GROUP = pytest.mark.xdist_group("fixed-asset-document-writes")


# -- fixed-asset documents: reads --------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ASSET-010", "ERIS-ASSET-001", "ERIS-READ-001")
def test_fixed_asset_documents_read_by_identifier_owner_and_attribute(api: Api, contract: Contract) -> None:
    keyed = [(d, key) for d in asset_documents(api) if (key := document_key(contract, d)) is not None]
    documents = [document for document, _ in keyed]
    if not documents:
        not_exercised(
            f"GET {FIXED_ASSET_DOCUMENTS} lists no document with an identifier in the FixedAssetDocument.Id namespace",
            exercise=f"data served by GET {FIXED_ASSET_DOCUMENTS}: a document with an identifier in that namespace",
        )

    def read_back(document: dict[str, Any], system: str, value: str) -> None:
        assert read_document(api, system, value).get("id") == document.get("id")

    api.concurrently([partial(read_back, document, system, value) for document, (system, value) in keyed[:10]])
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
def test_document_content_of_a_document_with_content(api: Api, contract: Contract) -> None:
    """Every listed document is asked for its content; each that has some answers exactly one attachment, with
    format=blob too, with the owner keeping the register, and with the document's own attributes as code|value.
    One whose read shows no content may answer 404."""
    keyed = keyed_documents(api, contract)
    checked = 0
    done: set[str] = set()
    for key, document in keyed:
        response = document_content(api, *key)
        if not shows_content(document) and not holds_content(response):
            continue  # no content, by its 404 or by a 200 holding none: the 404's test judges that answer
        attachment = assert_content(api, response, *key)
        checked += 1
        _exercised_content(done, "identifier", {"identifier": token(*key)})
        shown = [a.get("data") for a in attachments_of(document) if a.get("data")]
        if shown:
            assert attachment["data"] in shown, f"$document-content of {token(*key)} is not the content its read shows"
        assert_content(api, document_content(api, *key, format="blob"), *key)
        _exercised_content(done, "format", {"identifier": token(*key), "format": "blob"})
        # "attribute (optional, repeatable, code|value, for example schema|<schema>)": the document's own
        # attributes, a number or a boolean in its JSON text; what else it selects is not shown
        for pair in typed_attributes(document)[:2]:
            assert_content(api, document_content(api, *key, attribute=token(*pair)), *key)
            _exercised_content(done, "attribute", {"identifier": token(*key), "attribute": token(*pair)})
        owners = [
            o["identifier"]["value"]
            for o in document.get("owner") or []
            if isinstance(o, dict)
            and isinstance(o.get("identifier"), dict)
            and o["identifier"].get("system") == nip_system(contract)
        ]
        if owners:
            assert_content(api, document_content(api, *key, owner=token(nip_system(contract), owners[0])), *key)
            _exercised_content(
                done, "owner", {"identifier": token(*key), "owner": token(nip_system(contract), owners[0])}
            )
    if checked:
        for clause, what in (("owner", "an owner by its NIP"), ("attribute", "an attribute")):
            if clause in done:
                continue
            selected_by = "nip_system" if clause == "owner" else ""  # an owner by its NIP is looked for there
            clause_not_exercised(
                "ERIS-ASSET-011",
                clause,
                f"no fixed-asset document with content listed by GET {FIXED_ASSET_DOCUMENTS} has {what}",
                exercise=data_selected_by(
                    contract.installation.assumed,
                    selected_by,
                    FIXED_ASSET_DOCUMENTS,
                    f"a document with content and {what}",
                ),
            )
    if not checked:
        not_exercised(
            f"no fixed-asset document listed by GET {FIXED_ASSET_DOCUMENTS} ({len(keyed)} with an identifier in the "
            "FixedAssetDocument.Id namespace) has content, by its read or by $document-content",
            exercise="a fixed-asset document with a scan in the target's data",
        )


def _exercised_content(done: set[str], clause: str, params: dict[str, str]) -> None:
    done.add(clause)
    request = f"GET {DOCUMENT_CONTENT}?{'&'.join(f'{k}={v}' for k, v in params.items())}"
    exercised("ERIS-ASSET-011", clause, value=params[clause], request=request)


@pytest.mark.requirement("ERIS-ERR-201", "ERIS-ASSET-011")
def test_document_content_of_a_document_without_content_is_a_404(
    api: Api, contract: Contract, target: Target, findings: Findings
) -> None:
    """Every listed document whose read shows no content is asked, until one answers 404; a 200 holding no
    content is the 404 not given. Then the document of [data] fixed_asset_document_without_content."""
    tried = 0
    for key, document in keyed_documents(api, contract):
        if shows_content(document):
            continue
        response = document_content(api, *key)
        tried += 1
        if response.status_code == 404:
            findings.check()
            return
        if response.status_code == 200 and not holds_content(response):
            findings.add(
                "ERIS-ERR-201",
                f"$document-content of {token(*key)} answered 200 without content (no attachment with data), "
                "not 404: '404 when the document has no content'",
            )
        elif response.status_code != 200:
            findings.add(
                "ERIS-ASSET-011",
                f"$document-content of {token(*key)} answered {response.status_code}: 200 with the content, or 404 "
                "when the document has none",
            )
    findings.check()
    named = target.named_identifier(WITHOUT_CONTENT)
    if named is None:
        not_exercised(
            f"no fixed-asset document listed by GET {FIXED_ASSET_DOCUMENTS} answered $document-content with 404 "
            f"({tried} tried: those whose read shows no content), and the target description names none in "
            f"[data] {WITHOUT_CONTENT}",
            exercise=f"[data] {WITHOUT_CONTENT}",
        )
    response = document_content(api, *named)
    if response.status_code == 404 and not api.read_identified(
        FIXED_ASSET_DOCUMENTS, *named, resource_type="FixedAssetDocument"
    ):
        # a 404 for an identifier the target does not hold says nothing of a document without content
        not_exercised(
            f"the target answered 404 to $document-content for the document named in "
            f"{target.entry_text(WITHOUT_CONTENT)}, and GET {FIXED_ASSET_DOCUMENTS}?identifier={token(*named)} finds "
            "no such document: the entry names no document the target holds (a typo?)",
            exercise=f"[data] {WITHOUT_CONTENT}: the identifier (system|value) of a fixed-asset document the target "
            "holds, without content",
        )
    if response.status_code != 404:
        findings.add(
            "ERIS-ERR-201",
            f"$document-content of {token(*named)}, named in {target.entry_text(WITHOUT_CONTENT)} as a document "
            f"without content, answered {response.status_code}, not 404",
        )
    findings.check()


# -- fixed-asset documents: writes ---------------------------------------------------------------------------


def _marker() -> str:
    return f"eris-check-{made_up_hex(8)}"


def _answered_200(response: httpx.Response, what: str, requirement: str, findings: Findings) -> bool:
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
def test_patch_of_a_fixed_asset_document_changes_its_workflow_data(
    api: Api, contract: Contract, findings: Findings
) -> None:
    key, _, content = workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(workflow_attachment(before))
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
        if marker not in workflow_values(after, "workflow-status"):
            findings.add("ERIS-ASSET-012", "a read after PATCH shows the new workflow-status on no attachment")
        for code in ("workflow-link", "workflow-system"):
            if workflow_values(after, code) != workflow_values(before, code):
                findings.add("ERIS-ASSET-012", f"PATCH of workflow-status changed {code}")
        if codes(after.get("status")) != codes(before.get("status")):
            findings.add("ERIS-ASSET-001", "PATCH of workflow data changed the read-only status")
        if beyond_workflow(after) != beyond_workflow(before):
            findings.add(
                "ERIS-ASSET-012",
                "PATCH of a fixed-asset document changed more than its workflow data (attachment[].attribute[])",
            )
        again = assert_content(api, document_content(api, *key), *key)
        if again["data"] != content["data"]:
            findings.add("ERIS-ASSET-012", "PATCH of workflow data changed the document's content")
    finally:
        restore_workflow(api, key, original, before)
    findings.check()


@WRITES_GROUP
@pytest.mark.requirement("ERIS-ASSET-012", "ERIS-ASSET-001")
def test_patch_of_a_fixed_asset_document_changes_nothing_but_workflow_data(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """A body that also names other elements (status, comment, identifier, attachment content, another
    attribute): the contract leaves such a body open (ERIS-ASSET-016), so 200 or a 4xx; either way only
    workflow data may change (the status, read-only, least of all)."""
    key, _, content = workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(workflow_attachment(before))
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
        if beyond_workflow(after) != beyond_workflow(before):
            findings.add(
                "ERIS-ASSET-012",
                "PATCH of a fixed-asset document changed more than its workflow data (attachment[].attribute[])",
            )
        if response.status_code == 200 and marker not in workflow_values(after, "workflow-status"):
            findings.add("ERIS-ASSET-012", "an accepted PATCH did not change the workflow-status")
        if assert_content(api, document_content(api, *key), *key)["data"] != content["data"]:
            findings.add("ERIS-ASSET-012", "PATCH of a fixed-asset document changed its content")
        if api.read_identified(FIXED_ASSET_DOCUMENTS, key[0], f"{key[1]}-ERIS") != []:
            findings.add("ERIS-ASSET-012", "PATCH of a fixed-asset document changed its identifier")
    finally:
        restore_workflow(api, key, original, before)
    findings.check()


@WRITES_GROUP
@pytest.mark.requirement("ERIS-ASSET-013", "ERIS-ASSET-003", "ERIS-ASSET-001", "ERIS-WRITE-001")
def test_post_writes_the_scan_and_workflow_status_of_a_fixed_asset_document(
    api: Api, contract: Contract, findings: Findings
) -> None:
    """The scan written is the document's own content (so its content does not change), with a new
    workflow-status; the status is put back afterwards."""
    key, _, content = workflow_document(api, contract)
    before = read_document(api, *key)
    original = workflow_of(workflow_attachment(before))
    marker = _marker()
    kept = [a for a in workflow_attachment(before).get("attribute") or [] if not is_workflow(a, "workflow-status")]
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
        # the scan may replace the attachment or be added beside it: the contract fixes neither, nor an order
        if marker not in workflow_values(after, "workflow-status"):
            findings.add("ERIS-ASSET-013", "a read after POST shows the workflow-status written on no attachment")
        if codes(after.get("status")) != codes(before.get("status")):
            findings.add("ERIS-ASSET-001", "POST changed the read-only status")
        written = assert_content(api, document_content(api, *key), *key)
        if base64.b64decode(written["data"]) != base64.b64decode(content["data"]):
            findings.add("ERIS-ASSET-013", "$document-content after POST is not the scan written")
    finally:
        restore_workflow(api, key, original, before)
    findings.check()
