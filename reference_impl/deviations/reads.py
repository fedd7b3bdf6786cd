"""Faults of reads: the envelope, paging, filters, terminology, routes."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from multidict import MultiDict

from reference_impl.deviations import deviation
from reference_impl.deviations._tools import (
    Handler,
    Matches,
    add_middleware,
    answer_instead,
    is_read,
    on_startup,
    path_is,
    rewrite_json_answer,
    rewrite_query,
)
from reference_impl.problems import problem
from reference_impl.reads import envelope, paging, query_lists
from reference_impl.search import FilterError, QueryBuilder
from reference_impl.state import SERVICE
from reference_impl.store import Condition

Query = Mapping[str, list[str]]
Conditions = Callable[[str, Query], list[Condition]]
ConditionsChange = Callable[[Conditions, str, Query], list[Condition]]
"""change(the service's own conditions, resource type, query) -> the conditions the read then uses."""

NOTHING = Condition("0 = 1")
VALUE_SETS = "/v1/value-sets"
DOCUMENT_CONTENT = "/v1/fixed-asset-documents/$document-content"


# -- how these faults are made ----------------------------------------------------------------------


class _ChangedQueries(QueryBuilder):
    """The service's query builder, with what `conditions` answers changed (faults that do so stack)."""

    def __init__(self, original: QueryBuilder, change: ConditionsChange) -> None:
        super().__init__(original.contract, original.store)
        self._original = original
        self._change = change

    def conditions(self, resource_type: str, query: Query) -> list[Condition]:
        return self._change(self._original.conditions, resource_type, query)


def _change_conditions(app: web.Application, change: ConditionsChange) -> None:
    def replace(app: web.Application) -> None:
        service = app[SERVICE]
        service.queries = _ChangedQueries(service.queries, change)

    on_startup(app, replace)


def _ignore_filter(
    app: web.Application, resource_type: str, parameter: str, ignored: Callable[[str], bool] = lambda value: True
) -> None:
    """Values of `parameter` for which `ignored` holds are still checked (a bad one is a 400, a required
    parameter stays required) but then select nothing: the read answers as if they were not given."""

    def change(conditions: Conditions, type_: str, query: Query) -> list[Condition]:
        checked = conditions(type_, query)
        if type_ != resource_type or parameter not in query:
            return checked
        kept = {name: values for name, values in query.items() if name != parameter}
        if remaining := [value for value in query[parameter] if not ignored(value)]:
            kept[parameter] = remaining
        return conditions(type_, kept)

    _change_conditions(app, change)


def _all_of(conditions: list[Condition]) -> Condition:
    if not conditions:
        return Condition("1 = 1")
    return Condition(" AND ".join(f"({c.sql})" for c in conditions), tuple(a for c in conditions for a in c.args))


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


# -- paging -----------------------------------------------------------------------------------------


@deviation("envelope-without-nextToken", "list reads answer {items} without nextToken", breaks="ERIS-READ-001")
def envelope_without_next_token(app: web.Application, settings: Any) -> None:
    def drop(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and "items" in body:
            body.pop("nextToken", None)
        return body

    rewrite_json_answer(app, is_read, drop)


@deviation("default-count-not-20", "list reads without count answer 10 items at most", breaks="ERIS-LIMIT-001")
def default_count_not_20(app: web.Application, settings: Any) -> None:
    def ten_by_default(query: MultiDict[str]) -> MultiDict[str]:
        if "count" not in query:
            query["count"] = "10"
        return query

    rewrite_query(app, is_read, ten_by_default)


@deviation("count-ignored", "list reads answer a page of the default 20 whatever count asks", breaks="ERIS-READ-002")
def count_ignored(app: web.Application, settings: Any) -> None:
    def without_count(query: MultiDict[str]) -> MultiDict[str]:
        query.popall("count", None)
        return query

    rewrite_query(app, is_read, without_count)


@deviation(
    "offset-ignored-on-cost-centers",
    "GET /v1/cost-centers answers the first page whatever offset asks",
    breaks="ERIS-READ-002",
)
def offset_ignored_on_cost_centers(app: web.Application, settings: Any) -> None:
    """On a list shorter than a page only: a client reading everything still gets it in one page."""

    def without_offset(query: MultiDict[str]) -> MultiDict[str]:
        query.popall("offset", None)
        return query

    rewrite_query(app, path_is("GET", "/v1/cost-centers"), without_offset)


# -- filters ----------------------------------------------------------------------------------------


@deviation(
    "party-status-filter-ignored",
    "GET /v1/parties?status=... answers parties of every status",
    breaks="ERIS-FILTER-005",
)
def party_status_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "Party", "status")


@deviation(
    "party-role-filter-ignored",
    "GET /v1/party-roles still demands role, then answers the roles of every role",
    breaks="ERIS-FILTER-007",
)
def party_role_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "PartyRole", "role")


@deviation(
    "party-relationship-type-not-required",
    "GET /v1/party-relationships without type answers every relationship instead of refusing",
    breaks="ERIS-FILTER-008",
)
def party_relationship_type_not_required(app: web.Application, settings: Any) -> None:
    path = "/v1/party-relationships"

    def without_type(request: web.Request) -> bool:
        return path_is("GET", path)(request) and not request.query.get("type")

    async def every_relationship(request: web.Request) -> web.Response:
        service = request.app[SERVICE]
        try:
            count, offset = paging(request)
            conditions = service.queries.conditions("PartyRelationship", query_lists(request))
        except FilterError as error:
            return problem(400, str(error), parameter=error.parameter)
        return envelope(service.store.search("PartyRelationship", conditions, count=count, offset=offset))

    answer_instead(app, without_type, every_relationship)


