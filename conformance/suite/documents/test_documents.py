"""Document envelopes (DocumentReference): reads with the filters of the contract, POST of an HR inbox
document (200 { message }, or 422 when the source system rejects it), and PATCH of a warehouse document's
status. The 400 of a `finance/document-type` filter is checked with the other coded filters (reads).

Documents are discovered by reads. The PATCH changes the status of one of the target's warehouse
documents and puts it back afterwards; the contract's GET answers the HR inbox, so a target that lists no
warehouse document is asked to name one ([data] warehouse_document)."""

from __future__ import annotations

import base64
from functools import partial
from typing import Any

import pytest

from conformance.configuration.target import Target
from conformance.harness.plugin import Api, Findings, not_applicable, not_exercised
from conformance.suite.support.typed_values import typed_attributes
from conformance.suite.support.writes import (
    codes,
    has_identifier,
    identifiers,
    namespace_system,
    namespace_systems,
    only,
    profile_url,
    token,
    vocab,
)
from profiles import Contract

DOCUMENTS = "/v1/document-references"


def _documents(api: Api, **params: Any) -> list[dict[str, Any]]:
    return api.read_all(DOCUMENTS, params, resource_type="DocumentReference")


def _keyed(contract: Contract, documents: list[dict[str, Any]]) -> list[tuple[tuple[str, str], dict[str, Any]]]:
    systems = namespace_systems(contract, "document-reference")
    return [(found[0], d) for d in documents if (found := identifiers(d, systems))]


def _ids(items: list[dict[str, Any]]) -> list[Any]:
    return [item.get("id") for item in items]


def _of_profile(api: Api, contract: Contract, profile: str) -> list[dict[str, Any]]:
    return _documents(api, profile=profile_url(contract, profile))


# -- reads -------------------------------------------------------------------------------------------------

HR_INBOX_PROFILE = "HrInboxDocument"
HR_INBOX_ONLY = (
    'the list read answers "200 envelope of DocumentReference[] (HR inbox)", so a target may list no warehouse '
    "document there"
)


@pytest.mark.requirement("ERIS-DOC-004", "ERIS-DOC-002", "ERIS-READ-001")
@pytest.mark.parametrize("profile", ["HrInboxDocument", "WarehouseDocument"])
def test_document_references_read_by_profile(api: Api, contract: Contract, profile: str) -> None:
    items = _of_profile(api, contract, profile)
    if not items and profile != HR_INBOX_PROFILE:
        not_applicable(f"{HR_INBOX_ONLY}: GET {DOCUMENTS}?profile={profile_url(contract, profile)} answers no document")
    if not items:
        not_exercised(
            f"GET {DOCUMENTS}?profile={profile_url(contract, profile)} answers no document",
            exercise=f"data served by GET {DOCUMENTS}: a {profile}",
        )
    wanted = contract.profiles[profile]
    for item in items:
        assert wanted in api.validator.recognised_profiles(item, "DocumentReference"), (
            f"GET {DOCUMENTS}?profile={wanted.url} returns {item.get('id')}, which is not a {profile}"
        )


@pytest.mark.requirement("ERIS-DOC-004", "ERIS-READ-001")
def test_document_references_read_by_identifier(api: Api, contract: Contract) -> None:
    keyed = _keyed(contract, _documents(api))
    if not keyed:
        not_exercised(
            f"GET {DOCUMENTS} lists no document with an identifier in the DocumentReference.Id namespace",
            exercise=f"data served by GET {DOCUMENTS}: a document with an identifier in that namespace",
        )

    def read_back(key: tuple[str, str], document: dict[str, Any]) -> None:
        found = only(
            api.read(DOCUMENTS, {"identifier": token(*key)}, resource_type="DocumentReference"),
            f"GET {DOCUMENTS}?identifier={token(*key)}",
        )
        assert found.get("id") == document.get("id") and has_identifier(found, *key)

    api.concurrently([partial(read_back, key, document) for key, document in keyed[:10]])


