"""Faults of writes (parties, fixed-asset documents, document references) and of pushed notifications."""

from __future__ import annotations

import uuid
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    change_what_writes_store,
    json_of,
    make_optional,
    path_is,
    rewrite_json_answer,
    rewrite_notifications,
)
from profiles.installation import INSTALLATION_OID_ARC
from reference_impl.search import FilterError
from reference_impl.state import SERVICE, Service
from reference_impl.store import Condition
from reference_impl.writes import updated_party

PARTIES = "/v1/parties"
FIXED_ASSET_DOCUMENTS = "/v1/fixed-asset-documents"
DOCUMENT_REFERENCES = "/v1/document-references"


def _stored(service: Service, resource_type: str, identifier: str) -> list[dict[str, Any]]:
    """Resources of `resource_type` with the identifier system|value (two at most: enough to tell one from many);
    none for a malformed identifier, which the service's own handler then refuses."""
    try:
        conditions = service.queries.conditions(resource_type, {"identifier": [identifier]})
    except FilterError:
        return []
    return service.store.search(resource_type, conditions, count=2)


def _save(service: Service, resource: dict[str, Any], operation: str) -> None:
    """Store and notify, as the service does, without its checks."""
    with service.store.transaction():
        service.save(resource, operation)


def _keys(resource: dict[str, Any]) -> list[str]:
    """system|value of each identifier of `resource` that has both."""
    return [
        f"{i['system']}|{i['value']}"
        for i in resource.get("identifier") or []
        if isinstance(i, dict) and isinstance(i.get("system"), str) and isinstance(i.get("value"), str) and i["value"]
    ]


# -- parties ---------------------------------------------------------------------------------------------------


