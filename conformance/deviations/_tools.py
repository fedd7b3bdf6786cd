"""What deviations are made of: middlewares that rewrite a request or an answer, startup steps, write hooks."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Middleware
from multidict import MultiDict

from profiles import strict_json
from reference_impl.app import REPORT_WORKER
from reference_impl.state import SERVICE
from reference_impl.writes import WRITE_HOOKS
from reports.delivery import DeliveryTarget

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Matches = Callable[[web.Request], bool]


def add_middleware(app: web.Application, middleware: Middleware) -> None:
    """Innermost: it runs after auth and the rate limit, right around the handler."""
    app.middlewares.append(web.middleware(middleware))


def on_startup(app: web.Application, step: Callable[[web.Application], None]) -> None:
    """Run `step(app)` once the service, its store and its workers exist (after create_app's own startup)."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        step(app)
        yield

    app.cleanup_ctx.append(context)


def change_what_writes_store(
    app: web.Application, matches: Matches, change: Callable[[web.Request, dict[str, Any], dict[str, Any]], Any]
) -> None:
    """Writes that match store `change(request, body, resource)` of the resource they made of the body (a copy it
    may change in place and return); None stores nothing. Their answers stay the service's."""

    def hook(request: web.Request, body: dict[str, Any], resource: dict[str, Any]) -> dict[str, Any] | None:
        return change(request, body, json.loads(json.dumps(resource))) if matches(request) else resource

    app[WRITE_HOOKS].append(hook)


def make_optional(app: web.Application, method: str, path: str, parameter: str) -> None:
    """The service reads its table of operations (from openapi.json) with `parameter` of `method path` optional."""

    def optional(app: web.Application) -> None:
        operations = app[SERVICE].operations
        operation = operations[(method, path)]
        operations[(method, path)] = dataclasses.replace(
            operation, parameters={**operation.parameters, parameter: False}
        )

    on_startup(app, optional)


def replace_delivery_targets(
    app: web.Application, target_for: Callable[[DeliveryTarget], DeliveryTarget], storage_types: tuple[str, ...]
) -> None:
    """Orders whose storage type is one of `storage_types` are delivered to `target_for(the target the worker
    would use)`."""

    def replace(app: web.Application) -> None:
        worker = app[REPORT_WORKER]
        target_of = worker.delivery_target

        def changed_target(storage_type: str, connection_string: str, **options: Any) -> DeliveryTarget:
            target = target_of(storage_type, connection_string, **options)
            return target_for(target) if storage_type in storage_types else target

        worker.delivery_target = changed_target

    on_startup(app, replace)


def is_read(request: web.Request) -> bool:
    return request.method == "GET" and request.path.startswith("/v1/")


def path_is(method: str, path: str) -> Matches:
    return lambda request: request.method == method and request.path == path


def rewrite_query(app: web.Application, matches: Matches, change: Callable[[MultiDict[str]], MultiDict[str]]) -> None:
    """Requests that match reach the handler with the query `change` makes of theirs."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if matches(request):
            query = change(MultiDict(request.query))
            request = request.clone(rel_url=request.rel_url.with_query(query))
        return await handler(request)

    add_middleware(app, middleware)


def rewrite_json_answer(app: web.Application, matches: Matches, change: Callable[[Any, web.Request, int], Any]) -> None:
    """JSON answers to matching requests are replaced by `change(body, request, status)` (same status, headers
    but the length)."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as error:
            response = error
        # a streamed body (a Payload) is no JSON document to rewrite
        if not matches(request) or not isinstance(response, web.Response) or not isinstance(response.body, bytes):
            return response
        try:
            body = json.loads(response.body)
        except ValueError:
            return response
        changed = change(body, request, response.status)
        return web.Response(
            body=json.dumps(changed).encode(),
            status=response.status,
            content_type=response.content_type,
            headers={k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")},
        )

    add_middleware(app, middleware)


def answer_instead(
    app: web.Application, matches: Matches, answer: Callable[[web.Request], Awaitable[web.Response]]
) -> None:
    """Matching requests get `answer(request)`; the service never sees them."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if matches(request):
            return await answer(request)
        return await handler(request)

    add_middleware(app, middleware)


def rewrite_notifications(app: web.Application, change: Callable[[dict[str, Any], web.Application], Any]) -> None:
    """Every Notification the service records is queued as `change(notification, app)` makes it (a copy it may
    change in place and return); None queues nothing. The change runs inside the write's transaction, so it can
    read the changed resource from the store."""

    def replace_recording(app: web.Application) -> None:
        from reference_impl.app import OUTBOX_WORKER

        outbox = app[OUTBOX_WORKER].outbox
        record = outbox.record_notification

        def record_changed(notification: Any) -> list[int]:
            changed = change(json.loads(json.dumps(notification)), app)
            return [] if changed is None else record(changed)

        outbox.record_notification = record_changed  # type: ignore[method-assign]

    on_startup(app, replace_recording)


def add_outer_middleware(app: web.Application, middleware: Middleware) -> None:
    """Outermost: it runs before Problem Details, auth and the rate limit, and sees their answers."""
    app.middlewares.insert(0, web.middleware(middleware))


def rewrite_json_body(
    app: web.Application, matches: Matches, change: Callable[[dict[str, Any], web.Request], dict[str, Any]]
) -> None:
    """Requests that match reach the handler with the body `change(body, request)` makes of their JSON object
    body (a copy it may change in place and return); a body that is not a JSON object passes unchanged."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if matches(request):
            body = await json_of(request)
            if isinstance(body, dict):
                replace_body(request, change(body, request))
        return await handler(request)

    add_middleware(app, middleware)


def as_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def resources_in(body: Any) -> list[dict[str, Any]]:
    """The resources of an answer: the answer itself, or the items of an envelope."""
    if not isinstance(body, dict):
        return []
    if "resourceType" in body:
        return [body]
    items = body.get("items")
    return [i for i in items if isinstance(i, dict) and "resourceType" in i] if isinstance(items, list) else []


async def json_of(request: web.Request) -> Any:
    """The request's JSON body, or None when it is not JSON the service reads (the strict intake: the handler then
    refuses it, as without the deviation)."""
    try:
        return strict_json.loads(await request.read())
    except strict_json.StrictJSONError:
        return None


def replace_body(request: web.Request, body: Any) -> None:
    """The handler reads `body` (as JSON) instead of what the client sent."""
    # aiohttp keeps the body it has read (a request cannot be cloned then): the handler reads this one
    request._read_bytes = json.dumps(body).encode()