@pytest.mark.requirement("ERIS-DOC-004", "ERIS-BASE-003")
def test_document_references_read_by_external_system_name_and_other_attributes(api: Api) -> None:
    documents = _documents(api)
    pairs = {pair for d in documents for pair in typed_attributes(d)}
    if not pairs:
        not_exercised(
            f"no document listed by GET {DOCUMENTS} carries an attribute with a string, number or boolean value",
            exercise=f"data served by GET {DOCUMENTS}: a document with an attribute",
        )
    chosen = sorted(pairs, key=lambda pair: (pair[0] != "external-system-name", pair))[:3]
    answers = api.concurrently([partial(_documents, api, attribute=f"{code}|{value}") for code, value in chosen])
    for (code, value), items in zip(chosen, answers, strict=True):
        having = [d.get("id") for d in documents if _has_attribute(d, code, value)]
        assert set(having) <= set(_ids(items)), f"GET {DOCUMENTS}?attribute={code}|{value} misses documents with it"
        strangers = [item.get("id") for item in items if not _has_attribute(item, code, value)]
        assert not strangers, f"GET {DOCUMENTS}?attribute={code}|{value} returns documents without it: {strangers}"


def _has_attribute(document: dict[str, Any], code: str, value: str) -> bool:
    return (code, value) in typed_attributes(document)


@pytest.mark.requirement("ERIS-DOC-004", "ERIS-FILTER-002")
@pytest.mark.parametrize("vocabulary", ["hr/document-type", "warehouse/document-type"])
def test_document_references_read_by_type(api: Api, contract: Contract, vocabulary: str) -> None:
    system = f"{vocab(contract)}/{vocabulary}"
    documents = _documents(api)
    typed = [(d, code) for d in documents for code in sorted(codes(d.get("type"), system))]
    if not typed and not vocabulary.startswith("hr/"):
        not_applicable(f"{HR_INBOX_ONLY}: no document listed by GET {DOCUMENTS} has a type of {system}")
    if not typed:
        not_exercised(
            f"no document listed by GET {DOCUMENTS} has a type of {system}",
            exercise=f"data served by GET {DOCUMENTS}: a document with a type of {vocabulary}",
        )
    document, code = typed[0]
    items = _documents(api, type=token(system, code))
    assert document.get("id") in _ids(items), f"GET {DOCUMENTS}?type={system}|{code} misses {document.get('id')}"
    strangers = [item.get("id") for item in items if code not in codes(item.get("type"), system)]
    assert not strangers, f"GET {DOCUMENTS}?type={system}|{code} returns documents of another type: {strangers}"


# -- POST of an HR inbox document ----------------------------------------------------------------------------


def _hr_inbox_body(api: Api, contract: Contract) -> dict[str, Any]:
    """An HrInboxDocument with the namespace and no value (as the contract recommends), a type and a
    participant taken from the target's HR inbox documents when it has some, and a PDF attachment."""
    profile = contract.profiles["HrInboxDocument"]
    system, code = profile.category_codings[0]
    body: dict[str, Any] = {
        "resourceType": "DocumentReference",
        "meta": {"profile": [profile.url]},
        "category": [{"coding": [{"system": system, "code": code}]}],
        "identifier": [{"system": namespace_system(contract, "document-reference")}],
        "attachment": [{"contentType": "application/pdf", "data": base64.b64encode(b"%PDF-1.4\n% eris\n").decode()}],
    }
    inbox = _of_profile(api, contract, "HrInboxDocument")
    # "The identifier namespace names the inbox that registers the document": the HR inbox's own, when the
    # target has more than one namespace of the kind
    in_inbox = [key[0] for key, _ in _keyed(contract, inbox)]
    if in_inbox:
        body["identifier"] = [{"system": in_inbox[0]}]
    example = next((d for d in inbox if d.get("type") and d.get("participant")), None)
    if example is not None:
        body["type"] = example["type"]
        body["participant"] = example["participant"][:1]
        space_broken = any(
            issue.is_error and (issue.location or "").startswith("/space")
            for issue in api.validator.validate(example, resource_type="DocumentReference")
        )
        if example.get("space") and not space_broken:  # a broken one is the served document's defect, not copied
            body["space"] = example["space"]
    else:  # the HR inbox document types of this installation (an implementation-defined value set)
        params = {"url": f"{vocab(contract)}/hr-inbox-document-type"}
        found = api.get("/v1/value-sets", params).status_code == 200  # 404: not available in the installation
        sets = api.read("/v1/value-sets", params, resource_type="ValueSet") if found else []
        include = next((i for vs in sets for i in vs.get("compose", {}).get("include", []) if i.get("concept")), None)
        if include is not None:
            body["type"] = {"coding": [{"system": include["system"], "code": include["concept"][0]["code"]}]}
    return body


