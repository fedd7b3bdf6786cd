"""Conformant variants: what the contract leaves open ("not shown") done differently. A certification of a
server running any of them must pass; a failure is a suite that asks more than the contract."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    add_outer_middleware,
    is_read,
    on_startup,
    replace_delivery_targets,
    resources_in,
    rewrite_json_answer,
    rewrite_notifications,
    rewrite_query,
)
from reference_impl.problems import problem
from reports.delivery import DeliveryTarget

REPORTS = "/v1/reports"
RESOURCE_PATH_PREFIX = "/v1/"
CODED_FILTERS = ("type", "status")
"""A read's 400 naming one of these is the coded-filter 400 the contract fixes (ERIS-ERR-101)."""
PROBLEM_MEMBERS = ("type", "title", "status", "detail")
REPLACED_HEADERS = ("content-type", "content-length")


def _is_report_order(request: web.Request) -> bool:
    return request.method == "POST" and request.path == REPORTS


def _is_resource_answer(request: web.Request) -> bool:
    """Reads and writes of resources: every /v1 request but the report order (whose 202 is fixed)."""
    return request.path.startswith(RESOURCE_PATH_PREFIX) and not _is_report_order(request)


async def _answer_of(handler: Handler, request: web.Request) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as error:
        return error


def _json_object(response: web.StreamResponse) -> dict[str, Any] | None:
    if not isinstance(response, web.Response) or not isinstance(response.body, bytes):
        return None
    try:
        body = json.loads(response.body)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _kept_headers(response: web.StreamResponse, *dropped: str) -> dict[str, str]:
    """Retry-After, WWW-Authenticate, Allow and the like: what a client acts on stays."""
    return {
        name: value
        for name, value in response.headers.items()
        if name.lower() not in REPLACED_HEADERS and name.lower() not in dropped
    }


# -- errors -----------------------------------------------------------------------------------------------


def _error_message(response: web.StreamResponse) -> str:
    body = _json_object(response)
    if body is None:
        return response.text if isinstance(response, web.Response) and response.text else str(response.reason)
    message = str(body.get("detail") or body.get("title") or body.get("message") or response.reason)
    if body.get("parameter"):
        message += f" (parameter {body['parameter']})"
    return message


@deviation(
    "other-error-bodies",
    "error answers are plain text to GET and {error: {code, message}} JSON to other methods, not Problem "
    "Details; only the 400 of POST /v1/reports stays Problem Details",
)
def other_error_bodies(app: web.Application, settings: Any) -> None:
    """Outermost, so that the 401 of auth, the 429 of the rate limit and the 404/405 of the router change too.
    Status codes and headers stay; the message keeps its words (the parameter a 400 names, "report type not
    found")."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await _answer_of(handler, request)
        if response.status < 400 or (_is_report_order(request) and response.status == 400):
            return response
        message = _error_message(response)
        headers = _kept_headers(response)
        if request.method == "GET":
            return web.Response(
                status=response.status, text=f"{response.status} {response.reason}: {message}\n", headers=headers
            )
        return web.json_response(
            {"error": {"code": response.status, "message": message}}, status=response.status, headers=headers
        )

    add_outer_middleware(app, middleware)


WRITE_STATUS_CHANGES = {400: 422, 404: 422, 409: 422, 415: 400, 422: 400}
"""A refused write's code, where the contract gives none (the 422 of POST /v1/document-references is kept)."""
UNROUTED_STATUS = 403
"""A path or method the service does not have, answered as a gateway that does not reveal its routes."""


def _other_status(request: web.Request, status: int, body: dict[str, Any]) -> int | None:
    """The other 4xx for an error the contract gives no code; None keeps the code (a code the contract fixes)."""
    if request.path == REPORTS or status < 400 or status >= 500 or status in (401, 403, 429):
        return None  # the codes of POST /v1/reports are fixed; auth's, the gateway's and server errors stay
    if request.match_info.http_exception is not None:
        return UNROUTED_STATUS
    if request.method == "GET":
        # fixed: the 400 of a coded filter given, the 404 of a value set and of a document without content
        coded_filter = body.get("parameter") in CODED_FILTERS and request.query.get(body["parameter"])
        return 422 if status == 400 and not coded_filter else None
    if request.method == "POST" and request.path == "/v1/document-references" and status == 422:
        return None  # fixed: the source system rejected the document
    return WRITE_STATUS_CHANGES.get(status)


