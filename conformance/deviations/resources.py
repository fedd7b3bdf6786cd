"""Faults of what reads serve: value sets, routes and methods, $document-content, the items themselves."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    Matches,
    add_middleware,
    path_is,
    rewrite_json_answer,
    rewrite_query,
)
from conformance.deviations.reads import ignore_filter
from reference_impl.problems import problem
from reference_impl.reads import envelope
from reference_impl.search import FilterError
from reference_impl.state import SERVICE
from reference_impl.store import Condition

VALUE_SETS = "/v1/value-sets"
DOCUMENT_CONTENT = "/v1/fixed-asset-documents/$document-content"


def _replace_answer(
    app: web.Application, matches: Matches, change: Callable[[web.Request, web.Response], Awaitable[web.Response]]
) -> None:
    """Answers to matching requests are what `change(request, answer)` makes of the service's answer."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        if matches(request) and isinstance(response, web.Response):
            return await change(request, response)
        return response

    add_middleware(app, middleware)


def _is_value_set_read(request: web.Request) -> bool:
    return path_is("GET", VALUE_SETS)(request) and bool(request.query.get("url") or request.query.get("system"))


def _is_value_set_listing(request: web.Request) -> bool:
    return path_is("GET", VALUE_SETS)(request) and not _is_value_set_read(request)


def _implementation_defined(request: web.Request) -> set[str]:
    return {p.canonical_url for p in request.app[SERVICE].contract.profiles_of("ValueSet") if p.canonical_url}


def _version_implementation_defined_sets(body: Any, request: web.Request, status: int) -> Any:
    """An implementation-defined set gets the version a shared set of the terminology package would have."""
    if status == 200 and isinstance(body, dict):
        defined = _implementation_defined(request)
        for item in body.get("items", []):
            if item.get("url") in defined:
                item["version"] = "1.0.0"
    return body


# -- value sets -------------------------------------------------------------------------------------


@deviation(
    "unknown-value-set-empty-envelope",
    "GET /v1/value-sets?url=<a set not available> answers 200 with an empty envelope, not 404",
    breaks="ERIS-ERR-103",
)
def unknown_value_set_empty_envelope(app: web.Application, settings: Any) -> None:
    async def empty_instead_of_404(request: web.Request, response: web.Response) -> web.Response:
        return envelope([]) if response.status == 404 else response

    _replace_answer(app, _is_value_set_read, empty_instead_of_404)


@deviation(
    "value-set-system-alias-ignored",
    "GET /v1/value-sets?system=<url> answers the listing, as if no set were asked for",
    breaks="ERIS-VS-004",
)
def value_set_system_alias_ignored(app: web.Application, settings: Any) -> None:
    def without_system(query: MultiDict[str]) -> MultiDict[str]:
        query.popall("system", None)
        return query

    rewrite_query(app, path_is("GET", VALUE_SETS), without_system)


@deviation(
    "implementation-defined-value-sets-listed-with-version",
    "the value-set listing gives implementation-defined sets version 1.0.0 (served by url, they say null)",
    breaks="ERIS-VS-003",
)
def implementation_defined_value_sets_listed_with_version(app: web.Application, settings: Any) -> None:
    rewrite_json_answer(app, _is_value_set_listing, _version_implementation_defined_sets)


@deviation(
    "implementation-defined-value-set-served-with-version",
    "GET /v1/value-sets?url=<implementation-defined set> serves it with version 1.0.0 (the listing says null)",
    breaks="ERIS-VS-002",
)
def implementation_defined_value_set_served_with_version(app: web.Application, settings: Any) -> None:
    rewrite_json_answer(app, _is_value_set_read, _version_implementation_defined_sets)


@deviation(
    "value-set-id-filter-ignored",
    "GET /v1/value-sets?url=...&id=... answers the set whatever id says",
    breaks="ERIS-VS-005",
)
def value_set_id_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "ValueSet", "id")


# -- routes and writes ------------------------------------------------------------------------------