@pytest.mark.requirement("ERIS-DOC-005", "ERIS-DOC-W-002", "ERIS-ERR-202", "ERIS-WRITE-001")
def test_post_of_an_hr_inbox_document_answers_a_message_or_the_source_systems_422(
    api: Api, contract: Contract, findings: Findings
) -> None:
    body = _hr_inbox_body(api, contract)
    api.assert_valid(body, "DocumentReference", where="the suite's HrInboxDocument body", context="write")
    response = api.post(DOCUMENTS, json=body)
    if response.status_code not in (200, 422):
        # a 4xx refuses the body the contract gives ("body DocumentReference of profile HrInboxDocument with
        # identifier[].system recommended, value optional"): ERIS-DOC-W-002
        broken = "ERIS-DOC-W-002" if 400 <= response.status_code < 500 else "ERIS-DOC-005"
        findings.add(
            "ERIS-WRITE-001" if 200 < response.status_code < 300 else broken,
            f"POST {DOCUMENTS} of an HrInboxDocument answered {response.status_code}: 200 {{ message }}, or 422 when "
            f"the source system rejects it: {response.text[:300]}",
        )
    elif response.status_code == 200:
        errors = [
            f"{i.location or '/'}: {i.message} [{i.code}]"
            for i in api.validator.validate(response.json(), resource_type="WriteMessage")
            if i.is_error
        ]
        if errors:
            findings.add("ERIS-DOC-005", f"the answer of POST {DOCUMENTS} is not {{ message }}: {'; '.join(errors)}")
    findings.check()


# -- PATCH of a warehouse document ---------------------------------------------------------------------------

WAREHOUSE_DOCUMENT = "warehouse_document"
"""The [data] entry naming a warehouse document (conformance.configuration.target.DATA_ENTRIES)."""
ANY_CODE = "eris-conformance-check"
"""A status or type for a warehouse document the suite cannot read, where the target's value set names no codes:
the shared terminology accepts "any code of this system" (profiles/terminology/warehouse/document-status.json)."""


def _published_coding(api: Api, url: str) -> dict[str, str]:
    """The first concept of the value set `url` the target serves, as a Coding; a code of the suite's own in the
    set's system when the set names none (or is not served)."""
    response = api.get("/v1/value-sets", {"url": url})
    body = response.json() if response.status_code == 200 else {}
    includes = [
        include
        for value_set in (body.get("items") if isinstance(body, dict) else None) or []
        if isinstance(value_set, dict) and isinstance(value_set.get("compose"), dict)
        for include in value_set["compose"].get("include") or []
        if isinstance(include, dict) and isinstance(include.get("system"), str)
    ]
    for include in includes:
        for concept in include.get("concept") or []:
            if isinstance(concept, dict) and isinstance(concept.get("code"), str):
                return {"system": include["system"], "code": concept["code"]}
    return {"system": includes[0]["system"] if includes else url, "code": ANY_CODE}


def _identified(api: Api, key: tuple[str, str]) -> list[dict[str, Any]]:
    items = api.read(DOCUMENTS, {"identifier": token(*key)}, resource_type="DocumentReference")
    return [item for item in items if has_identifier(item, *key)]


