"""Faults of list reads: the envelope, paging, filters and the vocabularies of coded filters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    is_read,
    make_optional,
    on_startup,
    path_is,
    rewrite_json_answer,
    rewrite_query,
)
from reference_impl.search import FilterError, QueryBuilder
from reference_impl.state import SERVICE
from reference_impl.store import Condition

Query = Mapping[str, list[str]]
Conditions = Callable[[str, Query], list[Condition]]
ConditionsChange = Callable[[Conditions, str, Query], list[Condition]]
"""change(the service's own conditions, resource type, query) -> the conditions the read then uses."""

NOTHING = Condition("0 = 1")


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
        service.identifier_reads = None  # it reads the store past `queries`: the change must see every read

    on_startup(app, replace)


_IN_LIST_READ: ContextVar[bool] = ContextVar("eris_in_list_read", default=False)


def ignore_filter(
    app: web.Application, resource_type: str, parameter: str, ignored: Callable[[str], bool] = lambda value: True
) -> None:
    """Values of `parameter` for which `ignored` holds are still checked (a bad one is a 400, a required
    parameter stays required) but then select nothing: the list read answers as if they were not given. The
    writes and operations that find a resource by the same parameters (PATCH, $document-content) still do."""
    read_filter_as(app, resource_type, parameter, lambda values: [value for value in values if not ignored(value)])


def read_filter_as(
    app: web.Application, resource_type: str, parameter: str, change: Callable[[list[str]], list[str]]
) -> None:
    """The list reads of `resource_type` check the values of `parameter` as sent (a bad one is a 400, a required
    parameter stays required), then select by `change(values)` instead (no value: as if the parameter were not
    given). The writes and operations that find a resource by the same parameters (PATCH, $document-content) do
    not change."""

    async def mark(request: web.Request, handler: Handler) -> web.StreamResponse:
        # a list read, not an operation such as $document-content
        marked = _IN_LIST_READ.set(is_read(request) and "$" not in request.path)
        try:
            return await handler(request)
        finally:
            _IN_LIST_READ.reset(marked)

    def changed(conditions: Conditions, type_: str, query: Query) -> list[Condition]:
        checked = conditions(type_, query)
        if type_ != resource_type or parameter not in query or not _IN_LIST_READ.get():
            return checked
        kept = {name: values for name, values in query.items() if name != parameter}
        if remaining := change(list(query[parameter])):
            kept[parameter] = remaining
        return conditions(type_, kept)

    add_middleware(app, mark)
    _change_conditions(app, changed)


def _all_of(conditions: list[Condition]) -> Condition:
    if not conditions:
        return Condition("1 = 1")
    return Condition(" AND ".join(f"({c.sql})" for c in conditions), tuple(a for c in conditions for a in c.args))


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
    ignore_filter(app, "Party", "status")


@deviation(
    "party-role-filter-ignored",
    "GET /v1/party-roles still demands role, then answers the roles of every role",
    breaks="ERIS-FILTER-007",
)
def party_role_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "PartyRole", "role")


@deviation(
    "party-relationship-type-not-required",
    "GET /v1/party-relationships without type answers every relationship instead of refusing",
    breaks="ERIS-FILTER-008",
)
def party_relationship_type_not_required(app: web.Application, settings: Any) -> None:
    make_optional(app, "GET", "/v1/party-relationships", "type")


@deviation(
    "grant-assigned-to-filter-ignored",
    "GET /v1/grant-assignments?assignedTo=... answers the assignments of every holder",
    breaks="ERIS-ACCESS-005",
)
def grant_assigned_to_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "GrantAssignment", "assignedTo")


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
    ignore_filter(app, "Capability", "identifier")


@deviation(
    "usage-place-profile-filter-ignored",
    "GET /v1/locations?profile=<UsagePlace> answers every location; the other profiles still filter",
    breaks="ERIS-ASSET-009",
)
def usage_place_profile_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "Location", "profile", lambda url: url.endswith("/StructureDefinition/UsagePlace"))


@deviation(
    "location-category-filter-ignored",
    "GET /v1/locations?category=... answers locations of every category",
    breaks="ERIS-LOC-002",
)
def location_category_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "Location", "category")


@deviation(
    "allocation-category-filter-ignored",
    "GET /v1/fixed-asset-allocations still demands category, then answers allocations of every category",
    breaks="ERIS-ASSET-007",
)
def allocation_category_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "FixedAssetAllocation", "category")


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
        remaining: dict[str, list[str]] = dict(query)
        found: list[Condition] = []
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