@deviation(
    "other-4xx-codes",
    "refusals whose code the contract leaves open get another 4xx: 422 for a read's bad parameter, 400 for a "
    "write that breaks the contract (a party without a recognised profile), 422 for a write of an unknown or "
    "ambiguous resource, 403 for an unknown path or method",
)
def other_4xx_codes(app: web.Application, settings: Any) -> None:
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await _answer_of(handler, request)
        body = _json_object(response) or {}
        status = _other_status(request, response.status, body)
        if status is None:
            return response
        extras = {name: value for name, value in body.items() if name not in PROBLEM_MEMBERS}
        detail = str(body.get("detail") or response.reason)
        return problem(status, detail, headers=_kept_headers(response, "allow"), **extras)

    add_outer_middleware(app, middleware)


# -- resources --------------------------------------------------------------------------------------------


META_SOURCE = "urn:oid:1.2.616.1.113769.9.erp-replica"
META_TAG = {"system": "https://erp.example/fhir/CodeSystem/sync-tag", "code": "replicated", "display": "replicated"}
META_SECURITY = {
    "system": "http://terminology.hl7.org/CodeSystem/v3-Confidentiality",
    "code": "N",
    "display": "normal",
}


def _version_of(resource: dict[str, Any]) -> str:
    """Changes exactly when the resource does, as a version id should."""
    return hashlib.sha256(json.dumps(resource, sort_keys=True).encode()).hexdigest()[:16]


@deviation(
    "extra-meta",
    "every served resource carries meta.versionId, lastUpdated, source, tag and security beside meta.profile",
)
def extra_meta(app: web.Application, settings: Any) -> None:
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def add_meta(body: Any, request: web.Request, status: int) -> Any:
        if status != 200:
            return body
        for resource in resources_in(body):
            meta = dict(resource.get("meta") or {})
            meta.setdefault("versionId", _version_of(resource))
            meta.setdefault("lastUpdated", started)
            meta.setdefault("source", META_SOURCE)
            meta["tag"] = [*meta.get("tag", []), META_TAG]
            meta["security"] = [*meta.get("security", []), META_SECURITY]
            resource["meta"] = meta
        return body

    rewrite_json_answer(app, _is_resource_answer, add_meta)


OPEN_RESOURCE_TYPES = frozenset(
    {
        "PartyRole",
        "PartyRelationship",
        "Location",
        "NamingSystem",
        "FixedAsset",
        "AssetComponent",
        "CostCenter",
        "FixedAssetDocument",
        "FixedAssetAllocation",
    }
)
"""The resources whose field lists beyond the names the contract gives are not shown."""


@deviation(
    "more-fields-where-open",
    "resources whose field list the contract leaves open (party roles and relationships, locations, naming "
    "systems, fixed-asset records and documents) carry fields of the installation's own",
)
def more_fields_where_open(app: web.Application, settings: Any) -> None:
    def add_fields(body: Any, request: web.Request, status: int) -> Any:
        if status != 200:
            return body
        for resource in resources_in(body):
            if resource.get("resourceType") in OPEN_RESOURCE_TYPES:
                resource.setdefault("sourceSystem", {"name": "ERP", "module": resource["resourceType"]})
                resource.setdefault("externalKey", f"ERP-{zlib.crc32(str(resource.get('id')).encode()):08x}")
                resource.setdefault("archived", False)
        return body

    rewrite_json_answer(app, _is_resource_answer, add_fields)


# -- lists ------------------------------------------------------------------------------------------------


@deviation(
    "reversed-order",
    "list reads return the items newest first (the reverse of the store's order); pages of count and offset "
    "still cover the whole list once",
)
def reversed_order(app: web.Application, settings: Any) -> None:
    """The store's search itself is replaced, so that every page is cut from the one reversed list. (Its
    search_bodies: list reads serve those, and search parses them.)"""

    def reverse_the_store(app: web.Application) -> None:
        from reference_impl.state import SERVICE

        store = app[SERVICE].store
        search_bodies = store.search_bodies

        def search_newest_first(
            resource_type: str, conditions: Any, *, count: int | None = None, offset: int = 0
        ) -> list[str]:
            everything = search_bodies(resource_type, conditions)[::-1]
            return everything[offset:] if count is None else everything[offset : offset + count]

        store.search_bodies = search_newest_first  # type: ignore[method-assign]
        app[SERVICE].identifier_reads = None  # it reads the store past search_bodies

    on_startup(app, reverse_the_store)