@pytest.mark.xdist_group("warehouse-document-writes")
@pytest.mark.requirement("ERIS-DOC-006", "ERIS-DOC-W-001", "ERIS-WRITE-001")
def test_patch_changes_the_status_of_a_warehouse_document(
    api: Api, contract: Contract, target: Target, findings: Findings
) -> None:
    """A warehouse document listed by GET, its status changed to another one the target uses and put back. The
    contract's GET answers the HR inbox, so where it lists none the document is the one of [data]
    warehouse_document: read by identifier when the target finds it so, else changed blind, with the first
    status and type the target's value sets publish, and seen changed where GET or the PATCH's items show it."""
    status_system = f"{vocab(contract)}/warehouse/document-status"
    listed = [
        (key, d)
        for key, d in _keyed(contract, _of_profile(api, contract, "WarehouseDocument"))
        if codes(d.get("status"), status_system) and d.get("type")
    ]
    document: dict[str, Any] | None
    if listed:
        key, document = listed[-1]
    else:
        named = target.named_identifier(WAREHOUSE_DOCUMENT)
        if named is None:
            not_exercised(
                f"GET {DOCUMENTS} lists no WarehouseDocument with an identifier, a status of {status_system} and a "
                f"type (the contract's GET answers the HR inbox), and the target description names none in "
                f"[data] {WAREHOUSE_DOCUMENT}",
                exercise=f"[data] {WAREHOUSE_DOCUMENT}",
            )
        key = named
        found = [d for d in _identified(api, key) if codes(d.get("status"), status_system) and d.get("type")]
        document = found[0] if found else None
    if document is not None:
        current = {"system": status_system, "code": sorted(codes(document["status"], status_system))[0]}
        seen = sorted({c for _, d in listed for c in codes(d["status"], status_system)} - {current["code"]})
        # another status this target uses, else one its value set publishes: the contract names none
        new = {"system": status_system, "code": seen[0]} if seen else _published_coding(api, status_system)
        kind = document["type"]
    else:
        current = None
        new = _published_coding(api, status_system)
        kind = {"coding": [_published_coding(api, f"{vocab(contract)}/warehouse/document-type")]}

    def body(status: dict[str, str]) -> dict[str, Any]:
        profile = contract.profiles["WarehouseDocument"]
        system, category = profile.category_codings[0]
        return {
            "resourceType": "DocumentReference",
            "meta": {"profile": [profile.url]},
            "category": [{"coding": [{"system": system, "code": category}]}],
            "identifier": [{"system": key[0], "value": key[1]}],
            "status": {"coding": [status]},
            "type": kind,
        }

    api.assert_valid(body(new), "DocumentReference", where="the suite's WarehouseDocument body", context="write")
    try:
        response = api.patch(DOCUMENTS, json=body(new))
        answered = f"PATCH {DOCUMENTS} answered {response.status_code}: {response.text[:300]}"
        if 200 < response.status_code < 300:
            findings.add("ERIS-WRITE-001", answered)
        elif response.status_code == 404 and document is None:
            # the document of [data], which no read finds: a typo of the description is not the target's failure
            not_exercised(
                f"the target answered 404 to PATCH {DOCUMENTS} for the warehouse document named in "
                f"{target.entry_text(WAREHOUSE_DOCUMENT)}, and GET {DOCUMENTS}?identifier={token(*key)} finds no "
                "such document: the entry names no document the target holds (a typo?)",
                exercise=f"[data] {WAREHOUSE_DOCUMENT}: the identifier (system|value) of a warehouse document the "
                "target holds",
            )
        elif response.status_code != 200:
            # a 4xx refuses the body the contract gives ("identifier (namespace and document id), status, type")
            findings.add("ERIS-DOC-W-001" if 400 <= response.status_code < 500 else "ERIS-DOC-006", answered)
            findings.check()
        answer = response.json() if response.status_code == 200 else None
        items = answer.get("items") if isinstance(answer, dict) else None
        if response.status_code == 200 and not isinstance(items, list):
            findings.add("ERIS-DOC-006", f"PATCH {DOCUMENTS} must answer {{ items: [...] }}, not {str(answer)[:200]}")
        # what shows the document now: a read by identifier, else the PATCH's items (what they hold is not shown)
        shown = _identified(api, key) or [i for i in items or [] if isinstance(i, dict) and has_identifier(i, *key)]
        if document is not None and not shown:
            findings.add("ERIS-DOC-006", f"after PATCH, GET {DOCUMENTS}?identifier={token(*key)} finds no document")
        for now in shown:
            if codes(now.get("status"), new["system"]) != {new["code"]}:
                findings.add(
                    "ERIS-DOC-006",
                    f"after PATCH the warehouse document {token(*key)} has status {codes(now.get('status'))}, "
                    f"not {new['code']}",
                )
            if codes(now.get("type")) != codes(kind):
                findings.add("ERIS-DOC-006", f"after PATCH the warehouse document {token(*key)} has not the type sent")
    finally:
        if current is not None and new != current:
            api.patch(DOCUMENTS, json=body(current))
    findings.check()
