"""A reverse proxy that stands for a network between eris and a target: `eris proxy`'s forwarding (every request to the
target unchanged, its answer back as the bytes came), each exchange `delay_ms` longer than the target makes it: one
round trip of a link that long. Served on a free port of 127.0.0.1 by an event loop of its own in a daemon thread.

    with LatencyProxy("http://127.0.0.1:8080", delay_ms=50) as proxy:
        ...  # proxy.url answers as the target does, 50 ms later

bench/latency.py certifies through it; tests/conformance/test_round_trip.py too (a run that chooses its workers).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from conformance.client.proxy import proxy_app

__all__ = ["LatencyProxy"]


def latency_app(target: str, delay_ms: float) -> web.Application:
    """`eris proxy`'s forwarding of every request to `target` (conformance/client/proxy.py, its exchanges judged by no
    one), each request forwarded `delay_ms` after it came (the proxy streams the answer back as it comes, so the wait is
    taken before: the same round trip)."""
    app = proxy_app(target, lambda exchange: None)
    delay = delay_ms / 1000

    @web.middleware
    async def later(request: web.Request, handler: Handler) -> web.StreamResponse:
        if delay:
            await asyncio.sleep(delay)
        return await handler(request)

    app.middlewares.append(later)
    return app


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
