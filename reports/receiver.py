"""The integrator's local HTTP receiver: where a service delivers report artifacts and pushes notifications.

The contract (Interface Specification, Events) delivers a finished report to an HTTP target as a POST of the
encrypted artifact, confirmed by the integrator with a 2xx; notifications are pushed Notification resources.
The push address and transport are not shown, so the receiver takes what a conformance run or `eris receive`
needs:

- ``POST /reports/<name>`` (or any path below it: the form of an http connectionString is open too): an
  artifact, any content type, streamed to ``<directory>/<name>``; a repeated delivery under the same name is
  kept beside it as ``<name>.2``, ``<name>.3``...
- ``POST /notifications``, or a POST of a JSON object at any other path outside ``/reports/``: a
  notification, recorded. A body that is not a JSON object is refused (400 at /notifications, 404 elsewhere).

Callers are synchronous (pytest, the CLI), so the aiohttp server runs its own event loop in a daemon thread and
every query or wait is a plain blocking call.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from profiles import strict_json
from reports.receipts import (
    NAME_PATTERN,
    Delivery,
    InboundExchange,
    ReceiptLog,
    check_delivery_name,
    is_valid_delivery_name,
)

__all__ = [
    "CHUNK_SIZE",
    "NAME_PATTERN",
    "Delivery",
    "InboundExchange",
    "Receiver",
    "ReceiverStartError",
    "is_valid_delivery_name",
]

CHUNK_SIZE = 1 << 20
"""Bytes read from an upload at a time: memory stays at one chunk whatever the size of the artifact."""

NOTIFICATION_PATH = "/notifications"
"""Where `notification_url` points; a JSON object POSTed at any path outside /reports/ is recorded too."""

_START_TIMEOUT = 10.0
_SHUTDOWN_TIMEOUT = 2.0
"""Seconds stop() lets a request in flight finish: a test simulating a receiver that goes down must not hang."""

_PART_PREFIX = "~incoming-"
"""'~' cannot occur in a delivery name, so an upload in progress never collides with a delivered file."""

_STARTED_KEY = web.RequestKey("eris_started", float)
_STARTED_MONOTONIC_KEY = web.RequestKey("eris_started_monotonic", float)
_BODY_KEY = web.RequestKey("eris_body", bytes)
_BODY_SIZE_KEY = web.RequestKey("eris_body_size", int)


class ReceiverStartError(OSError):
    """The receiver could not listen on its host and port (most often: the port is taken)."""


def _flatten_headers(headers: CIMultiDictProxy[str] | CIMultiDict[str]) -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in headers.items():
        key = key.lower()
        flat[key] = f"{flat[key]}, {value}" if key in flat else value
    return flat


class Receiver:
    """A local HTTP server receiving report deliveries and notifications, driven from synchronous code.

    ``directory`` is where artifacts are saved; None means a temporary directory created by start() and removed,
    with its files, by stop(). ``public_url`` is how the service reaches the receiver when that is not
    ``http://host:port`` (a tunnel, a container network).

    A Receiver can be stopped and started again: it listens on the same port as before, so the URLs given to a
    service stay valid (a receiver that is down, then recovers), and it keeps what it has recorded.
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str | None = None,
    ) -> None:
        self.host = host
        self._requested_port = port
        self._bound_port: int | None = None
        self._public_url = public_url.rstrip("/") if public_url else None
        self._configured_directory = Path(directory) if directory is not None else None
        self._directory: Path | None = self._configured_directory
        self._temporary_directory = False

        self._log = ReceiptLog()

        self._lifecycle = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # Lifecycle

    def start(self) -> Receiver:
        """Listen and serve in a background thread; return self. Raises ReceiverStartError if it cannot listen."""
        with self._lifecycle:
            if self._loop is not None:
                raise RuntimeError("the receiver is already running")
            self._prepare_directory()
            port = self._bound_port if self._bound_port is not None else self._requested_port
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=self._run_loop, args=(loop,), name="eris-receiver", daemon=True)
            thread.start()
            try:
                runner, bound_port = asyncio.run_coroutine_threadsafe(self._open(port), loop).result(_START_TIMEOUT)
            except BaseException as error:
                loop.call_soon_threadsafe(loop.stop)
                thread.join()
                self._remove_temporary_directory()
                if isinstance(error, OSError) and not isinstance(error, ReceiverStartError):
                    raise self._start_error(port, error) from error
                raise
            self._loop, self._thread, self._runner = loop, thread, runner
            self._bound_port = bound_port
            return self

    def stop(self) -> None:
        """Stop serving, join the thread and free the port; remove a temporary directory. Safe to call twice."""
        with self._lifecycle:
            loop, thread, runner = self._loop, self._thread, self._runner
            if loop is None or thread is None or runner is None:
                return
            self._loop = self._thread = self._runner = None
            try:
                asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(_SHUTDOWN_TIMEOUT + _START_TIMEOUT)
            finally:
                loop.call_soon_threadsafe(loop.stop)
                thread.join()
                self._remove_temporary_directory()

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the receiver is listening now."""
        return self._loop is not None

    @property
    def port(self) -> int:
        """The port listened on (the one chosen by the system when 0 was asked), or the requested one before start."""
        return self._bound_port if self._bound_port is not None else self._requested_port

    @property
    def directory(self) -> Path:
        """Where artifacts are saved; a temporary directory exists only between start() and stop()."""
        if self._directory is None:
            raise RuntimeError("the receiver has no directory until start()")
        return self._directory

    # Addresses

    @property
    def url(self) -> str:
        """The base URL a service uses: ``public_url`` if given, else ``http://host:port`` of the listening socket."""
        if self._public_url is not None:
            return self._public_url
        if self._bound_port is None:
            raise RuntimeError("the receiver has no URL until start() (or give public_url)")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._bound_port}"

    def delivery_url(self, name: str) -> str:
        """The URL a service POSTs the artifact of one order to. Raises ValueError for an invalid name."""
        check_delivery_name(name)
        return f"{self.url}/reports/{name}"

    @property
    def notification_url(self) -> str:
        """The URL a service pushes Notification resources to."""
        return f"{self.url}{NOTIFICATION_PATH}"

    # Records and waits

    def deliveries(self, name: str | None = None) -> list[Delivery]:
        """Every complete delivery (under ``name`` if given), repeats included, in arrival order."""
        return self._log.deliveries(name)

    def wait_for_delivery(self, name: str, timeout: float) -> Delivery:
        """The first delivery under ``name``, waiting up to ``timeout`` seconds; TimeoutError if none arrives."""
        return self._log.wait_for_delivery(name, timeout, self.delivery_url(name))

    def notifications(self) -> list[dict[str, Any]]:
        """Every notification received, in arrival order (copies: changing them changes no record)."""
        return self._log.notifications()

    def wait_for_notification(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first notification, received before or during the wait, for which ``predicate`` is true.

        Waits up to ``timeout`` seconds; TimeoutError if none matches. An exception of the predicate propagates,
        so a predicate meant for malformed notifications too should use ``.get``.
        """
        return self._log.wait_for_notification(predicate, timeout, self.notification_url)

    def exchanges(self) -> list[InboundExchange]:
        """Every request the receiver answered, with its answer, in the order the answers were sent."""
        return self._log.exchanges()

    def fail_next(self, count: int, status: int = 500) -> None:
        """Answer the next ``count`` requests, of any kind, with ``status`` instead of serving them.

        Replaces any count still pending (0 cancels). The request body is read and discarded first, so the
        service sees a clean answer rather than a reset connection.
        """
        self._log.fail_next(count, status)

    # Internals: lifecycle

    def _prepare_directory(self) -> None:
        if self._configured_directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="eris-receiver-"))
            self._temporary_directory = True
        else:
            self._configured_directory.mkdir(parents=True, exist_ok=True)

    def _remove_temporary_directory(self) -> None:
        if self._temporary_directory and self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
            self._temporary_directory = False

    def _start_error(self, port: int, error: OSError) -> ReceiverStartError:
        # asyncio's own message repeats the address; the system's wording of the errno is enough beside ours.
        reason = os.strerror(error.errno) if error.errno else str(error)
        hint = (
            "; another process (or another receiver) is using that port: choose another, or 0 for any free port"
            if error.errno == errno.EADDRINUSE
            else ""
        )
        return ReceiverStartError(error.errno, f"the receiver cannot listen on {self.host}:{port}: {reason}{hint}")

    @staticmethod
    def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            # Tasks still pending after the runner's cleanup would warn when the loop is closed.
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _open(self, port: int) -> tuple[web.AppRunner, int]:
        app = web.Application(middlewares=[self._failure_middleware])
        app.router.add_post("/reports/{name}", self._receive_artifact)
        # The contract leaves the form of an http connectionString open: a service may POST below the URL given.
        app.router.add_post("/reports/{name}/{below:.+}", self._receive_artifact)
        app.router.add_post(NOTIFICATION_PATH, self._receive_notification)
        # The push address is not shown either: a JSON object pushed anywhere else is a notification too.
        app.router.add_post("/{elsewhere:.*}", self._receive_pushed_elsewhere)
        app.on_response_prepare.append(self._record_exchange)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT)
        await runner.setup()
        try:
            # SO_REUSEADDR lets a restart bind the port at once despite connections of the last run in TIME_WAIT.
            site = web.TCPSite(runner, self.host, port, reuse_address=True)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        return runner, runner.addresses[0][1]

    # Internals: request handling (event-loop thread)

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
        directory = self.directory
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
