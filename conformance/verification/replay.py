"""The replay of a recorded run: an aiohttp server on a free loopback port that answers each request with the
answer recorded for it, and pushes to the suite's receiver what the target pushed (deliveries, notifications)
after the answer it followed, as long after it as it came.

A request finds its answer by method, path and query, and body (recorded.match_key), never by its order of
arrival: tests and their concurrent calls may come in any order. Of identical requests the running test's own come
first, each answer once, in recorded order; then another test's (a session's first reads are made by whichever
test runs first). The addresses differ from the recorded run's: requests are matched with the recorded ones put
back, and answers carry the replay's."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable
from typing import Any

from aiohttp import ClientSession, ClientTimeout, web

from conformance.client.ports import free_port
from conformance.generation.made_up import running_test
from conformance.verification.recorded import RecordedExchange, Recording, match_key

__all__ = ["Replay"]

HOST = "127.0.0.1"
_START_TIMEOUT = 30.0
_PUSH_TIMEOUT = 30.0
_HOP_HEADERS = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "date"}
)
"""Not replayed as recorded: the body is served decoded and whole, the connection is the replay's own."""
_SKIPPED_PUSH_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})
MISSED_STATUS = 599
"""The answer to a request with no recorded answer: a status no target sends, so a test fails on it visibly."""


class Replay:
    """Serve `recording` until `stop()`. `recorded_origins` are the target's and the receiver's addresses in the
    recording; `receiver_url` where the suite's receiver listens now. `misses` lists the requests that found no
    recorded answer, `answered` counts those that did."""

    def __init__(self, recording: Recording, *, recorded_target: str, recorded_receiver: str, receiver_url: str):
        self.recording = recording
        self.recorded_target = recorded_target.rstrip("/")
        self.recorded_receiver = recorded_receiver.rstrip("/")
        self.receiver_url = receiver_url.rstrip("/")
        self.base_url = ""
        self.misses: list[str] = []
        self.approximate: list[str] = []
        """Reads answered by a recorded read of the same path with another query (probes outside the tests)."""
        self.answered = 0
        self.pushed = 0
        self._used: set[int] = set()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._started_pushes = False

    def __enter__(self) -> Replay:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> Replay:
        """Listen on a free loopback port. OSError when none can be had."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="eris-replay", daemon=True)
        self._thread.start()
        port = free_port()
        asyncio.run_coroutine_threadsafe(self._serve(port), self._loop).result(_START_TIMEOUT)
        self.base_url = f"http://{HOST}:{port}"
        return self

    async def _serve(self, port: int) -> None:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_route("*", "/{tail:.*}", self._answer)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, HOST, port).start()
        self._session = ClientSession(timeout=ClientTimeout(total=_PUSH_TIMEOUT))

    def stop(self) -> None:
        loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._close(), loop).result(_START_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(_START_TIMEOUT)
        loop.close()

    async def _close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _answer(self, request: web.Request) -> web.Response:
        body = await request.read()
        target = request.raw_path.removesuffix("?")  # as sent (path_qs would be re-quoted); "?" as recorded
        recorded = self._take(request.method, target, self._as_recorded(body))
        if recorded is None:
            self.misses.append(f"{request.method} {target}")
            return web.Response(status=MISSED_STATUS, text="eris verify: no recorded answer to this request\n")
        self.answered += 1
        self._push(self.recording.pushed_after.get(recorded.number, ()))
        if not self._started_pushes:
            self._started_pushes = True
            self._push(self.recording.unprompted, at_once=True)
        headers = [(name, value) for name, value in recorded.response_headers if name.lower() not in _HOP_HEADERS]
        response = web.Response(status=recorded.status, body=self._as_replayed(recorded.response_body))
        for name, value in headers:
            response.headers.add(name, value.replace(self.recorded_target, self.base_url))
        return response

    def _take(self, method: str, target: str, body: bytes) -> RecordedExchange | None:
        """The recorded exchange that answers: the running test's own first, then any test's, each once; a request
        sent again after its recorded answers ran out gets the last of them again (a probe, a retry)."""
        test = running_test()
        same = self.recording.outbound.get(match_key(method, target, body), [])
        with self._lock:
            for candidates in ([e for e in same if e.test == test], same):
                for exchange in candidates:
                    if exchange.number not in self._used:
                        self._used.add(exchange.number)
                        return exchange
        if same:
            return same[-1]
        if method.upper() in ("GET", "HEAD"):
            # a probe the suite's session makes outside any test (a first read, a check after a silence) is not
            # in the recording: a read of the same path answered there says the same, that the target answers
            path = target.partition("?")[0]
            probes = [
                e
                for (m, t), found in self.recording.by_target.items()
                if m == "GET" and t.partition("?")[0] == path
                for e in found
            ]
            if probes:
                self.approximate.append(f"{method} {target}")
                return probes[0]
        return None

    def _as_recorded(self, data: bytes) -> bytes:
        """The replay's and the receiver's present addresses as the recording has them."""
        return data.replace(self.base_url.encode(), self.recorded_target.encode()).replace(
            self.receiver_url.encode(), self.recorded_receiver.encode()
        )

    def _as_replayed(self, data: bytes) -> bytes:
        return data.replace(self.recorded_target.encode(), self.base_url.encode()).replace(
            self.recorded_receiver.encode(), self.receiver_url.encode()
        )

    def _push(self, exchanges: Iterable[RecordedExchange], *, at_once: bool = False) -> None:
        for exchange in exchanges:
            answered = self._answered_at(exchange)
            delay = 0.0 if at_once or answered is None else max(0.0, exchange.started - answered)
            task = asyncio.get_running_loop().create_task(self._deliver(exchange, delay))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _answered_at(self, inbound: RecordedExchange) -> float | None:
        for number, pushed in self.recording.pushed_after.items():
            if inbound in pushed:
                trigger = self.recording.exchanges[number]
                return trigger.started + trigger.seconds
        return None

    async def _deliver(self, exchange: RecordedExchange, delay: float) -> None:
        await asyncio.sleep(delay)
        assert self._session is not None
        headers = {name: value for name, value in exchange.request_headers if name.lower() not in _SKIPPED_PUSH_HEADERS}
        url = self.receiver_url + exchange.target
        with contextlib.suppress(Exception):  # the receiver's answer is the suite's own, judged there
            async with self._session.request(
                exchange.method, url, data=self._as_replayed(exchange.request_body), headers=headers
            ) as response:
                await response.read()
                self.pushed += 1

    def summary(self) -> dict[str, Any]:
        return {"answered": self.answered, "missed": len(self.misses), "pushed": self.pushed}