SMALLER_MAXIMUM_COUNT = 50


@deviation(
    "smaller-maximum-count",
    f"a list read answers at most {SMALLER_MAXIMUM_COUNT} items whatever count asks (the maximum count is not "
    "shown); the default of 20 stays",
)
def smaller_maximum_count(app: web.Application, settings: Any) -> None:
    def capped(query: MultiDict[str]) -> MultiDict[str]:
        count = query.get("count", "")
        if count.isascii() and count.isdigit() and int(count) > SMALLER_MAXIMUM_COUNT:
            query["count"] = str(SMALLER_MAXIMUM_COUNT)
        return query

    rewrite_query(app, is_read, capped)


# -- time and pushes --------------------------------------------------------------------------------------

SLOWEST_EXTRA_MS = 30
FASTEST_EXTRA_MS = 10
LATE_DELIVERY_SECONDS = 3.0


@deviation(
    "slow-answers",
    f"every answer waits {FASTEST_EXTRA_MS}-{SLOWEST_EXTRA_MS} ms (the same for the same request) and report "
    f"deliveries leave {LATE_DELIVERY_SECONDS:g} s after generation",
)
def slow_answers(app: web.Application, settings: Any) -> None:
    """The delay of a request follows from its method and URL, so that a run is repeatable. A generated report's
    delivery waits before it starts."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        spread = SLOWEST_EXTRA_MS - FASTEST_EXTRA_MS + 1
        delay_ms = FASTEST_EXTRA_MS + zlib.crc32(f"{request.method} {request.path_qs}".encode()) % spread
        await asyncio.sleep(delay_ms / 1000)
        return await handler(request)

    add_middleware(app, middleware)

    replace_delivery_targets(app, _LateTarget, ("http", "blob", "smb", "local"))


@dataclasses.dataclass(frozen=True)
class _LateTarget:
    inner: DeliveryTarget

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        await asyncio.sleep(LATE_DELIVERY_SECONDS)
        await self.inner.deliver(artifact, execution_id=execution_id, file_name=file_name)


@deviation(
    "repeated-pushes",
    "every Notification is pushed twice (the same notification, same id): an at-least-once push",
)
def repeated_pushes(app: web.Application, settings: Any) -> None:
    def record_twice(app: web.Application) -> None:
        from reference_impl.app import OUTBOX_WORKER

        outbox = app[OUTBOX_WORKER].outbox
        record = outbox.record_notification

        def record_notification_twice(notification: Any) -> list[int]:
            return record(notification) + record(notification)

        outbox.record_notification = record_notification_twice  # type: ignore[method-assign]

    on_startup(app, record_twice)


@deviation(
    "parties-only-notified",
    "only changes of parties are notified; fixed-asset documents and document references change without a push",
)
def parties_only_notified(app: web.Application, settings: Any) -> None:
    def of_parties_only(notification: dict[str, Any], app: web.Application) -> dict[str, Any] | None:
        return notification if notification["reference"]["type"] == "Party" else None

    rewrite_notifications(app, of_parties_only)


# -- authentication ---------------------------------------------------------------------------------------


@deviation(
    "token-on-every-endpoint",
    "every endpoint demands a valid Bearer token (401 without one), as `ServerSettings.token_on_every_endpoint` "
    "does; the contract demands it of POST /v1/reports only",
)
def token_on_every_endpoint(app: web.Application, settings: Any) -> None:
    """The service's own auth middleware, once more with the policy of every endpoint and the same keys."""
    from reference_impl.app import APPLICATION_KEYS
    from reference_impl.auth import AuthPolicy, auth_middleware
    from reference_impl.tokens import TokenVerifier

    keys = app[APPLICATION_KEYS]
    verifier = TokenVerifier({keys.key_id: keys.public_key, **settings.trusted_keys})
    add_middleware(app, auth_middleware(verifier, AuthPolicy(all_endpoints=True)))
