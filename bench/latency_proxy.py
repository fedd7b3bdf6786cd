"""A reverse proxy that stands for a network between eris and a target: every request goes to the target unchanged
(method, path, query, headers but those of the connection, body) and its answer comes back unchanged (status,
headers, the bytes as they came, never decompressed), `delay_ms` later than the target gave it: one round trip of a
link that long. Served on a free port of 127.0.0.1 by an event loop of its own in a daemon thread.

    with LatencyProxy("http://127.0.0.1:8080", delay_ms=50) as proxy:
        ...  # proxy.url answers as the target does, 50 ms later

bench/latency.py certifies through it; tests/conformance/test_round_trip.py too (a run that chooses its workers).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

__all__ = ["LatencyProxy"]

_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers"}
    | {"transfer-encoding", "upgrade", "proxy-connection"}
)
"""RFC 9110 7.6.1: headers of one connection, not of the message (each side of the proxy has its own)."""
_SESSION = web.AppKey("session", aiohttp.ClientSession)
_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=300)


def latency_app(target: str, delay_ms: float) -> web.Application:
    """The proxy of `target` (http://host:port): /v1/parties?x goes to <target>/v1/parties?x, and its answer is
    sent back `delay_ms` after it came."""
    origin = target.rstrip("/")
    delay = delay_ms / 1000

    async def session(app: web.Application) -> AsyncIterator[None]:
        app[_SESSION] = aiohttp.ClientSession(
            auto_decompress=False,
            timeout=_TIMEOUT,
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        yield
        await app[_SESSION].close()

    async def forward(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        try:
            async with request.app[_SESSION].request(
                request.method,
                origin + request.raw_path,
                headers=CIMultiDict(_end_to_end(request.raw_headers, {"host", "content-length"})),
                data=body or None,
                allow_redirects=False,
                compress=None,
            ) as answer:
                answered = await answer.read()
                status, reason = answer.status, answer.reason
                headers = _end_to_end(answer.raw_headers, {"content-length"})
        except (aiohttp.ClientError, TimeoutError) as error:
            return web.Response(status=502, text=f"latency proxy: {target} did not answer: {error!r}")
        if delay:
            await asyncio.sleep(delay)
        return web.Response(status=status, reason=reason, body=answered, headers=CIMultiDict(headers))

    app = web.Application(client_max_size=1 << 30)
    app.cleanup_ctx.append(session)
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


def _end_to_end(raw: Iterable[tuple[bytes, bytes]], also: set[str]) -> list[tuple[str, str]]:
    """The headers of a message as written, but those of its connection and `also` (set again by the other side's
    connection for the same bytes)."""
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]
    named = {
        token.strip().lower() for name, value in headers if name.lower() == "connection" for token in value.split(",")
    }
    dropped = _HOP_BY_HOP | named | also
    return [(name, value) for name, value in headers if name.lower() not in dropped]


class LatencyProxy:
    """`latency_app` on a free port of 127.0.0.1 (`url`) until `stop()`; a context manager."""

    def __init__(self, target: str, delay_ms: float) -> None:
        self.target, self.delay_ms = target, delay_ms
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> LatencyProxy:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> LatencyProxy:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="eris-latency-proxy", daemon=True)
        self._thread.start()
        self._runner = web.AppRunner(latency_app(self.target, self.delay_ms), access_log=None, shutdown_timeout=1)
        try:
            self._call(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            self._call(site.start())
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    def _call(self, coroutine: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(30)

    def stop(self) -> None:
        """Safe to call twice."""
        loop, thread, runner = self._loop, self._thread, self._runner
        self._loop = self._thread = self._runner = None
        if loop is None or thread is None:
            return
        try:
            if runner is not None:
                asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            if not thread.is_alive():
                loop.close()