@deviation("party-served-by-id", "GET /v1/parties/{id} answers 200 with the party of that id", breaks="ERIS-ROUTE-001")
def party_served_by_id(app: web.Application, settings: Any) -> None:
    async def party_by_id(request: web.Request) -> web.Response:
        store = request.app[SERVICE].store
        found = store.search("Party", [Condition("r.id = ?", (request.match_info["id"],))], count=1)
        if not found:
            return problem(404, f"no party {request.match_info['id']}")
        return web.json_response(found[0])

    app.router.add_get("/v1/parties/{id}", party_by_id)


@deviation(
    "delete-of-parties-accepted",
    "DELETE /v1/parties answers 204 (and deletes nothing)",
    breaks="ERIS-ROUTE-002",
)
def delete_of_parties_accepted(app: web.Application, settings: Any) -> None:
    async def no_content(request: web.Request) -> web.Response:
        return web.Response(status=204)

    app.router.add_delete("/v1/parties", no_content)


@deviation(
    "locations-accept-post",
    "POST /v1/locations answers 200 with the location sent (and stores nothing)",
    breaks="ERIS-ACCESS-007",
)
def locations_accept_post(app: web.Application, settings: Any) -> None:
    async def accepted(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        return web.json_response({**(body if isinstance(body, dict) else {}), "id": "posted-location"})

    app.router.add_post("/v1/locations", accepted)


# -- $document-content ------------------------------------------------------------------------------


@deviation(
    "document-content-of-a-document-without-content",
    "$document-content of a document without content answers 200 with the document and no attachment, not 404",
    breaks="ERIS-ERR-201",
)
def document_content_of_a_document_without_content(app: web.Application, settings: Any) -> None:
    async def the_document_instead_of_404(request: web.Request, response: web.Response) -> web.Response:
        if response.status != 404:
            return response
        service = request.app[SERVICE]
        try:
            conditions = service.queries.conditions("FixedAssetDocument", {"identifier": [request.query["identifier"]]})
        except (FilterError, KeyError):
            return response
        found = service.store.search("FixedAssetDocument", conditions, count=1)
        if not found:
            return response
        return web.json_response({key: value for key, value in found[0].items() if key != "attachment"})

    _replace_answer(app, path_is("GET", DOCUMENT_CONTENT), the_document_instead_of_404)


@deviation(
    "document-content-blob-with-two-attachments",
    "$document-content with format=blob answers the binary content plus a second, text attachment",
    breaks="ERIS-ASSET-011",
)
def document_content_blob_with_two_attachments(app: web.Application, settings: Any) -> None:
    def add_a_text_rendering(body: Any, request: web.Request, status: int) -> Any:
        if request.query.get("format") != "blob":
            return body
        if status == 200 and isinstance(body, dict) and isinstance(body.get("attachment"), list):
            text = base64.b64encode(b"scanned document").decode()
            body["attachment"].append({"contentType": "text/plain", "data": text})
        return body

    rewrite_json_answer(app, path_is("GET", DOCUMENT_CONTENT), add_a_text_rendering)


# -- served items -----------------------------------------------------------------------------------


@deviation(
    "capabilities-without-resourceType",
    "the items of GET /v1/capabilities have no resourceType",
    breaks="ERIS-BASE-001",
)
def capabilities_without_resource_type(app: web.Application, settings: Any) -> None:
    def strip(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict):
            for item in body.get("items", []):
                if isinstance(item, dict):
                    item.pop("resourceType", None)
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/capabilities"), strip)


@deviation(
    "former-employees-served-as-dormant",
    "GET /v1/parties serves inactive Employees with status code 'dormant' of party-status, a code outside the set",
    breaks="ERIS-PARTY-003",
)
def former_employees_served_as_dormant(app: web.Application, settings: Any) -> None:
    """The code of an older HR terminology: the system is still party-status, so only the binding shows it."""

    def dormant(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict):
            for party in body.get("items", []):
                if not isinstance(party, dict) or not any(
                    str(url).endswith("/StructureDefinition/Employee")
                    for url in party.get("meta", {}).get("profile", [])
                ):
                    continue
                for coding in party.get("status", {}).get("coding", []):
                    if str(coding.get("system", "")).endswith("/party-status") and coding.get("code") == "inactive":
                        coding["code"] = "dormant"
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/parties"), dormant)
