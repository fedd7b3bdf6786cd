"""Faults of what the contract fixes about reads beyond filtering: the default profile set and offset, the
vocabularies a coded filter accepts, the profile and identifier filter forms, the naming systems, the version
prefix, the payload format, the absence of a notification collection and of writes on read-only records."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    answer_instead,
    is_read,
    json_of,
    path_is,
    rewrite_json_answer,
    rewrite_query,
)
from reference_impl.problems import problem
from reference_impl.reads import envelope, list_resources
from reference_impl.state import SERVICE

PARTIES = "/v1/parties"
DOCUMENTS = "/v1/document-references"


def _vocab(request: web.Request) -> str:
    return str(request.app[SERVICE].contract.installation.values["vocab_url"])


def _refuse_values(app: web.Application, path: str, parameter: str, refused: Any) -> None:
    """GET `path` with a value of `parameter` for which `refused(value, request)` holds answers 400 naming it."""

    async def answer(request: web.Request) -> web.Response:
        return problem(400, f"{parameter}: unsupported value {request.query.get(parameter)!r}", parameter=parameter)

    def matches(request: web.Request) -> bool:
        return path_is("GET", path)(request) and any(refused(v, request) for v in request.query.getall(parameter, []))

    answer_instead(app, matches, answer)


@deviation(
    "parties-default-to-contractors",
    "GET /v1/parties without profile answers Contractors only (the contract: without profile, all supported profiles)",
    breaks="ERIS-READ-003",
)
def parties_default_to_contractors(app: web.Application, settings: Any) -> None:
    def contractors(request: web.Request) -> str:
        return next(p.url for p in request.app[SERVICE].contract.profiles_of("Party") if p.name == "Contractor")

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if path_is("GET", PARTIES)(request) and "profile" not in request.query and "identifier" not in request.query:
            query = MultiDict(request.query)
            query["profile"] = contractors(request)
            request = request.clone(rel_url=request.rel_url.with_query(query))
        return await handler(request)

    add_middleware(app, middleware)


@deviation(
    "offset-defaults-to-1",
    "a list read without offset starts at the second item (offset counted from 1, not 0)",
    breaks="ERIS-LIMIT-002",
)
def offset_defaults_to_1(app: web.Application, settings: Any) -> None:
    def one_based(query: MultiDict[str]) -> MultiDict[str]:
        query.setdefault("offset", "1")
        return query

    rewrite_query(app, is_read, one_based)


@deviation(
    "party-type-hr-refused",
    "GET /v1/parties?type=<party-type>|hr answers 400: the filter takes the codes assets and finance only",
    breaks="ERIS-FILTER-001",
)
def party_type_hr_refused(app: web.Application, settings: Any) -> None:
    _refuse_values(app, PARTIES, "type", lambda value, request: value.endswith("|hr"))


@deviation(
    "document-status-vocabulary-refused",
    "GET /v1/document-references?type=<warehouse/document-status>|... answers 400: of the four declared "
    "vocabularies, warehouse/document-status is refused",
    breaks="ERIS-FILTER-002",
)
def document_status_vocabulary_refused(app: web.Application, settings: Any) -> None:
    def refused(value: str, request: web.Request) -> bool:
        return value.startswith(f"{_vocab(request)}/warehouse/document-status|")

    _refuse_values(app, DOCUMENTS, "type", refused)


@deviation(
    "profile-filter-by-name",
    "the profile filter takes the profile's name (Contractor); the profile URL the contract gives as its value "
    "selects nothing",
    breaks="ERIS-FILTER-006",
)
def profile_filter_by_name(app: web.Application, settings: Any) -> None:
    def by_name(query: MultiDict[str]) -> MultiDict[str]:
        if "profile" in query:
            query["profile"] = ",".join(
                value if "://" not in value else "urn:eris:no-such-profile" for value in query.getall("profile")
            )
        return query

    rewrite_query(app, lambda request: is_read(request) and request.path != "/v1/value-sets", by_name)


@deviation(
    "naming-systems-without-reference-key",
    "the naming systems are served without saying whether each namespace is a reference key",
    breaks="ERIS-NS-001",
)
def naming_systems_without_reference_key(app: web.Application, settings: Any) -> None:
    def strip(body: Any, request: web.Request, status: int) -> Any:
        for item in body.get("items") or [] if isinstance(body, dict) else []:
            if isinstance(item, dict):
                item.pop("referenceKey", None)
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/naming-systems"), strip)


@deviation(
    "grant-basedon-refused",
    "GET /v1/grant-assignments with basedOn answers 400 (an unknown parameter), though the contract lists it",
    breaks="ERIS-ACCESS-004",
)
def grant_basedon_refused(app: web.Application, settings: Any) -> None:
    _refuse_values(app, "/v1/grant-assignments", "basedOn", lambda value, request: True)


@deviation(
    "asset-components-writable",
    "POST and PATCH /v1/asset-components answer 200 with the body sent (the records are read-only)",
    breaks="ERIS-ASSET-004",
)
def asset_components_writable(app: web.Application, settings: Any) -> None:
    async def accepted(request: web.Request) -> web.Response:
        body = await json_of(request)
        return web.json_response(body if body is not None else {})

    answer_instead(app, lambda r: r.path == "/v1/asset-components" and r.method in ("POST", "PATCH"), accepted)


@deviation(
    "asset-document-owner-refused",
    "GET /v1/fixed-asset-documents with owner answers 400 (an unknown parameter), though the contract lists it",
    breaks="ERIS-ASSET-010",
)
def asset_document_owner_refused(app: web.Application, settings: Any) -> None:
    _refuse_values(app, "/v1/fixed-asset-documents", "owner", lambda value, request: True)


@deviation(
    "document-participant-refused",
    "GET /v1/document-references with participant answers 400 (an unknown parameter), though the contract lists it",
    breaks="ERIS-DOC-004",
)
def document_participant_refused(app: web.Application, settings: Any) -> None:
    _refuse_values(app, DOCUMENTS, "participant", lambda value, request: True)


@deviation(
    "contractor-namespace-unpublished",
    "GET /v1/naming-systems leaves out the contractor register's namespace, though parties are identified in it",
    breaks="ERIS-PARTY-007",
)
def contractor_namespace_unpublished(app: web.Application, settings: Any) -> None:
    def leave_out(body: Any, request: web.Request, status: int) -> Any:
        if isinstance(body, dict) and isinstance(body.get("items"), list):
            register = request.app[SERVICE].contract.installation_namespace_key("contractor")
            body["items"] = [i for i in body["items"] if not (isinstance(i, dict) and i.get("system") == register)]
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/naming-systems"), leave_out)


@deviation(
    "regon-not-a-reference-key",
    "a party is not found by its REGON (identifier=<regon_system>|...): only NIP and the installation "
    "namespaces resolve",
    breaks="ERIS-PARTY-010",
)
def regon_not_a_reference_key(app: web.Application, settings: Any) -> None:
    def by_regon(request: web.Request) -> bool:
        regon = request.app[SERVICE].contract.installation.values["regon_system"]
        return path_is("GET", PARTIES)(request) and any(
            v.startswith(f"{regon}|") for v in request.query.getall("identifier", [])
        )

    async def nothing(request: web.Request) -> web.Response:
        return envelope([])

    answer_instead(app, by_regon, nothing)


@deviation(
    "identifier-filter-takes-the-value-only",
    "the identifier filter of GET /v1/parties matches the bare id only: system|value (the contract's form) "
    "finds nothing in an installation namespace",
    breaks="ERIS-PARTY-011",
)
def identifier_filter_takes_the_value_only(app: web.Application, settings: Any) -> None:
    def installation_form(request: web.Request) -> bool:
        return path_is("GET", PARTIES)(request) and any(
            v.startswith("urn:oid:1.2.616.1.113769.4.") for v in request.query.getall("identifier", [])
        )

    async def nothing(request: web.Request) -> web.Response:
        return envelope([])

    answer_instead(app, installation_form, nothing)


@deviation(
    "notifications-listed",
    "GET /v1/notifications answers 200 with an envelope of the notifications sent (the contract: no GET "
    "collection of notifications)",
    breaks="ERIS-EVT-002",
)
def notifications_listed(app: web.Application, settings: Any) -> None:
    async def listing(request: web.Request) -> web.Response:
        return envelope([])

    answer_instead(app, path_is("GET", "/v1/notifications"), listing)


@deviation(
    "capabilities-without-version-prefix",
    "capabilities are served at /capabilities; GET /v1/capabilities answers 404",
    breaks="ERIS-VER-001",
)
def capabilities_without_version_prefix(app: web.Application, settings: Any) -> None:
    async def moved(request: web.Request) -> web.Response:
        return problem(404, "no such route: capabilities are served at /capabilities")

    async def unprefixed(request: web.Request) -> web.Response:
        return await list_resources(request.clone(rel_url=request.rel_url.with_path("/v1/capabilities")))

    answer_instead(app, path_is("GET", "/v1/capabilities"), moved)
    answer_instead(app, path_is("GET", "/capabilities"), unprefixed)


@deviation(
    "shared-value-sets-listed-without-version",
    "the value-set listing gives every set version null, the shared terminology sets too (they have a version)",
    breaks="ERIS-VER-002",
)
def shared_value_sets_listed_without_version(app: web.Application, settings: Any) -> None:
    def no_versions(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and not request.query.get("url") and not request.query.get("system"):
            for item in body.get("items") or [] if isinstance(body, dict) else []:
                if isinstance(item, dict):
                    item["version"] = None
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/value-sets"), no_versions)


@deviation(
    "reads-behind-an-xssi-prefix",
    "the answers of GET /v1/cost-centers start with the anti-XSSI prefix )]}', before the JSON: not a JSON payload",
    breaks="ERIS-GEN-001",
)
def reads_behind_an_xssi_prefix(app: web.Application, settings: Any) -> None:
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        if (
            path_is("GET", "/v1/cost-centers")(request)
            and isinstance(response, web.Response)
            and isinstance(response.body, bytes)
            and response.body
        ):
            return web.Response(
                body=b")]}',\n" + response.body, status=response.status, content_type="application/json"
            )
        return response

    add_middleware(app, middleware)


@deviation(
    "vocabulary-400-names-another-parameter",
    "the 400 of a coded filter in an undeclared vocabulary names the other coded parameter (type for status, "
    "status for type), though its text speaks of the resource type",
    breaks="ERIS-ERR-101",
)
def vocabulary_400_names_another_parameter(app: web.Application, settings: Any) -> None:
    def swapped(body: Any, request: web.Request, status: int) -> Any:
        if status != 400 or not isinstance(body, dict) or body.get("parameter") not in ("type", "status"):
            return body
        if "vocabulary" not in str(body.get("detail")):
            return body  # a missing required type, say
        other = "status" if body["parameter"] == "type" else "type"
        return body | {"parameter": other, "detail": f"{other}: vocabulary not declared for this resource type"}

    rewrite_json_answer(app, is_read, swapped)
