"""POST and PATCH handlers: parties (Contractor only), fixed-asset documents, document references.

Every write body is checked by the validator as a write; the stored result is checked again as a
served resource, so the service never stores what it would refuse to serve.
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from profiles import strict_json
from profiles.contract import value_set_codes
from profiles.validator import RESOURCE, WRITE
from reference_impl.problems import problem
from reference_impl.reads import missing_required, query_lists
from reference_impl.search import FilterError
from reference_impl.state import SERVICE, Service

WORKFLOW_CODES = value_set_codes("fixed-asset-document-workflow-attribute")


class Rejected(Exception):
    """A write the service refuses; carries the Problem Details answer."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.text)
        self.response = response


BODY_READ_SECONDS = 30.0
"""A body that takes longer (a client trickling it) is a 408: a slow client holds no handler for long."""


async def json_body(request: web.Request, *, wrong_media_type: int = 415) -> dict[str, Any]:
    """The JSON object body of a write. `wrong_media_type`: the status of a body not sent as JSON (POST
    /v1/reports answers 400, the Errors part's status of a malformed request)."""
    if request.content_type not in ("application/json", "application/fhir+json") and not request.content_type.endswith(
        "+json"
    ):
        detail = f"the body must be sent as application/json, not {request.content_type!r}"
        raise Rejected(problem(wrong_media_type, detail))
    try:
        async with asyncio.timeout(BODY_READ_SECONDS):
            raw = await request.read()
    except TimeoutError:
        raise Rejected(problem(408, f"the body did not arrive within {BODY_READ_SECONDS:g} s")) from None
    try:
        body = strict_json.loads(raw)
    except strict_json.StrictJSONError as error:
        raise Rejected(problem(400, f"the body is not JSON this service reads: {error}")) from None
    if not isinstance(body, dict):
        raise Rejected(problem(400, "the body must be a JSON object (one resource)"))
    return body


def _check(service: Service, document: dict[str, Any], resource_type: str, context: str) -> dict[str, Any]:
    """The document as the validator reads it (a null member of an element without a value left out); Rejected
    (422) when it breaks the contract."""
    issues = [i for i in service.validator.validate(document, resource_type=resource_type, context=context)]
    errors = [i for i in issues if i.is_error]
    if errors:
        raise Rejected(
            problem(
                422,
                f"the {resource_type} {'write' if context == WRITE else 'result'} breaks the contract: "
                f"{errors[0].message} (at {errors[0].location or '/'})",
                issues=[i.to_dict() for i in issues],
            )
        )
    return service.validator.as_read(document, resource_type=resource_type)


def _one(service: Service, resource_type: str, query: dict[str, list[str]]) -> dict[str, Any]:
    try:
        conditions = service.queries.conditions(resource_type, query)
    except FilterError as error:
        raise Rejected(problem(400, str(error), parameter=error.parameter)) from None
    found = service.store.search(resource_type, conditions, count=2)
    described = ", ".join(f"{name}={values[0]}" for name, values in query.items())
    if not found:
        raise Rejected(problem(404, f"no {resource_type} with {described}"))
    if len(found) > 1:
        raise Rejected(problem(409, f"more than one {resource_type} with {described}"))
    return found[0]


def _assign_identifier(service: Service, resource: dict[str, Any], namespace_keys: tuple[str, ...]) -> None:
    """Give a value to the identifier in one of the namespaces of these kinds (the first given, else the first
    namespace of the first kind): the namespace a write names selects where the resource is registered."""
    systems = [system for key in namespace_keys for system in service.contract.namespace_systems(key)]
    identifiers = [i for i in resource.get("identifier", []) if isinstance(i, dict)]
    chosen = next((i for i in identifiers if i.get("system") in systems and not i.get("value")), None)
    if chosen is None and not any(i.get("system") in systems and i.get("value") for i in identifiers):
        chosen = {"system": systems[0]}
        identifiers.insert(0, chosen)
    if chosen is not None:
        chosen["value"] = str(service.store.next_identifier_value(chosen["system"]))
    for identifier in identifiers:
        if identifier is chosen or identifier.get("system") not in systems:
            continue
        taken = service.store.search(
            resource["resourceType"],
            [service.store.token_condition("identifier", [(identifier["system"], str(identifier.get("value")))])],
            count=1,
        )
        if taken:
            raise Rejected(
                problem(409, f"identifier {identifier['system']}|{identifier.get('value')} is already assigned")
            )
    resource["identifier"] = identifiers


WriteHook = Callable[[web.Request, dict[str, Any], dict[str, Any]], dict[str, Any] | None]
"""hook(request, body, resource) -> what a write stores of the `resource` it made of `body`; None: nothing (the
handler still answers `resource`)."""
WRITE_HOOKS = web.AppKey("write_hooks", list[WriteHook])
"""The handler hooks of every write, in order (create_app starts with none; see reference_impl.app)."""


