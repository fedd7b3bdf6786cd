"""The outbox delivers by POST to real aiohttp receivers: retries, one up late, a restart, two subscribers."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import sqlite3
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from outbox_fixtures import fast_outbox, outbox_database, party_notification

from reference_impl.outbox import Outbox, OutboxWorker, outbox_context


class Receiver:
    """A real aiohttp server on 127.0.0.1 that records every POST and answers from `statuses`
    (then 200)."""

    def __init__(self, statuses: Iterator[int] | None = None, port: int | None = None) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self._statuses = statuses or iter(())
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self.server = TestServer(app, host="127.0.0.1", port=port)

    async def _receive(self, request: web.Request) -> web.Response:
        self.requests.append((dict(request.headers), await request.read()))
        return web.Response(status=next(self._statuses, 200), text="noted")

    @property
    def url(self) -> str:
        return str(self.server.make_url("/hook"))

    def bodies(self) -> list[Any]:
        return [json.loads(body) for _, body in self.requests]

    async def __aenter__(self) -> Receiver:
        await self.server.start_server()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.server.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _until(condition: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def _attempts(outbox: Outbox, pk: int) -> int:
    row = outbox.get(pk)
    assert row is not None
    return row.attempts


def _run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())


def test_receiver_gets_the_recorded_notification_on_wake() -> None:
    async def scenario() -> None:
        async with Receiver() as receiver:
            db = outbox_database()
            outbox = fast_outbox(db, [receiver.url])
            async with OutboxWorker(outbox, poll_interval=30) as worker:
                await asyncio.sleep(0.05)  # the first round, with nothing to send, is over
                db.execute("BEGIN IMMEDIATE")
                (pk,) = outbox.record_notification(party_notification())
                db.execute("COMMIT")
                worker.wake()
                await _until(lambda: outbox.pending() == 0)
            headers, body = receiver.requests[0]
            assert len(receiver.requests) == 1
            assert json.loads(body) == party_notification()
            assert headers["Content-Type"] == "application/json"
            assert headers["X-Eris-Outbox-Id"] == str(pk)

    _run(scenario)


def test_receiver_answering_500_twice_gets_it_on_the_third_attempt() -> None:
    async def scenario() -> None:
        async with Receiver(iter([500, 500])) as receiver:
            db = outbox_database()
            outbox = fast_outbox(db, [receiver.url])
            (pk,) = outbox.record_notification(party_notification())
            started = time.monotonic()
            async with OutboxWorker(outbox, poll_interval=0.02):
                await _until(lambda: outbox.pending() == 0)
            assert time.monotonic() - started < 3
            assert len(receiver.requests) == 3
            assert receiver.bodies() == [party_notification()] * 3
            row = outbox.get(pk)
            assert row is not None
            assert row.attempts == 3
            assert row.last_error is not None and row.last_error.startswith("HTTP 500")

    _run(scenario)


def test_receiver_that_is_down_then_comes_up_gets_it() -> None:
    async def scenario() -> None:
        port = _closed_port()
        db = outbox_database()
        outbox = fast_outbox(db, [f"http://127.0.0.1:{port}/hook"])
        (pk,) = outbox.record_notification(party_notification())
        async with OutboxWorker(outbox, poll_interval=0.02):
            await _until(lambda: _attempts(outbox, pk) >= 2)
            row = outbox.get(pk)
            assert row is not None and row.last_error and "Connect" in row.last_error
            async with Receiver(port=port) as receiver:
                await _until(lambda: outbox.pending() == 0)
        assert receiver.bodies() == [party_notification()]

    _run(scenario)


def test_nothing_is_sent_while_the_connection_is_inside_a_transaction() -> None:
    async def scenario() -> None:
        async with Receiver() as receiver:
            db = outbox_database()
            outbox = fast_outbox(db, [receiver.url])
            async with OutboxWorker(outbox, poll_interval=0.02) as worker:
                db.execute("BEGIN IMMEDIATE")
                outbox.record_notification(party_notification())
                worker.wake()
                await asyncio.sleep(0.2)
                db.execute("ROLLBACK")
                await asyncio.sleep(0.1)
            assert receiver.requests == []

    _run(scenario)


def test_two_subscribers_each_get_their_copy() -> None:
    async def scenario() -> None:
        async with Receiver() as first, Receiver() as second:
            db = outbox_database()
            outbox = fast_outbox(db, [first.url, second.url])
            outbox.record_notification(party_notification("K-1"))
            outbox.record_notification(party_notification("K-1", "updated"))
            async with OutboxWorker(outbox, poll_interval=0.02):
                await _until(lambda: outbox.pending() == 0)
            expected = [party_notification("K-1"), party_notification("K-1", "updated")]
            assert first.bodies() == expected
            assert second.bodies() == expected

    _run(scenario)


def test_rows_survive_a_restart_and_are_delivered_after_it(tmp_path: Path) -> None:
    path = tmp_path / "eris.sqlite"
    port = _closed_port()
    sessions: list[aiohttp.ClientSession] = []

    def session_factory() -> aiohttp.ClientSession:
        sessions.append(aiohttp.ClientSession())
        return sessions[-1]

    worker_key = web.AppKey("outbox_worker", OutboxWorker)

    async def serve_once(db: sqlite3.Connection, until: Callable[[Outbox], bool]) -> Outbox:
        """Start an application whose cleanup_ctx runs the worker, wait, shut it down."""
        outbox = fast_outbox(db, [f"http://127.0.0.1:{port}/hook"])
        app = web.Application()
        app[worker_key] = OutboxWorker(outbox, session_factory, poll_interval=0.02)
        app.cleanup_ctx.append(outbox_context(worker_key))
        runner = web.AppRunner(app)
        await runner.setup()
        try:
            await _until(lambda: until(outbox))
        finally:
            await runner.cleanup()
        return outbox

    def attempted(outbox: Outbox) -> bool:
        rows = outbox.db.execute("SELECT attempts FROM outbox").fetchall()
        return all(attempts >= 1 for (attempts,) in rows)

    async def first_run() -> None:
        db = outbox_database(path)
        fast_outbox(db, [f"http://127.0.0.1:{port}/hook"]).record_notification(party_notification("K-1"))
        fast_outbox(db, [f"http://127.0.0.1:{port}/hook"]).record_notification(party_notification("K-2"))
        await serve_once(db, attempted)  # the receiver is down: both rows fail and stay
        db.close()

    async def second_run() -> None:
        db = outbox_database(path)
        assert fast_outbox(db, []).pending() == 2
        async with Receiver(port=port) as receiver:
            await serve_once(db, lambda outbox: outbox.pending() == 0)
        db.close()
        assert receiver.bodies() == [party_notification("K-1"), party_notification("K-2")]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(first_run)
        _run(second_run)
        gc.collect()
    assert len(sessions) == 2
    assert all(session.closed for session in sessions)
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_stop_leaves_undelivered_rows_and_closes_the_session() -> None:
    async def scenario() -> None:
        db = outbox_database()
        outbox = fast_outbox(db, [f"http://127.0.0.1:{_closed_port()}/hook"])
        outbox.record_notification(party_notification())
        worker = OutboxWorker(outbox, poll_interval=0.02)
        await worker.start()
        assert worker.running
        await asyncio.sleep(0.05)
        await worker.stop()
        assert not worker.running
        assert outbox.pending() == 1

    _run(scenario)
