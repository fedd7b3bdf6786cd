"""The notification outbox: Notifications that validate, persisted rows, and delivery by POST to real
aiohttp receivers on 127.0.0.1 (retries, a receiver that comes up late, a restart, two subscribers)."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import socket
import sqlite3
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from profiles import load_contract
from profiles.validator import Validator
from reference_impl.notifications import build_notification
from reference_impl.outbox import (
    Backoff,
    Outbox,
    OutboxWorker,
    create_schema,
    outbox_context,
)

CONTRACT = load_contract()
CONTRACTOR = CONTRACT.installation_namespace_key("contractor")
FAST = Backoff(base=0.05, cap=0.2, jitter=0.1)


def _notification(value: str = "K-0001", operation: str = "created") -> dict[str, Any]:
    return build_notification(
        CONTRACT,
        resource_type="Party",
        identifier={"system": CONTRACTOR, "value": value},
        operation=operation,
        date="2024-05-01T12:00:00Z",
        notification_id=f"n-{value}-{operation}",
    )


def _connect(path: str | Path = ":memory:") -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    create_schema(db)
    return db


def _outbox(db: sqlite3.Connection, subscribers: list[str], **options: Any) -> Outbox:
    return Outbox(db, subscribers, backoff=FAST, rng=random.Random(0), **options)


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


# -- the Notification -------------------------------------------------------------------------


def test_built_notification_validates_with_exactly_six_elements() -> None:
    notification = _notification()
    assert Validator(CONTRACT).validate(notification) == []
    assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}
    assert notification["reference"] == {"type": "Party", "identifier": {"system": CONTRACTOR, "value": "K-0001"}}
    vocab_url = CONTRACT.installation.values["vocab_url"]
    assert notification["operation"]["coding"][0]["system"] == f"{vocab_url}/notification-operation"
    assert notification["status"]["coding"][0] == {
        "system": f"{vocab_url}/notification-status",
        "code": "completed",
        "display": "Completed",
    }


@pytest.mark.parametrize("operation", ["created", "updated", "deleted"])
@pytest.mark.parametrize("status", ["completed", "failed", "pending"])
def test_every_operation_and_status_validates(operation: str, status: str) -> None:
    notification = build_notification(
        CONTRACT,
        resource_type="FixedAssetDocument",
        identifier={"system": CONTRACT.installation_namespace_key("fixed-asset-document"), "value": "D-1"},
        operation=operation,
        status=status,
        date="2024-05-01T12:00:00.250+02:00",
        notification_id="n-1",
    )
    assert Validator(CONTRACT).validate(notification) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"operation": "merged"}, "not a code"),
        ({"status": "done"}, "not a code"),
        ({"date": "2024-05-01T12:00:00"}, "time zone"),
        ({"date": "yesterday"}, "ISO 8601"),
        ({"date": "2024-05-01T12:00:00+0200"}, "time zone"),
        ({"date": "2024-02-30T12:00:00Z"}, "no such moment"),
        ({"identifier": {"system": CONTRACT.installation.values["nip_system"], "value": "5260001246"}}, "namespace"),
        ({"identifier": {"system": "urn:oid:1.2.616.1.113769.4.999.1", "value": "1"}}, "namespace"),
        ({"identifier": {"system": CONTRACTOR}}, "value"),
        ({"identifier": {"system": CONTRACTOR, "value": ""}}, "value"),
    ],
)
def test_notification_outside_the_contract_is_refused(change: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {
        "resource_type": "Party",
        "identifier": {"system": CONTRACTOR, "value": "K-1"},
        "operation": "created",
        "date": "2024-05-01T12:00:00Z",
        "notification_id": "n-1",
    }
    with pytest.raises(ValueError, match=message):
        build_notification(CONTRACT, **{**arguments, **change})


# -- the table --------------------------------------------------------------------------------


def test_record_writes_one_row_per_subscriber_and_nothing_without_subscribers() -> None:
    db = _connect()
    assert _outbox(db, []).record_notification(_notification()) == []
    pks = _outbox(db, ["http://a.invalid/hook", "http://b.invalid/hook"]).record_notification(_notification())
    rows = db.execute("SELECT pk, kind, subscriber, content_type, attempts, delivered_at FROM outbox").fetchall()
    assert rows == [
        (pks[0], "notification", "http://a.invalid/hook", "application/json", 0, None),
        (pks[1], "notification", "http://b.invalid/hook", "application/json", 0, None),
    ]


def test_record_is_part_of_the_callers_transaction() -> None:
    db = _connect()
    outbox = _outbox(db, ["http://a.invalid/hook"])
    db.execute("BEGIN IMMEDIATE")
    outbox.record_notification(_notification())
    db.execute("ROLLBACK")
    assert outbox.pending() == 0
    db.execute("BEGIN IMMEDIATE")
    outbox.record_notification(_notification())
    db.execute("COMMIT")
    assert outbox.pending() == 1


def test_create_schema_keeps_the_callers_transaction_open() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("BEGIN")
    create_schema(db)
    create_schema(db)  # idempotent
    assert db.in_transaction
    db.execute("ROLLBACK")


def test_failures_back_off_exponentially_up_to_a_minute() -> None:
    now = [1000.0]
    db = _connect()
    outbox = Outbox(db, ["http://a.invalid/hook"], clock=lambda: now[0], rng=random.Random(7))
    (pk,) = outbox.record_notification(_notification())
    delays = []
    for _ in range(9):
        assert [row.pk for row in outbox.due()] == [pk]
        next_at = outbox.mark_failed(pk, "HTTP 500 Internal Server Error")
        assert next_at is not None
        delays.append(next_at - now[0])
        assert outbox.due() == []  # not before its time
        now[0] = next_at
    for delay, nominal in zip(delays, [1, 2, 4, 8, 16, 32, 60, 60, 60], strict=True):
        assert nominal * 0.9 <= delay <= min(60, nominal * 1.1)
    row = outbox.get(pk)
    assert row is not None
    assert (row.attempts, row.last_error) == (9, "HTTP 500 Internal Server Error")


def test_max_attempts_gives_a_row_up_but_keeps_it() -> None:
    db = _connect()
    outbox = _outbox(db, ["http://a.invalid/hook"], max_attempts=2)
    (pk,) = outbox.record_notification(_notification())
    assert outbox.mark_failed(pk, "refused") is not None
    assert outbox.mark_failed(pk, "refused again") is None
    time.sleep(FAST.cap)
    assert outbox.due() == []
    assert outbox.pending() == 1


def test_delivered_rows_are_no_longer_due() -> None:
    db = _connect()
    outbox = _outbox(db, ["http://a.invalid/hook"])
    (pk,) = outbox.record_notification(_notification())
    outbox.mark_delivered(pk)
    assert outbox.due() == []
    assert outbox.pending() == 0
    assert outbox.mark_failed(pk, "late") is None


# -- delivery ---------------------------------------------------------------------------------


def test_receiver_gets_the_recorded_notification_on_wake() -> None:
    async def scenario() -> None:
        async with Receiver() as receiver:
            db = _connect()
            outbox = _outbox(db, [receiver.url])
            async with OutboxWorker(outbox, poll_interval=30) as worker:
                await asyncio.sleep(0.05)  # the first round, with nothing to send, is over
                db.execute("BEGIN IMMEDIATE")
                (pk,) = outbox.record_notification(_notification())
                db.execute("COMMIT")
                worker.wake()
                await _until(lambda: outbox.pending() == 0)
            headers, body = receiver.requests[0]
            assert len(receiver.requests) == 1
            assert json.loads(body) == _notification()
            assert headers["Content-Type"] == "application/json"
            assert headers["X-Eris-Outbox-Id"] == str(pk)

    _run(scenario)


def test_receiver_answering_500_twice_gets_it_on_the_third_attempt() -> None:
    async def scenario() -> None:
        async with Receiver(iter([500, 500])) as receiver:
            db = _connect()
            outbox = _outbox(db, [receiver.url])
            (pk,) = outbox.record_notification(_notification())
            started = time.monotonic()
            async with OutboxWorker(outbox, poll_interval=0.02):
                await _until(lambda: outbox.pending() == 0)
            assert time.monotonic() - started < 3
            assert len(receiver.requests) == 3
            assert receiver.bodies() == [_notification()] * 3
            row = outbox.get(pk)
            assert row is not None
            assert row.attempts == 3
            assert row.last_error is not None and row.last_error.startswith("HTTP 500")

    _run(scenario)


def test_receiver_that_is_down_then_comes_up_gets_it() -> None:
    async def scenario() -> None:
        port = _closed_port()
        db = _connect()
        outbox = _outbox(db, [f"http://127.0.0.1:{port}/hook"])
        (pk,) = outbox.record_notification(_notification())
        async with OutboxWorker(outbox, poll_interval=0.02):
            await _until(lambda: _attempts(outbox, pk) >= 2)
            row = outbox.get(pk)
            assert row is not None and row.last_error and "Connect" in row.last_error
            async with Receiver(port=port) as receiver:
                await _until(lambda: outbox.pending() == 0)
        assert receiver.bodies() == [_notification()]

    _run(scenario)


def test_nothing_is_sent_while_the_connection_is_inside_a_transaction() -> None:
    async def scenario() -> None:
        async with Receiver() as receiver:
            db = _connect()
            outbox = _outbox(db, [receiver.url])
            async with OutboxWorker(outbox, poll_interval=0.02) as worker:
                db.execute("BEGIN IMMEDIATE")
                outbox.record_notification(_notification())
                worker.wake()
                await asyncio.sleep(0.2)
                db.execute("ROLLBACK")
                await asyncio.sleep(0.1)
            assert receiver.requests == []

    _run(scenario)


def test_two_subscribers_each_get_their_copy() -> None:
    async def scenario() -> None:
        async with Receiver() as first, Receiver() as second:
            db = _connect()
            outbox = _outbox(db, [first.url, second.url])
            outbox.record_notification(_notification("K-1"))
            outbox.record_notification(_notification("K-1", "updated"))
            async with OutboxWorker(outbox, poll_interval=0.02):
                await _until(lambda: outbox.pending() == 0)
            expected = [_notification("K-1"), _notification("K-1", "updated")]
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
        outbox = _outbox(db, [f"http://127.0.0.1:{port}/hook"])
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
        db = _connect(path)
        _outbox(db, [f"http://127.0.0.1:{port}/hook"]).record_notification(_notification("K-1"))
        _outbox(db, [f"http://127.0.0.1:{port}/hook"]).record_notification(_notification("K-2"))
        await serve_once(db, attempted)  # the receiver is down: both rows fail and stay
        db.close()

    async def second_run() -> None:
        db = _connect(path)
        assert _outbox(db, []).pending() == 2
        async with Receiver(port=port) as receiver:
            await serve_once(db, lambda outbox: outbox.pending() == 0)
        db.close()
        assert receiver.bodies() == [_notification("K-1"), _notification("K-2")]

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
        db = _connect()
        outbox = _outbox(db, [f"http://127.0.0.1:{_closed_port()}/hook"])
        outbox.record_notification(_notification())
        worker = OutboxWorker(outbox, poll_interval=0.02)
        await worker.start()
        assert worker.running
        await asyncio.sleep(0.05)
        await worker.stop()
        assert not worker.running
        assert outbox.pending() == 1

    _run(scenario)
