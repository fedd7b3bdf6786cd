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
every query or wait is a plain blocking call. The application it serves, and how each request is handled, is
reports/receiver_app.py.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from reports.receipts import (
    NAME_PATTERN,
    Delivery,
    InboundExchange,
    ReceiptLog,
    check_delivery_name,
    is_valid_delivery_name,
)
from reports.receiver_app import CHUNK_SIZE, NOTIFICATION_PATH, receiver_application

__all__ = [
    "CHUNK_SIZE",
    "NAME_PATTERN",
    "Delivery",
    "InboundExchange",
    "Receiver",
    "ReceiverStartError",
    "is_valid_delivery_name",
]

_START_TIMEOUT = 10.0
_SHUTDOWN_TIMEOUT = 2.0
"""Seconds stop() lets a request in flight finish: a test simulating a receiver that goes down must not hang."""


class ReceiverStartError(OSError):
    """The receiver could not listen on its host and port (most often: the port is taken)."""


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
        app = receiver_application(self._log, lambda: self.directory)
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