def _store(request: web.Request, body: dict[str, Any], resource: dict[str, Any], operation: str) -> None:
    """Store what a write made, as the write hooks have it, if the service would serve it so. Call inside a
    transaction."""
    service = request.app[SERVICE]
    for hook in request.app[WRITE_HOOKS]:
        changed = hook(request, body, resource)
        if changed is None:
            return
        resource = changed
    _check(service, resource, resource["resourceType"], RESOURCE)
    service.save(resource, operation)


def _store_update(request: web.Request, body: dict[str, Any], resource: dict[str, Any]) -> None:
    with request.app[SERVICE].store.transaction():
        _store(request, body, resource, "updated")


def _with_coding(concepts: list[Any], system: str, code: str) -> list[Any]:
    present = any(
        isinstance(c, dict) and any(x.get("system") == system and x.get("code") == code for x in c.get("coding", []))
        for c in concepts
    )
    return concepts if present else [*concepts, {"coding": [{"system": system, "code": code}]}]


def rejections_answered(method):  # a small decorator: a Rejected write becomes its Problem Details answer
    @functools.wraps(method)  # __wrapped__ too: `eris requirements --trace` finds the handler's own source
    async def handle(request: web.Request) -> web.Response:
        try:
            return await method(request, request.app[SERVICE])
        except Rejected as rejected:
            return rejected.response

    return handle


@rejections_answered
async def create_party(request: web.Request, service: Service) -> web.Response:
    """POST /v1/parties: a new Contractor; the service assigns id, number and the identifier value."""
    body = await json_body(request)
    body = _check(service, body, "Party", WRITE)
    contractor = service.contract.profiles["Contractor"]
    party = {key: value for key, value in body.items() if key not in ("id", "number")}
    party["resourceType"] = "Party"
    party["id"] = str(uuid.uuid4())
    meta = dict(party.get("meta") or {})
    meta["profile"] = list(dict.fromkeys([*meta.get("profile", []), contractor.url]))
    party["meta"] = meta
    system, code = contractor.category_codings[0]
    party["category"] = _with_coding(list(party.get("category", [])), system, code)
    if not party.get("owner"):  # PATCH addresses a party by its owner: one without could never be changed
        party["owner"] = _own_organization(service)
    with service.store.transaction():
        _assign_identifier(service, party, contractor.identifier_namespaces)
        party["number"] = f"K/{service.store.next_number('party-number', 1000)}"
        _store(request, body, party, "created")
    return web.json_response(party)


def _own_organization(service: Service) -> list[dict[str, Any]]:
    """The owner of the installation's own parties: the Employer, referenced by its NIP as the seed's are. None
    (an empty list) when the store holds no Employer with a NIP."""
    employer = service.contract.profiles["Employer"].url
    nip = service.contract.installation.values["nip_system"]
    for party in service.store.search("Party", service.queries.conditions("Party", {"profile": [employer]}), count=5):
        for identifier in party.get("identifier") or []:
            if isinstance(identifier, dict) and identifier.get("system") == nip and identifier.get("value"):
                reference = {"type": "Party", "identifier": {"system": nip, "value": identifier["value"]}}
                name = party.get("name") if isinstance(party.get("name"), dict) else {}
                displays = [c.get("display") for c in name.get("coding") or [] if isinstance(c, dict)]
                display = next((d for d in [*displays, name.get("text")] if isinstance(d, str)), None)
                return [{**reference, "display": display} if display else reference]
    return []


@rejections_answered
async def update_party(request: web.Request, service: Service) -> web.Response:
    """PATCH /v1/parties?identifier=&owner=: the elements of the body replace those of the party."""
    if (missing := missing_required(request, service)) is not None:
        return missing
    body = await json_body(request)
    body = _check(service, body, "Party", WRITE)
    query = {name: values for name, values in query_lists(request).items() if name in ("identifier", "owner")}
    party = updated_party(service, _one(service, "Party", query), body)
    _store_update(request, body, party)
    return web.json_response(party)


