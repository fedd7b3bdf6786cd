"""Targets that misbehave at the transport, for the tests of a bounded run: real aiohttp servers on 127.0.0.1, each
run by an event loop of its own in a daemon thread (bench/bounded_run.py uses them too).

- `hostile_proxy`: forwards to a real target, except the paths it answers itself with a hostile answer, and, when
  told, stops answering from its Nth request on (it reads the request and sends nothing);
- the hostile answers: `huge` (a JSON envelope of any size, streamed), `many_items` (an envelope of that many
  small items), `bomb` (a gzip answer inflating to any size), `trickle` (an envelope a byte a second), `hang`
  (nothing, ever);
- `TricklingHead`: a raw TCP server whose status line and headers come a byte a second.
"""

from __future__ import annotations

import asyncio
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from aiohttp import web

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}
ENVELOPE = b'{"items": [], "nextToken": null}'
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
REQUESTS = web.AppKey("requests", dict)
"""app[REQUESTS]["seen"]: the requests a hostile_proxy was sent; ["answered_at"]: time.monotonic() of its last
forwarded answer."""


class ServedInThread:
    """An aiohttp application on a free port of 127.0.0.1 until `stop()`."""

    def __init__(self, app: web.Application) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="eris-hostile-target", daemon=True)
        self._thread.start()
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
        self._call(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._call(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        self.app = app

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def stop(self) -> None:
        try:
            self._call(self._runner.cleanup())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()


@contextmanager
def served(app: web.Application) -> Iterator[ServedInThread]:
    server = ServedInThread(app)
    try:
        yield server
    finally:
        server.stop()


def huge(size: int) -> Handler:
    """A JSON envelope of about `size` bytes, one string item, streamed in blocks of 64 KiB."""

    async def answer(request: web.Request) -> web.StreamResponse:
        streamed = web.StreamResponse(headers={"Content-Type": "application/json"})
        await streamed.prepare(request)
        block = b"x" * (1 << 16)
        try:
            await streamed.write(b'{"items": ["')
            for _ in range(size >> 16):
                await streamed.write(block)
            await streamed.write(b'"], "nextToken": null}')
        except ConnectionError:
            pass  # the client stopped reading: what a bounded client does
        return streamed

    return answer


def many_items(size: int) -> Handler:
    """A JSON envelope of about `size` bytes of small items ({"resourceType": "CostCenter", "id": ...}): the most
    objects a read of that size can make the client hold."""
    item_count = size // 48

    async def answer(request: web.Request) -> web.StreamResponse:
        streamed = web.StreamResponse(headers={"Content-Type": "application/json"})
        await streamed.prepare(request)
        try:
            await streamed.write(b'{"items": [')
            for start in range(0, item_count, 4096):
                items = (f'{{"resourceType":"CostCenter","id":"c{n:012d}"}}' for n in range(start, start + 4096))
                await streamed.write((("," if start else "") + ",".join(items)).encode())
            await streamed.write(b'], "nextToken": null}')
        except ConnectionError:
            pass
        return streamed

    return answer


def gzip_bomb(inflated: int) -> bytes:
    """One gzip member of `inflated` zero bytes (about a thousandth of that, compressed)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(inflated >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)


def bomb(inflated: int) -> Handler:
    """A gzip answer (Content-Encoding: gzip) of a few bytes a thousand that inflates to `inflated` bytes."""
    compressed = gzip_bomb(inflated)

    async def answer(request: web.Request) -> web.StreamResponse:
        return web.Response(body=compressed, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})

    return answer


async def trickle(request: web.Request) -> web.StreamResponse:
    """The head at once, then an envelope a byte a second."""
    streamed = web.StreamResponse(headers={"Content-Type": "application/json"})
    await streamed.prepare(request)
    try:
        for byte in ENVELOPE * 100:
            await streamed.write(bytes([byte]))
            await asyncio.sleep(1)
    except ConnectionError:
        pass
    return streamed


async def hang(request: web.Request) -> web.StreamResponse:
    """The request read, and nothing sent."""
    await request.read()
    await asyncio.sleep(3600)
    return web.Response()


async def empty(request: web.Request) -> web.StreamResponse:
    return web.Response(body=ENVELOPE, content_type="application/json")


def hostile_app(answers: dict[str, Handler]) -> web.Application:
    """GET of each path of `answers` answered by its handler; every other request by an empty envelope."""
    app = web.Application()
    for path, handler in answers.items():
        app.router.add_get(path, handler)
    app.router.add_route("*", "/{tail:.*}", empty)
    return app


def hostile_proxy(
    upstream: str, *, answers: dict[str, Handler] | None = None, answered: int | None = None
) -> web.Application:
    """Forwards to `upstream`, except GETs of the paths of `answers`, answered by their handler; from request
    `answered` + 1 on (None: never), every request is read and never answered. app[REQUESTS] counts them."""
    answers = answers or {}
    state: dict[str, Any] = {"seen": 0}

    async def forward(request: web.Request) -> web.StreamResponse:
        state["seen"] += 1
        if answered is not None and state["seen"] > answered:
            return await hang(request)
        if request.method == "GET" and request.path in answers:
            return await answers[request.path](request)
        if "client" not in state:
            state["client"] = httpx.AsyncClient(base_url=upstream, timeout=60)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        upstream_answer = await state["client"].request(
            request.method, request.path_qs, content=await request.read(), headers=headers
        )
        kept = {k: v for k, v in upstream_answer.headers.items() if k.lower() not in HOP_HEADERS}
        state["answered_at"] = time.monotonic()
        return web.Response(status=upstream_answer.status_code, body=upstream_answer.content, headers=kept)

    async def close_client(app: web.Application) -> None:
        if "client" in state:
            await state["client"].aclose()

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    app.on_cleanup.append(close_client)
    app[REQUESTS] = state
    return app


class TricklingHead:
    """A raw TCP server that answers every request with a status line and headers sent a byte a second."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="eris-trickling-head", daemon=True)
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._answer, "127.0.0.1", 0), self.loop
        ).result(10)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: " + b"x" * 10_000:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()