@deviation(
    "grant-assigned-to-filter-ignored",
    "GET /v1/grant-assignments?assignedTo=... answers the assignments of every holder",
    breaks="ERIS-ACCESS-005",
)
def grant_assigned_to_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "GrantAssignment", "assignedTo")


@deviation(
    "grant-scope-or-granted",
    "GET /v1/grant-assignments?scope=...&granted=... answers assignments matching either, not both",
    breaks="ERIS-ACCESS-006",
)
def grant_scope_or_granted(app: web.Application, settings: Any) -> None:
    def either(conditions: Conditions, type_: str, query: Query) -> list[Condition]:
        if type_ != "GrantAssignment" or not ("scope" in query and "granted" in query):
            return conditions(type_, query)
        by_scope = _all_of(conditions(type_, {k: v for k, v in query.items() if k != "granted"}))
        by_granted = _all_of(conditions(type_, {k: v for k, v in query.items() if k != "scope"}))
        return [Condition(f"(({by_scope.sql}) OR ({by_granted.sql}))", by_scope.args + by_granted.args)]

    _change_conditions(app, either)


@deviation(
    "capability-identifier-filter-ignored",
    "GET /v1/capabilities?identifier=... answers every capability",
    breaks="ERIS-ACCESS-003",
)
def capability_identifier_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "Capability", "identifier")


@deviation(
    "usage-place-profile-filter-ignored",
    "GET /v1/locations?profile=<UsagePlace> answers every location; the other profiles still filter",
    breaks="ERIS-ASSET-009",
)
def usage_place_profile_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "Location", "profile", lambda url: url.endswith("/StructureDefinition/UsagePlace"))


@deviation(
    "location-category-filter-ignored",
    "GET /v1/locations?category=... answers locations of every category",
    breaks="ERIS-LOC-002",
)
def location_category_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "Location", "category")


@deviation(
    "allocation-category-filter-ignored",
    "GET /v1/fixed-asset-allocations still demands category, then answers allocations of every category",
    breaks="ERIS-ASSET-007",
)
def allocation_category_filter_ignored(app: web.Application, settings: Any) -> None:
    _ignore_filter(app, "FixedAssetAllocation", "category")


@deviation(
    "repeated-attribute-first-only",
    "a read with attribute repeated filters by the first attribute only",
    breaks="ERIS-FILTER-004",
)
def repeated_attribute_first_only(app: web.Application, settings: Any) -> None:
    def first_attribute(query: MultiDict[str]) -> MultiDict[str]:
        attributes = query.popall("attribute", [])
        if attributes:
            query.add("attribute", attributes[0])
        return query

    rewrite_query(app, is_read, first_attribute)


# -- coded filters and their vocabularies -----------------------------------------------------------


@deviation(
    "undeclared-vocabulary-accepted",
    "GET /v1/parties with type or status in an undeclared vocabulary answers 200 with no items, not 400",
    breaks="ERIS-FILTER-003",
)
def undeclared_vocabulary_accepted(app: web.Application, settings: Any) -> None:
    def nothing_for_unknown_vocabularies(conditions: Conditions, type_: str, query: Query) -> list[Condition]:
        if type_ != "Party":
            return conditions(type_, query)
        remaining, found = dict(query), []
        while True:
            try:
                return conditions(type_, remaining) + found
            except FilterError as error:
                if error.parameter not in ("type", "status") or error.parameter not in remaining:
                    raise
                del remaining[error.parameter]
                found = [NOTHING]

    _change_conditions(app, nothing_for_unknown_vocabularies)


@deviation(
    "vocabulary-400-without-parameter",
    "the 400 of a coded filter in an undeclared vocabulary does not say which parameter",
    breaks="ERIS-ERR-101",
)
def vocabulary_400_without_parameter(app: web.Application, settings: Any) -> None:
    def anonymous(body: Any, request: web.Request, status: int) -> Any:
        if status != 400 or not isinstance(body, dict) or body.get("parameter") not in ("type", "status"):
            return body
        if "vocabulary" not in str(body.get("detail")):
            return body  # a missing required type, say
        return {
            "type": body.get("type"),
            "title": body.get("title"),
            "status": 400,
            "detail": "a coded filter names a vocabulary that is not declared for this resource",
        }

    rewrite_json_answer(app, is_read, anonymous)


@deviation(
    "finance-document-type-accepted",
    "GET /v1/document-references?type=<finance/document-type>|... answers 200 with no items, not 400",
    breaks="ERIS-ERR-102",
)
def finance_document_type_accepted(app: web.Application, settings: Any) -> None:
    def nothing_for_finance(conditions: Conditions, type_: str, query: Query) -> list[Condition]:
        if type_ != "DocumentReference":
            return conditions(type_, query)
        finance = [v for v in query.get("type", []) if v.partition("|")[0].endswith("/finance/document-type")]
        if not finance:
            return conditions(type_, query)
        others = [v for v in query["type"] if v not in finance]
        kept = {name: values for name, values in query.items() if name != "type"}
        return [*conditions(type_, {**kept, **({"type": others} if others else {})}), NOTHING]

    _change_conditions(app, nothing_for_finance)


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
    _ignore_filter(app, "ValueSet", "id")


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