def updated_party(service: Service, stored: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """What a PATCH makes of the `stored` party: the elements of `body` replace its own, but id, number and the
    identifiers it has (a body's identifier in a namespace the party has none in is added)."""
    keep = {"id", "resourceType", "number", "identifier"}
    party = {**stored, **{key: value for key, value in body.items() if key not in keep}}
    # a body may claim the Contractor by meta.profile and replace the category: the party keeps its party-kind
    system, code = service.contract.profiles["Contractor"].category_codings[0]
    party["category"] = _with_coding(list(party.get("category", [])), system, code)
    known_systems = {i.get("system") for i in stored.get("identifier", [])}
    party["identifier"] = [
        *stored.get("identifier", []),
        *(i for i in body.get("identifier", []) if isinstance(i, dict) and i.get("system") not in known_systems),
    ]
    return party


@rejections_answered
async def create_fixed_asset_document(request: web.Request, service: Service) -> web.Response:
    """POST /v1/fixed-asset-documents: writes the scan and workflow status of a document; a document
    not yet known (no identifier value of an existing one) is registered as new, status open."""
    body = await json_body(request)
    body = _check(service, body, "FixedAssetDocument", WRITE)
    known = [
        f"{i['system']}|{i['value']}"
        for i in body.get("identifier", [])
        if isinstance(i, dict) and i.get("system") and i.get("value")
    ]
    existing = (
        service.store.search(
            "FixedAssetDocument", service.queries.conditions("FixedAssetDocument", {"identifier": known[:1]}), count=1
        )
        if known
        else []
    )
    with service.store.transaction():
        if existing:
            document = {**existing[0], "attachment": body.get("attachment", existing[0].get("attachment", []))}
            operation = "updated"
        else:
            document = {key: value for key, value in body.items() if key != "id"}
            document.update(resourceType="FixedAssetDocument", id=str(uuid.uuid4()))
            _assign_identifier(service, document, ("fixed-asset-document",))
            vocabulary = f"{service.contract.installation.values['vocab_url']}/fixed-asset-document-status"
            document["status"] = {"coding": [{"system": vocabulary, "code": "open"}]}  # status is read-only
            operation = "created"
        _store(request, body, document, operation)
    return web.json_response(document)


@rejections_answered
async def update_fixed_asset_document(request: web.Request, service: Service) -> web.Response:
    """PATCH /v1/fixed-asset-documents?identifier=: only attachment[].attribute[] workflow data change
    (workflow-status, workflow-link, workflow-system); every other element of the body is ignored."""
    if (missing := missing_required(request, service)) is not None:
        return missing
    body = await json_body(request)
    stored = _one(service, "FixedAssetDocument", {"identifier": [request.query["identifier"]]})
    document = json.loads(json.dumps(stored))
    attachments = document.setdefault("attachment", [])
    for index, patch in enumerate(body.get("attachment", []) if isinstance(body.get("attachment"), list) else []):
        workflow = [
            a
            for a in (patch.get("attribute", []) if isinstance(patch, dict) else [])
            if isinstance(a, dict) and a.get("code") in WORKFLOW_CODES and "value" in a
        ]
        if not workflow:
            continue
        while len(attachments) <= index:
            attachments.append({})
        target = attachments[index]
        changed = {a["code"] for a in workflow}
        target["attribute"] = [a for a in target.get("attribute", []) if a.get("code") not in changed] + workflow
    _store_update(request, body, document)
    return web.json_response(document)


@rejections_answered
async def create_document_reference(request: web.Request, service: Service) -> web.Response:
    """POST /v1/document-references: an HrInboxDocument for the HR inbox. The source system (here
    simulated) rejects with 422 a document without an attachment holding data."""
    body = await json_body(request)
    body = _check(service, body, "DocumentReference", WRITE)
    hr_inbox = service.contract.profiles["HrInboxDocument"]
    if hr_inbox not in service.validator.recognised_profiles(body, "DocumentReference"):
        return problem(422, "POST /v1/document-references takes an HrInboxDocument")
    if not any(isinstance(a, dict) and a.get("data") for a in body.get("attachment", [])):
        return problem(422, "the HR inbox rejected the document: it has no attachment with data")
    document = {key: value for key, value in body.items() if key != "id"}
    document.update(resourceType="DocumentReference", id=str(uuid.uuid4()))
    system, code = hr_inbox.category_codings[0]
    document["category"] = _with_coding(list(document.get("category", [])), system, code)
    with service.store.transaction():
        _assign_identifier(service, document, ("document-reference",))
        _store(request, body, document, "created")
    identifier = document["identifier"][0]
    return web.json_response({"message": f"document {identifier['system']}|{identifier['value']} registered"})


@rejections_answered
async def update_document_reference(request: web.Request, service: Service) -> web.Response:
    """PATCH /v1/document-references: a WarehouseDocument's status and type change."""
    body = await json_body(request)
    body = _check(service, body, "DocumentReference", WRITE)
    warehouse = service.contract.profiles["WarehouseDocument"]
    if warehouse not in service.validator.recognised_profiles(body, "DocumentReference"):
        return problem(422, "PATCH /v1/document-references takes a WarehouseDocument")
    identifier = next(
        (i for i in body["identifier"] if isinstance(i, dict) and i.get("system") and i.get("value")), None
    )
    if identifier is None:
        return problem(422, "the body needs an identifier with system and value: the document to change")
    stored = _one(service, "DocumentReference", {"identifier": [f"{identifier['system']}|{identifier['value']}"]})
    document = {**stored, "status": body["status"], "type": body["type"]}
    _store_update(request, body, document)
    return web.json_response({"items": [document]})
