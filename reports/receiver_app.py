"""The receiver's aiohttp application: where a delivery or a notification arrives (the routes of
reports/receiver.py's docstring), an artifact streamed to disk in chunks and never left half-written, a notification
read as strict JSON, the failures a test asks for (`fail_next`), and every exchange recorded in the receipt log as it
was answered. It runs on the receiver's event loop thread; `Receiver` drives it from synchronous code."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from profiles import strict_json
from reports.receipts import (
    Delivery,
    InboundExchange,
    ReceiptLog,
    is_valid_delivery_name,
)

__all__ = ["CHUNK_SIZE", "NOTIFICATION_PATH", "receiver_application"]

CHUNK_SIZE = 1 << 20
"""Bytes read from an upload at a time: memory stays at one chunk whatever the size of the artifact."""

NOTIFICATION_PATH = "/notifications"
"""Where `notification_url` points; a JSON object POSTed at any path outside /reports/ is recorded too."""

_PART_PREFIX = "~incoming-"
"""'~' cannot occur in a delivery name, so an upload in progress never collides with a delivered file."""

_STARTED_KEY = web.RequestKey("eris_started", float)
_STARTED_MONOTONIC_KEY = web.RequestKey("eris_started_monotonic", float)
_BODY_KEY = web.RequestKey("eris_body", bytes)
_BODY_SIZE_KEY = web.RequestKey("eris_body_size", int)


def receiver_application(log: ReceiptLog, directory: Callable[[], Path]) -> web.Application:
    """The application recording into `log`, saving artifacts into `directory()` (read at each delivery: a
    temporary directory exists only while the receiver runs)."""
    return _Handlers(log, directory).application()


def _flatten_headers(headers: CIMultiDictProxy[str] | CIMultiDict[str]) -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in headers.items():
        key = key.lower()
        flat[key] = f"{flat[key]}, {value}" if key in flat else value
    return flat


class _Handlers:
    """The handlers of one receiver, on its event loop's thread."""

    def __init__(self, log: ReceiptLog, directory: Callable[[], Path]) -> None:
        self._log = log
        self._directory = directory

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self._failure_middleware])
        app.router.add_post("/reports/{name}", self._receive_artifact)
        # The contract leaves the form of an http connectionString open: a service may POST below the URL given.
        app.router.add_post("/reports/{name}/{below:.+}", self._receive_artifact)
        app.router.add_post(NOTIFICATION_PATH, self._receive_notification)
        # The push address is not shown either: a JSON object pushed anywhere else is a notification too.
        app.router.add_post("/{elsewhere:.*}", self._receive_pushed_elsewhere)
        app.on_response_prepare.append(self._record_exchange)
        return app

    @web.middleware
    async def _failure_middleware(
        self, request: web.Request, handler: Callable[[web.Request], Any]
    ) -> web.StreamResponse:
        request[_STARTED_KEY] = time.time()
        # The wall clock dates the exchange; durations come from the monotonic clock, which cannot jump.
        request[_STARTED_MONOTONIC_KEY] = time.monotonic()
        status = self._log.take_failure()
        if status is None:
            return await handler(request)
        if not request.path.startswith("/reports/"):
            body = await request.read()
            request[_BODY_KEY] = body
            request[_BODY_SIZE_KEY] = len(body)
        else:
            size = 0
            async for chunk in request.content.iter_chunked(CHUNK_SIZE):
                size += len(chunk)
            request[_BODY_SIZE_KEY] = size
        return web.Response(status=status, text=f"simulated failure: the receiver was told to answer {status}\n")

    async def _receive_artifact(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if not is_valid_delivery_name(name):
            raise web.HTTPNotFound(text=f"invalid delivery name {name!r}\n")
        directory = self._directory()
        descriptor, part_name = tempfile.mkstemp(dir=directory, prefix=_PART_PREFIX, suffix=".part")
        part = Path(part_name)
        digest = hashlib.sha256()
        size = 0
        try:
            with os.fdopen(descriptor, "wb") as out:
                async for chunk in request.content.iter_chunked(CHUNK_SIZE):
                    out.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
                    request[_BODY_SIZE_KEY] = size
        except BaseException:
            # A broken upload must never become a delivery.
            part.unlink(missing_ok=True)
            raise
        target = self._free_target(directory, name)  # no await until it is taken: no other upload can pick it
        part.replace(target)
        delivery = Delivery(
            name=name,
            path=target,
            size=size,
            sha256=digest.hexdigest(),
            headers=_flatten_headers(request.headers),
            received_at=time.time(),
        )
        self._log.add_delivery(delivery)
        return web.json_response({"received": size, "sha256": delivery.sha256})

    @staticmethod
    def _free_target(directory: Path, name: str) -> Path:
        """The first of name, name.2, name.3... not on disk (files of an earlier run are never overwritten)."""
        target = directory / name
        repeat = 1
        while target.exists():
            repeat += 1
            target = directory / f"{name}.{repeat}"
        return target

    async def _receive_notification(self, request: web.Request) -> web.Response:
        notification = await self._read_json(request)
        if not isinstance(notification, dict):
            raise web.HTTPBadRequest(text=f"the notification body must be a JSON object, not {_kind(notification)}\n")
        self._log.add_notification(notification)
        return web.json_response({"received": True})

    async def _receive_pushed_elsewhere(self, request: web.Request) -> web.Response:
        if request.path == "/reports" or request.path.startswith("/reports/"):
            raise web.HTTPNotFound(text="a delivery goes to /reports/<name>, a name of [A-Za-z0-9._-]\n")
        try:
            notification = await self._read_json(request)
        except web.HTTPBadRequest:
            notification = None
        if not isinstance(notification, dict):
            raise web.HTTPNotFound(
                text=f"nothing is received at {request.path} but a notification (a JSON object); artifacts go to "
                "/reports/<name>\n"
            )
        self._log.add_notification(notification)
        return web.json_response({"received": True})

    @staticmethod
    async def _read_json(request: web.Request) -> Any:
        body = await request.read()
        request[_BODY_KEY] = body
        request[_BODY_SIZE_KEY] = len(body)
        try:
            return strict_json.loads(body)
        except strict_json.StrictJSONError as error:
            raise web.HTTPBadRequest(text=f"the notification body is not valid JSON: {error}\n") from None

    async def _record_exchange(self, request: web.Request, response: web.StreamResponse) -> None:
        # on_response_prepare runs once the headers are final, so the log shows what was actually sent.
        started = request.get(_STARTED_KEY, time.time())
        duration = time.monotonic() - request.get(_STARTED_MONOTONIC_KEY, time.monotonic())
        if _BODY_SIZE_KEY in request:
            body_size = request[_BODY_SIZE_KEY]
        elif not request.body_exists:
            body_size = 0
        else:
            body_size = request.content_length if request.content_length is not None else -1
        response_body = response.body if isinstance(response, web.Response) else None
        exchange = InboundExchange(
            started=started,
            duration=duration,
            method=request.method,
            url=str(request.url),
            request_headers=_flatten_headers(request.headers),
            request_body=request.get(_BODY_KEY),
            request_body_size=body_size,
            status=response.status,
            response_headers=_flatten_headers(response.headers),
            response_body=response_body if isinstance(response_body, bytes) else b"",
        )
        self._log.add_exchange(exchange)


def _kind(value: Any) -> str:
    return f"a JSON {type(value).__name__}" if value is not None else "JSON null"
