"""GET handlers: list reads with the envelope, value sets, and $document-content."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from profiles.limits import LIMITS
from reference_impl.envelope import envelope_of, json_answer
from reference_impl.problems import problem
from reference_impl.search import MAX_COUNT, MAX_OFFSET, READ_PATHS, FilterError, page_number
from reference_impl.state import SERVICE, Service
from reference_impl.store import served_json


def envelope(items: list[dict[str, Any]]) -> web.Response:
    return stored_envelope([served_json(item) for item in items])


def stored_envelope(bodies: list[str]) -> web.Response:
    """The envelope of items given as their served JSON text (`Store.search_bodies`)."""
    return json_answer(envelope_of(bodies))


MAX_QUERY_VALUES = 100
"""Query parameters of one request, repeated ones counted each time."""
MAX_VALUES_PER_PARAMETER = 20
"""Values of one repeated parameter (attribute[]): each becomes a condition of the SQL query."""
MAX_VALUE_CHARS = 2048


@web.middleware
async def bounded_query(request: web.Request, handler: Any) -> web.StreamResponse:
    """Query strings bounded before anything reads them: a filter repeated a thousand times would otherwise reach
    SQLite ("Expression tree is too large") as a 500."""
    raw = request.rel_url.raw_query_string
    if len(raw) <= MAX_VALUE_CHARS and raw.count("&") < MAX_VALUES_PER_PARAMETER:
        # within every bound without parsing it: fewer values than any bound counts, none longer than the whole
        # (decoding never lengthens a value); most queries are such, and parsing them here cost a tenth of a read
        return await handler(request)
    values = list(request.query.items())
    counted: dict[str, int] = {}
    for name, value in values:
        counted[name] = counted.get(name, 0) + 1
        if counted[name] > MAX_VALUES_PER_PARAMETER:
            return problem(400, f"{name} is given more than {MAX_VALUES_PER_PARAMETER} times", parameter=name)
        if len(value) > MAX_VALUE_CHARS:
            return problem(400, f"{name} is longer than {MAX_VALUE_CHARS} characters", parameter=name)
    if len(values) > MAX_QUERY_VALUES:
        return problem(400, f"the query has {len(values)} parameters, more than {MAX_QUERY_VALUES}")
    return await handler(request)


def query_lists(request: web.Request) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {}
    for key, value in request.query.items():
        lists.setdefault(key, []).append(value)
    return lists


def missing_required(request: web.Request, service: Service) -> web.Response | None:
    operation = service.operations.get((request.method, request.path))
    missing = [name for name in operation.required if not request.query.get(name)] if operation else []
    if missing:
        return problem(400, f"required query parameter {missing[0]!r} is missing", parameter=missing[0])
    return None


def paging(request: web.Request) -> tuple[int, int]:
    def number(name: str, default: int, limit: int) -> int:
        try:
            return page_number(request.query.get(name), default, limit)
        except ValueError as error:
            raise FilterError(name, str(error)) from None

    return number("count", LIMITS.count_default, MAX_COUNT), number("offset", LIMITS.offset_default, MAX_OFFSET)


async def list_resources(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    if service.identifier_reads is not None:
        answer = service.identifier_reads.answer(request.rel_url)
        if answer is not None:
            return json_answer(answer)
    resource_type = READ_PATHS[request.path]
    if (missing := missing_required(request, service)) is not None:
        return missing
    try:
        count, offset = paging(request)
        conditions = service.queries.conditions(resource_type, query_lists(request))
    except FilterError as error:
        return problem(400, str(error), parameter=error.parameter)
    return stored_envelope(service.store.search_bodies(resource_type, conditions, count=count, offset=offset))


async def value_sets(request: web.Request) -> web.Response:
    """Without url: {url, version} of every set; with url (alias system): the set, or 404."""
    service = request.app[SERVICE]
    url = request.query.get("url") or request.query.get("system")
    implementation_defined = {p.canonical_url for p in service.contract.profiles_of("ValueSet")}
    try:
        count, offset = paging(request)
    except FilterError as error:
        return problem(400, str(error), parameter=error.parameter)
    if url is None:
        summaries = [
            {"url": vs["url"], "version": None if vs["url"] in implementation_defined else vs.get("version")}
            for vs in service.store.search("ValueSet", [], count=count, offset=offset)
        ]
        return envelope(summaries)
    query = {
        name: values for name, values in query_lists(request).items() if name in ("id", "owner", "status", "attribute")
    }
    try:
        conditions = service.queries.conditions("ValueSet", {"url": [url], **query})
    except FilterError as error:
        return problem(400, str(error), parameter=error.parameter)
    found = service.store.search_bodies("ValueSet", conditions, count=count, offset=offset)
    if not found:
        return problem(
            404, f"value set {url} is not available in this installation" + (" with these filters" if query else "")
        )
    return stored_envelope(found)


async def document_content(request: web.Request) -> web.Response:
    """The document with exactly one attachment holding contentType and base64 data; 404 without content."""
    service = request.app[SERVICE]
    if (missing := missing_required(request, service)) is not None:
        return missing
    query = {
        name: values for name, values in query_lists(request).items() if name in ("identifier", "owner", "attribute")
    }
    try:
        conditions = service.queries.conditions("FixedAssetDocument", query)
    except FilterError as error:
        return problem(400, str(error), parameter=error.parameter)
    documents = service.store.search("FixedAssetDocument", conditions, count=1)
    if not documents:
        return problem(404, f"no fixed-asset document {request.query['identifier']}")
    document = documents[0]
    with_content = [
        a for a in document.get("attachment", []) if isinstance(a, dict) and a.get("data") and a.get("contentType")
    ]
    if not with_content:
        return problem(404, f"fixed-asset document {request.query['identifier']} has no content")
    prefer_binary = request.query.get("format") == "blob"
    chosen = sorted(with_content, key=lambda a: prefer_binary and a["contentType"].startswith("text/"))[0]
    attachment = {"contentType": chosen["contentType"], "data": chosen["data"]}
    return web.json_response({**document, "attachment": [attachment]}, dumps=served_json)
