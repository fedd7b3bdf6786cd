"""Conformant variants of the open choices an independent implementation makes differently from ours: the
structure of Attribute, the code system of FixedAssetDocument.status, a namespace of its own for a second
inbox, members beyond those the contract names in the 202 of a report order. Each is a reading of the
contract as fair as the reference implementation's; a certification must pass."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    as_object,
    json_of,
    on_startup,
    path_is,
    replace_body,
    resources_in,
    rewrite_json_answer,
)
from reference_impl.problems import problem
from reference_impl.state import SERVICE

ATTRIBUTE_SYSTEM = "urn:example:acme:attribute-type"
ASSET_DOCUMENT_STATUS_SYSTEM = "urn:example:acme:asset-document-status"
DOCUMENTS = "/v1/document-references"
WRITES = ("POST", "PATCH")


def _attribute_lists(resource: dict[str, Any]) -> list[list[Any]]:
    holders = [resource, *(a for a in resource.get("attachment") or [] if isinstance(a, dict))]
    return [h["attribute"] for h in holders if isinstance(h.get("attribute"), list)]


def _is_v1(request: web.Request) -> bool:
    return request.path.startswith("/v1/") and request.path != "/v1/reports"


# -- Attribute: "Structure of ... Attribute: not shown" -----------------------------------------------------


@deviation(
    "attribute-codes-as-codeable-concepts",
    "every attribute code is served as a CodeableConcept of the installation's attribute-type system, and a "
    "write whose attribute code is a bare string is refused with 400 (Attribute's structure is not shown)",
)
def attribute_codes_as_codeable_concepts(app: web.Application, settings: Any) -> None:
    def served(body: Any, request: web.Request, status: int) -> Any:
        for resource in resources_in(body):
            for attributes in _attribute_lists(resource):
                for attribute in attributes:
                    if isinstance(attribute, dict) and isinstance(attribute.get("code"), str):
                        attribute["code"] = {"coding": [{"system": ATTRIBUTE_SYSTEM, "code": attribute["code"]}]}
        return body

    async def written(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method in WRITES and _is_v1(request):
            body = await json_of(request)
            if isinstance(body, dict):
                for attributes in _attribute_lists(body):
                    for position, attribute in enumerate(attributes):
                        code = attribute.get("code") if isinstance(attribute, dict) else None
                        if isinstance(code, str):
                            return problem(400, f"attribute[{position}].code must be a CodeableConcept, not {code!r}")
                        codings = code.get("coding") if isinstance(code, dict) else None
                        if isinstance(codings, list) and codings and isinstance(codings[0], dict):
                            attribute["code"] = codings[0].get("code")
                replace_body(request, body)
        return await handler(request)

    add_middleware(app, written)
    rewrite_json_answer(app, _is_v1, served)


# -- FixedAssetDocument.status: the contract gives the codes, not their system ------------------------------


@deviation(
    "asset-document-status-in-own-system",
    "FixedAssetDocument.status codes open, closed, posted are served in a code system of the installation's "
    "own naming (the contract gives the codes, not their system)",
)
def asset_document_status_in_own_system(app: web.Application, settings: Any) -> None:
    def served(body: Any, request: web.Request, status: int) -> Any:
        for resource in resources_in(body):
            if resource.get("resourceType") == "FixedAssetDocument" and isinstance(resource.get("status"), dict):
                for coding in resource["status"].get("coding") or []:
                    if isinstance(coding, dict):
                        coding["system"] = ASSET_DOCUMENT_STATUS_SYSTEM
        return body

    rewrite_json_answer(app, _is_v1, served)


# -- a second inbox: "The identifier namespace names the inbox that registers the document" -----------------


@deviation(
    "warehouse-documents-in-own-namespace",
    "warehouse documents are registered under a DocumentReference.Id namespace of their own, published as a "
    "second NamingSystem beside the HR inbox's; they are read and changed by it, not by the HR inbox's",
)
def warehouse_documents_in_own_namespace(app: web.Application, settings: Any) -> None:
    def systems(request: web.Request) -> tuple[str, str]:
        return systems_of(request.app[SERVICE].contract)

    def systems_of(own: Any) -> tuple[str, str]:
        inbox = own.namespace_systems("document-reference")[0]
        arcs = inbox.rsplit(".", 1)
        return inbox, f"{arcs[0]}.{max(int(a) for a in own.installation.namespace_keys.values()) + 1}"

    def is_warehouse(resource: dict[str, Any]) -> bool:
        meta = as_object(resource.get("meta"))
        profiled = any(str(url).endswith("/WarehouseDocument") for url in meta.get("profile") or [])
        categories = [c for concept in resource.get("category") or [] for c in concept.get("coding") or []]
        return profiled or any(c.get("code") == "warehouse-document" for c in categories if isinstance(c, dict))

    def served(body: Any, request: web.Request, status: int) -> Any:
        inbox, warehouse = systems(request)
        for resource in resources_in(body):
            if resource.get("resourceType") == "DocumentReference" and is_warehouse(resource):
                for identifier in resource.get("identifier") or []:
                    if isinstance(identifier, dict) and identifier.get("system") == inbox:
                        identifier["system"] = warehouse
        return body

    def publish(app: web.Application) -> None:
        from reference_impl.seed import installation_resources

        service = app[SERVICE]
        inbox, warehouse = systems_of(service.contract)
        template = next(
            r
            for r in installation_resources(service.contract)
            if r.get("resourceType") == "NamingSystem" and r.get("system") == inbox
        )
        service.load(
            [
                template
                | {"id": "ns-warehouse-document", "name": "DocumentReference.Id (warehouse)", "system": warehouse}
            ]
        )

    async def addressed(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path != DOCUMENTS:
            return await handler(request)
        inbox, warehouse = systems(request)
        if request.method == "GET" and any(
            v.startswith(warehouse + "|") for v in request.query.getall("identifier", [])
        ):
            query = MultiDict(
                (k, v.replace(warehouse + "|", inbox + "|", 1) if k == "identifier" else v)
                for k, v in request.query.items()
            )
            request = request.clone(rel_url=request.rel_url.with_query(query))
        elif request.method == "PATCH":
            body = await json_of(request)
            if isinstance(body, dict) and is_warehouse(body):
                named = [i for i in body.get("identifier") or [] if isinstance(i, dict)]
                if any(i.get("system") == inbox for i in named):
                    return problem(404, f"no warehouse document is registered in {inbox} (the HR inbox)")
                for identifier in named:
                    if identifier.get("system") == warehouse:
                        identifier["system"] = inbox
                replace_body(request, body)
        return await handler(request)

    add_middleware(app, addressed)
    rewrite_json_answer(app, lambda r: r.method != "GET" or r.path == DOCUMENTS, served)
    on_startup(app, publish)


# -- the 202 of a report order: "Response fields (202): executionId ... and encryptedSessionKey" ---------------


@deviation(
    "report-accepted-with-more-fields",
    "the 202 of POST /v1/reports also carries status, runAt and a self link beside executionId and "
    "encryptedSessionKey (the contract names those two without forbidding others)",
)
def report_accepted_with_more_fields(app: web.Application, settings: Any) -> None:
    def more(body: Any, request: web.Request, status: int) -> Any:
        if status == 202 and isinstance(body, dict) and "executionId" in body:
            body |= {"status": "accepted", "runAt": "as ordered", "links": {"self": f"/orders/{body['executionId']}"}}
        return body

    rewrite_json_answer(app, path_is("POST", "/v1/reports"), more)