@deviation(
    "post-party-without-assigned-identifier",
    "POST /v1/parties without a namespace answers the created Party with no value in the identifier the profile chose "
    "(the value is stored)",
    breaks="ERIS-PARTY-013",
)
def post_party_without_assigned_identifier(app: web.Application, settings: Any) -> None:
    """Only bodies without an identifier are affected: the answer lacks the value of the namespace the profile
    decided on, while a namespace the client named comes back with its value."""
    namespace_named = "eris.deviation.namespace-named"

    async def note_namespace(request: web.Request, handler: Handler) -> web.StreamResponse:
        if path_is("POST", PARTIES)(request):
            body = await json_of(request)
            request[namespace_named] = isinstance(body, dict) and bool(body.get("identifier"))
        return await handler(request)

    def drop_values(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and not request.get(namespace_named, True):
            for identifier in body.get("identifier") or []:
                if str(identifier.get("system", "")).startswith(INSTALLATION_OID_ARC):
                    identifier.pop("value", None)
        return body

    add_middleware(app, note_namespace)
    rewrite_json_answer(app, path_is("POST", PARTIES), drop_values)


@deviation(
    "post-party-updates-existing",
    "POST /v1/parties whose body names an existing party's identifier (system and value) updates that party",
    breaks="ERIS-PARTY-014",
)
def post_party_updates_existing(app: web.Application, settings: Any) -> None:
    async def upsert(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not path_is("POST", PARTIES)(request):
            return await handler(request)
        body = await json_of(request)
        service = request.app[SERVICE]
        found = (
            [party for key in _keys(body) for party in _stored(service, "Party", key)] if isinstance(body, dict) else []
        )
        if not found:
            return await handler(request)
        party = updated_party(service, found[0], body)  # the merge of the service's own PATCH
        _save(service, party, "updated")
        return web.json_response(party)

    add_middleware(app, upsert)


@deviation(
    "patch-party-changes-nothing",
    "PATCH /v1/parties of a Contractor answers 200 with the updated Party but stores nothing",
    breaks="ERIS-PARTY-015",
)
def patch_party_changes_nothing(app: web.Application, settings: Any) -> None:
    change_what_writes_store(app, path_is("PATCH", PARTIES), lambda request, body, party: None)


@deviation(
    "patch-party-without-owner-accepted",
    "PATCH /v1/parties without the required owner parameter is accepted: the party is found by identifier alone",
    breaks="ERIS-PARTY-015",
)
def patch_party_without_owner_accepted(app: web.Application, settings: Any) -> None:
    make_optional(app, "PATCH", PARTIES, "owner")


@deviation(
    "post-party-of-employee-accepted",
    "POST /v1/parties of an Employee (by meta.profile or category) creates that Employee instead of refusing it",
    breaks="ERIS-PARTY-W-001",
)
def post_party_of_employee_accepted(app: web.Application, settings: Any) -> None:
    """A handler of its own for a write the service refuses: the service has no creation of Employees to reuse."""

    async def create_employee(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not path_is("POST", PARTIES)(request):
            return await handler(request)
        body = await json_of(request)
        service = request.app[SERVICE]
        employee = service.contract.profiles["Employee"]
        if not isinstance(body, dict) or employee not in service.validator.recognised_profiles(body, "Party"):
            return await handler(request)
        party = {**body, "resourceType": "Party", "id": str(uuid.uuid4())}
        system, code = employee.category_codings[0]
        categories = list(party.get("category") or [])
        if not any(c.get("code") == code for concept in categories for c in concept.get("coding") or []):
            party["category"] = [*categories, {"coding": [{"system": system, "code": code}]}]
        _save(service, party, "created")
        return web.json_response(party)

    add_middleware(app, create_employee)


# -- fixed-asset documents ------------------------------------------------------------------------------------


@deviation(
    "post-fixed-asset-document-answers-201",
    "POST /v1/fixed-asset-documents answers 201 Created instead of 200",
    breaks="ERIS-WRITE-001",
)
def post_fixed_asset_document_answers_201(app: web.Application, settings: Any) -> None:
    async def created(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        if path_is("POST", FIXED_ASSET_DOCUMENTS)(request) and response.status == 200:
            response.set_status(201)
        return response

    add_middleware(app, created)


@deviation(
    "patch-fixed-asset-document-applies-comment",
    "PATCH /v1/fixed-asset-documents also stores the comment of its body, not only workflow data",
    breaks="ERIS-ASSET-012",
)
def patch_fixed_asset_document_applies_comment(app: web.Application, settings: Any) -> None:
    def with_comment(request: web.Request, body: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
        return {**document, "comment": body["comment"]} if "comment" in body else document

    change_what_writes_store(app, path_is("PATCH", FIXED_ASSET_DOCUMENTS), with_comment)


@deviation(
    "post-fixed-asset-document-keeps-workflow-status",
    "POST /v1/fixed-asset-documents of a known document stores the scan but keeps the workflow-status it had",
    breaks="ERIS-ASSET-013",
)
def post_fixed_asset_document_keeps_workflow_status(app: web.Application, settings: Any) -> None:
    def keep_status(request: web.Request, body: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
        before = request.app[SERVICE].store.search("FixedAssetDocument", [Condition("r.id = ?", (document["id"],))])
        previously = before[0].get("attachment") or [] if before else []
        for old, new in zip(previously, document.get("attachment") or [], strict=False):
            previous = [a for a in old.get("attribute") or [] if a.get("code") == "workflow-status"]
            others = [a for a in new.get("attribute") or [] if a.get("code") != "workflow-status"]
            new["attribute"] = [*others, *previous]
        return document

    change_what_writes_store(app, path_is("POST", FIXED_ASSET_DOCUMENTS), keep_status)


# -- document references -----------------------------------------------------------------------------------------


@deviation(
    "post-document-reference-answers-detail",
    "POST /v1/document-references answers 200 { detail } instead of { message }",
    breaks="ERIS-DOC-005",
)
def post_document_reference_answers_detail(app: web.Application, settings: Any) -> None:
    def renamed(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and "message" in body:
            return {"detail": body["message"]}
        return body

    rewrite_json_answer(app, path_is("POST", DOCUMENT_REFERENCES), renamed)


@deviation(
    "patch-document-reference-answers-bare-document",
    "PATCH /v1/document-references answers the changed DocumentReference itself, not { items: [...] }",
    breaks="ERIS-DOC-006",
)
def patch_document_reference_answers_bare_document(app: web.Application, settings: Any) -> None:
    def unwrapped(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and isinstance(body.get("items"), list) and body["items"]:
            return body["items"][0]
        return body

    rewrite_json_answer(app, path_is("PATCH", DOCUMENT_REFERENCES), unwrapped)


# -- notifications ---------------------------------------------------------------------------------------------


def _source_of(app: web.Application, notification: dict[str, Any]) -> dict[str, Any] | None:
    """The resource a notification names, as stored now (inside the write's transaction: the change is visible)."""
    reference = notification["reference"]
    key = f"{reference['identifier']['system']}|{reference['identifier']['value']}"
    found = _stored(app[SERVICE], reference["type"], key)
    return found[0] if found else None


@deviation("notifications-never-pushed", "no Notification is pushed for any change", breaks="ERIS-EVT-001")
def notifications_never_pushed(app: web.Application, settings: Any) -> None:
    rewrite_notifications(app, lambda notification, app: None)


@deviation("notification-without-date", "pushed Notifications lack the required date element", breaks="ERIS-NOTIF-001")
def notification_without_date(app: web.Application, settings: Any) -> None:
    def undated(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        notification.pop("date", None)
        return notification

    rewrite_notifications(app, undated)


@deviation(
    "notification-id-of-the-resource",
    "a pushed Notification's id is the id of the changed resource, not an id of the notification itself",
    breaks="ERIS-NOTIF-001",
)
def notification_id_of_the_resource(app: web.Application, settings: Any) -> None:
    def resource_id(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        source = _source_of(app, notification)
        if source is not None:
            notification["id"] = source["id"]
        return notification

    rewrite_notifications(app, resource_id)


@deviation(
    "notification-with-contained",
    "pushed Notifications embed the changed resource in contained",
    breaks="ERIS-NOTIF-002",
)
def notification_with_contained(app: web.Application, settings: Any) -> None:
    def embedded(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        source = _source_of(app, notification)
        if source is not None:
            notification["contained"] = [source]
        return notification

    rewrite_notifications(app, embedded)


@deviation(
    "notification-with-identifier",
    "pushed Notifications carry an identifier (the logical identifier of the changed resource)",
    breaks="ERIS-NOTIF-002",
)
def notification_with_identifier(app: web.Application, settings: Any) -> None:
    def identified(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        notification["identifier"] = [dict(notification["reference"]["identifier"])]
        return notification

    rewrite_notifications(app, identified)


@deviation(
    "notification-status-outside-vocabulary",
    "pushed Notifications have status 'delivered', not a code of notification-status",
    breaks="ERIS-NOTIF-003",
)
def notification_status_outside_vocabulary(app: web.Application, settings: Any) -> None:
    def delivered(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        for coding in notification["status"]["coding"]:
            coding.update(code="delivered", display="Delivered")
        return notification

    rewrite_notifications(app, delivered)


@deviation(
    "notification-operation-outside-vocabulary",
    "pushed Notifications name the operation 'create' or 'update', not created or updated",
    breaks="ERIS-NOTIF-004",
)
def notification_operation_outside_vocabulary(app: web.Application, settings: Any) -> None:
    def imperative(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        for coding in notification["operation"]["coding"]:
            coding["code"] = str(coding["code"]).removesuffix("d")
        return notification

    rewrite_notifications(app, imperative)


@deviation(
    "notification-literal-reference",
    "pushed Notifications name the resource by a literal URL ({ns_url}/Party/<id>), not by reference.identifier",
    breaks="ERIS-NOTIF-005",
)
def notification_literal_reference(app: web.Application, settings: Any) -> None:
    def literal(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        source = _source_of(app, notification)
        reference = notification["reference"]
        if source is not None:
            del reference["identifier"]
            ns_url = app[SERVICE].contract.installation.values["ns_url"]
            reference["reference"] = f"{ns_url}/{reference['type']}/{source['id']}"
        return notification

    rewrite_notifications(app, literal)


@deviation(
    "notification-names-the-party",
    "pushed Notifications about a Party carry its name in comment (business content of the resource)",
    breaks="ERIS-NOTIF-006",
)
def notification_names_the_party(app: web.Application, settings: Any) -> None:
    def named(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        source = _source_of(app, notification)
        codings = (source or {}).get("name", {}).get("coding") or []
        if codings and codings[0].get("display"):
            operation = notification["operation"]["coding"][0]["code"]
            notification["comment"] = f"{codings[0]['display']} {operation}"
        return notification

    rewrite_notifications(app, named)
