"""`eris proxy`: a reverse proxy between a client and a service of the contract that forwards every request and
its answer unchanged (method, path, query, headers but the hop-by-hop ones, body; status, headers and the bytes of
the answer, never decompressed nor encoded again) and, off the forwarding path, judges each exchange with the judge
the suite uses (conformance.exchange_judge).

The forwarding is the aiohttp application of `proxy_app`; what passed goes to `Judging`, a thread of its own that
judges the exchanges in the order they ended and hands each, judged, to the caller (the command writes the lines,
the HAR and the reports)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from conformance.exchange_judge import ExchangeFinding, ExchangeJudge, HttpExchange, headers_of

__all__ = ["HOP_BY_HOP", "Judging", "Passed", "proxy_app"]

HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers"}
    | {"transfer-encoding", "upgrade", "proxy-connection"}
)
"""RFC 9110 7.6.1: the headers of one connection, not of the message; the proxy's own connections carry their own.
Content-Length is the length of the same bytes; Host names the target (the URL the proxy asks)."""
_SET_BY_THE_CONNECTION = frozenset({"host", "content-length"})
_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=300)
_SESSION = web.AppKey("session", aiohttp.ClientSession)


@dataclass(frozen=True)
class Passed:
    """An exchange as it passed through the proxy: what the judge reads, and the headers as they were written."""

    exchange: HttpExchange
    url: str
    """The URL at the target: the HAR records the exchange as the client had with the service."""
    started: float
    seconds: float
    request_headers: list[tuple[str, str]]
    response_headers: list[tuple[str, str]]


def proxy_app(target: str, passed: Callable[[Passed], None]) -> web.Application:
    """The proxy of `target` (http(s)://host[:port][/prefix]): a request for /v1/parties?x goes to
    <target>/v1/parties?x. `passed` receives every exchange once its answer is sent (it must not block)."""
    origin = target.rstrip("/")

    async def session(app: web.Application) -> AsyncIterator[None]:
        # auto_decompress off: the answer's bytes go back as they came; no header of aiohttp's own is added
        app[_SESSION] = aiohttp.ClientSession(
            auto_decompress=False,
            timeout=_TIMEOUT,
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        yield
        await app[_SESSION].close()

    async def forward(request: web.Request) -> web.StreamResponse:
        started, clock = time.time(), time.perf_counter()
        body = await request.read()
        sent = _forwarded(request.raw_headers)
        status, answer_headers, answered = 0, [], b""
        try:
            async with request.app[_SESSION].request(
                request.method,
                origin + request.raw_path,
                headers=CIMultiDict(sent),
                data=body or None,
                allow_redirects=False,
                compress=None,
            ) as answer:
                answered = await answer.read()
                status, reason = answer.status, answer.reason
                answer_headers = _forwarded(answer.raw_headers, keep_length=True)
            reply = web.StreamResponse(status=status, reason=reason, headers=CIMultiDict(answer_headers))
            reply.content_length = len(answered)  # the bytes that came, in one piece (an answer in chunks too)
        except (aiohttp.ClientError, TimeoutError) as error:  # recorded with status 0: no answer came
            status, answer_headers, answered = 0, [], b""
            reply = web.Response(status=502, text=f"eris proxy: {target} did not answer: {error!r}")
            await reply.prepare(request)
            await reply.write_eof()
        else:
            await reply.prepare(request)
            await reply.write(answered)
            await reply.write_eof()
        exchange = HttpExchange(
            method=request.method,
            path=request.path,
            query=tuple(parse_qsl(request.query_string, keep_blank_values=True)),
            request_headers=headers_of(sent),
            request_body=body,
            status=status,
            response_headers=headers_of(answer_headers),
            response_body=answered,
        )
        seconds = time.perf_counter() - clock
        passed(Passed(exchange, origin + request.raw_path, started, seconds, sent, answer_headers))
        return reply

    app = web.Application(client_max_size=1 << 30)
    app.cleanup_ctx.append(session)
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


def _forwarded(raw: Iterable[tuple[bytes, bytes]], *, keep_length: bool = False) -> list[tuple[str, str]]:
    """The headers of a message as they were written (name case, order, repeats), but those of the connection (and
    Host and Content-Length of a request, which its new connection sets for the same bytes)."""
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]
    named = {
        token.strip().lower() for name, value in headers if name.lower() == "connection" for token in value.split(",")
    }
    dropped = HOP_BY_HOP | named | (frozenset() if keep_length else _SET_BY_THE_CONNECTION)
    return [(name, value) for name, value in headers if name.lower() not in dropped]


Judged = Callable[[int, Passed, list[ExchangeFinding]], None]


class Judging:
    """A thread that judges what passed, in the order it passed, and hands each exchange with its findings and its
    number (from 0) to `judged`. A defect of the judge on one exchange is written as the failure of that one."""

    def __init__(self, judge: ExchangeJudge, judged: Judged, failed: Callable[[int, Passed, str], None]) -> None:
        self._judge, self._judged, self._failed = judge, judged, failed
        self._queue: queue.SimpleQueue[Passed | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="eris-proxy-judging", daemon=True)
        self.count = 0

    def start(self) -> Judging:
        self._thread.start()
        return self

    def put(self, passed: Passed) -> None:
        self._queue.put(passed)

    def stop(self, timeout: float | None = None) -> None:
        """Judge what is queued, then end the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while (passed := self._queue.get()) is not None:
            number = self.count
            self.count += 1
            try:
                findings = self._judge.judge(passed.exchange)
            except Exception as error:  # a defect of eris: said for this exchange, the others still judged
                self._failed(number, passed, f"{type(error).__name__}: {error}")
                continue
            self._judged(number, passed, findings)
