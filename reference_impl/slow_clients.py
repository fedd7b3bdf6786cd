"""A bound on the time a new connection takes to send its request head (request line and headers): aiohttp waits
for it without limit, so a thousand connections trickling a byte a second would hold the server's sockets
(slowloris). A connection whose first request head is not complete within `HEAD_SECONDS` is closed. The body has
its own bound (reference_impl.writes.BODY_READ_SECONDS), an idle keep-alive connection aiohttp's
keepalive_timeout."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server

__all__ = ["HEAD_SECONDS", "HeadBoundRunner"]

HEAD_SECONDS = 10.0


class _HeadBoundHandler(RequestHandler):
    head_seconds = HEAD_SECONDS

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._head_deadline: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(
            self.head_seconds, self._head_late
        )

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._request_count and self._head_deadline is not None:  # a whole head arrived
            self._head_deadline.cancel()
            self._head_deadline = None

    def connection_lost(self, exc: BaseException | None) -> None:
        if getattr(self, "_head_deadline", None) is not None:
            self._head_deadline.cancel()
            self._head_deadline = None
        super().connection_lost(exc)

    def _head_late(self) -> None:
        self._head_deadline = None
        if not self._request_count and self.transport is not None:
            self.transport.close()


class _HeadBoundServer(Server):
    head_seconds = HEAD_SECONDS

    def __call__(self) -> RequestHandler:
        handler = _HeadBoundHandler(self, loop=self._loop, **self._kwargs)
        handler.head_seconds = self.head_seconds
        return handler


class HeadBoundRunner(web.AppRunner):
    """web.AppRunner whose connections must send their first request head within `head_seconds`."""

    def __init__(self, app: web.Application, *, head_seconds: float = HEAD_SECONDS, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.head_seconds = head_seconds

    async def _make_server(self) -> Server:
        server = await super()._make_server()
        # the application's own Server, made by aiohttp, with the one method that makes handlers replaced
        server.__class__ = _HeadBoundServer
        server.head_seconds = self.head_seconds  # type: ignore[attr-defined]
        return server
