"""The persisted outbox: notifications (and, later, report deliveries) pushed by POST until a 2xx.

A change and the notification it causes are written in the same SQLite transaction: the caller
opens it, `Outbox.record_notification` only INSERTs, the caller commits and then calls
`OutboxWorker.wake()`. The worker reads due rows, POSTs each one to its subscriber and marks it
delivered on a 2xx or failed otherwise; a failed row is retried with exponential backoff (1 s,
2 s, 4 s ... capped at 60 s, with jitter) until it is delivered, for ever unless `max_attempts`
is set. Rows live in the database, so whatever is not delivered when the server stops is sent
after the next start. Delivery is at least once: a receiver may see a row again (a crash between
its 2xx and our mark) and can de-duplicate on `X-Eris-Outbox-Id` or the Notification's `id`.

Everything here runs on the event loop thread that owns the one `sqlite3.Connection`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

__all__ = [
    "NOTIFICATION",
    "OUTBOX_SCHEMA",
    "Backoff",
    "Outbox",
    "OutboxRow",
    "OutboxWorker",
    "create_schema",
    "outbox_context",
]

log = logging.getLogger(__name__)

NOTIFICATION = "notification"
JSON = "application/json"
OUTBOX_ID_HEADER = "X-Eris-Outbox-Id"
_ERROR_TEXT_LIMIT = 500

# Times are epoch seconds (REAL). A row is due when delivered_at IS NULL and next_attempt_at <= now;
# a row given up after max_attempts keeps delivered_at NULL and gets next_attempt_at NULL, so it is
# never due again but stays visible with its last_error. AUTOINCREMENT: a pk (sent as
# X-Eris-Outbox-Id) is never reused, even if delivered rows are pruned.
OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    pk INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    subscriber TEXT NOT NULL,
    payload TEXT NOT NULL,
    content_type TEXT NOT NULL,
    headers TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL,
    delivered_at REAL,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (delivered_at, next_attempt_at);
"""

_COLUMNS = "pk, kind, subscriber, payload, content_type, headers, created_at, attempts, next_attempt_at, last_error"


def create_schema(db: sqlite3.Connection) -> None:
    """Create the outbox table and index if absent (statement by statement: `executescript` would
    commit a transaction the caller has open)."""
    for statement in OUTBOX_SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


@dataclass(frozen=True)
class Backoff:
    """Delay before retry n (n = attempts so far, from 1): base * 2**(n-1), jittered by +-jitter
    (a fraction), never more than cap."""

    base: float = 1.0
    cap: float = 60.0
    jitter: float = 0.1

    def delay(self, attempts: int, rng: random.Random) -> float:
        raw = min(self.cap, self.base * 2.0 ** min(max(attempts, 1) - 1, 64))
        return min(self.cap, raw * (1.0 + self.jitter * rng.uniform(-1.0, 1.0)))


@dataclass(frozen=True)
class OutboxRow:
    pk: int
    kind: str
    subscriber: str
    payload: str | bytes
    content_type: str
    headers: Mapping[str, str]
    created_at: float
    attempts: int
    next_attempt_at: float | None
    last_error: str | None

    @property
    def body(self) -> bytes:
        return self.payload.encode("utf-8") if isinstance(self.payload, str) else self.payload


class Outbox:
    """The outbox table on the server's connection: record, find what is due, mark the outcome.

    Retries have no limit by default: a row is retried until its subscriber answers 2xx. With
    `max_attempts`, a row is given up after that many failed attempts (it stays in the table with
    `next_attempt_at` NULL and its last error). `clock` (epoch seconds), `backoff` and `rng` (the
    jitter) are injectable so tests run fast and deterministically.
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        subscribers: Sequence[str] = (),
        *,
        clock: Callable[[], float] = time.time,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
        max_attempts: int | None = None,
    ) -> None:
        if max_attempts is not None and max_attempts < 1:
            raise ValueError("max_attempts must be at least 1, or None for no limit")
        self.db = db
        self.subscribers = tuple(subscribers)
        self.clock = clock
        self.backoff = backoff or Backoff()
        self.rng = rng if rng is not None else random.Random()
        self.max_attempts = max_attempts

    def record_notification(self, notification: Mapping[str, Any]) -> list[int]:
        """Queue `notification` for every subscriber, in one INSERT statement (atomic on its own,
        and part of the caller's transaction when one is open). No subscribers: nothing."""
        if not self.subscribers:
            return []
        payload = json.dumps(notification, ensure_ascii=False, separators=(",", ":"))
        now = self.clock()
        rows = [(NOTIFICATION, url, payload, JSON, "{}", now, now) for url in self.subscribers]
        placeholders = ", ".join(["(?, ?, ?, ?, ?, ?, 0, ?)"] * len(rows))
        cursor = self.db.execute(
            "INSERT INTO outbox (kind, subscriber, payload, content_type, headers, created_at, attempts,"
            f" next_attempt_at) VALUES {placeholders} RETURNING pk",
            [value for row in rows for value in row],
        )
        return [pk for (pk,) in cursor.fetchall()]

    def enqueue(
        self,
        kind: str,
        subscriber: str,
        payload: bytes | str,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> int:
        """Queue one POST of `payload` to `subscriber`, due at once; returns its pk."""
        now = self.clock()
        cursor = self.db.execute(
            "INSERT INTO outbox (kind, subscriber, payload, content_type, headers, created_at, attempts,"
            " next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
            (kind, subscriber, payload, content_type, json.dumps(dict(headers or {})), now, now),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def due(self, limit: int = 100) -> list[OutboxRow]:
        """Undelivered rows whose next attempt time has come, oldest due first."""
        cursor = self.db.execute(
            f"SELECT {_COLUMNS} FROM outbox WHERE delivered_at IS NULL AND next_attempt_at <= ?"
            " ORDER BY next_attempt_at, pk LIMIT ?",
            (self.clock(), limit),
        )
        return [_row(values) for values in cursor.fetchall()]

    def pending(self) -> int:
        """How many rows are not delivered yet (including given-up rows)."""
        (count,) = self.db.execute("SELECT count(*) FROM outbox WHERE delivered_at IS NULL").fetchone()
        return int(count)

    def get(self, pk: int) -> OutboxRow | None:
        values = self.db.execute(f"SELECT {_COLUMNS} FROM outbox WHERE pk = ?", (pk,)).fetchone()
        return None if values is None else _row(values)

    def mark_delivered(self, pk: int) -> None:
        self.db.execute(
            "UPDATE outbox SET delivered_at = ?, attempts = attempts + 1, next_attempt_at = NULL"
            " WHERE pk = ? AND delivered_at IS NULL",
            (self.clock(), pk),
        )

    def mark_failed(self, pk: int, error: str) -> float | None:
        """Count a failed attempt and schedule the next one; returns its time, or None when the row
        is given up (max_attempts reached) or unknown or already delivered."""
        found = self.db.execute("SELECT attempts FROM outbox WHERE pk = ? AND delivered_at IS NULL", (pk,)).fetchone()
        if found is None:
            return None
        attempts = found[0] + 1
        given_up = self.max_attempts is not None and attempts >= self.max_attempts
        next_at = None if given_up else self.clock() + self.backoff.delay(attempts, self.rng)
        self.db.execute(
            "UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE pk = ?",
            (attempts, next_at, error[:_ERROR_TEXT_LIMIT], pk),
        )
        return next_at


def _row(values: tuple[Any, ...]) -> OutboxRow:
    pk, kind, subscriber, payload, content_type, headers, created_at, attempts, next_at, last_error = values
    return OutboxRow(
        pk=pk,
        kind=kind,
        subscriber=subscriber,
        payload=payload,
        content_type=content_type,
        headers=json.loads(headers) if headers else {},
        created_at=created_at,
        attempts=attempts,
        next_attempt_at=next_at,
        last_error=last_error,
    )


class OutboxWorker:
    """The background task that delivers due rows. Start and stop it with the application
    (`outbox_context`) or `async with worker:`; call `wake()` after a commit that queued rows.

    Rows of one subscriber are POSTed in order, and the first failure ends that subscriber's turn
    (a receiver that is down costs one attempt per round, not one per row); subscribers are served
    concurrently. The worker never reads or marks rows while the connection is inside a
    transaction: the rows it would see might still be rolled back.
    """

    def __init__(
        self,
        outbox: Outbox,
        session_factory: Callable[[], aiohttp.ClientSession] = aiohttp.ClientSession,
        *,
        poll_interval: float = 0.2,
        timeout: float = 10.0,
        batch_size: int = 100,
    ) -> None:
        self.outbox = outbox
        self.session_factory = session_factory
        self.poll_interval = poll_interval
        self.timeout = timeout
        self.batch_size = batch_size
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None

    def wake(self) -> None:
        """Deliver now rather than at the next poll (call after committing new rows)."""
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the outbox worker is already started")
        self._session = self.session_factory()
        self._task = asyncio.create_task(self._run(), name="eris-outbox")

    async def stop(self) -> None:
        """Cancel the task, wait for it, close the session. Undelivered rows stay for next time."""
        task, self._task = self._task, None
        try:
            if task is not None:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise  # we are cancelled ourselves, not just our task
        finally:
            session, self._session = self._session, None
            if session is not None:
                await session.close()

    async def __aenter__(self) -> OutboxWorker:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def _deliver_due(self) -> int:
        """One round: POST what is due now; returns how many rows were attempted."""
        if self._session is None:
            raise RuntimeError("the outbox worker is not started")
        if self.outbox.db.in_transaction:
            return 0
        rows = self.outbox.due(self.batch_size)
        by_subscriber: dict[str, list[OutboxRow]] = {}
        for row in rows:
            by_subscriber.setdefault(row.subscriber, []).append(row)
        attempted = await asyncio.gather(*(self._deliver_in_order(queue) for queue in by_subscriber.values()))
        return sum(attempted)

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                attempted = await self._deliver_due()
            except Exception:  # a broken round must not end delivery for good
                log.exception("outbox delivery round failed")
                attempted = 0
            if attempted >= self.batch_size:
                continue  # more may be due already
            try:
                async with asyncio.timeout(self.poll_interval):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _deliver_in_order(self, queue: list[OutboxRow]) -> int:
        for attempted, row in enumerate(queue, start=1):
            error = await self._post(row)
            await self._outside_transaction()
            if error is None:
                self.outbox.mark_delivered(row.pk)
            else:
                log.info("outbox row %s to %s failed: %s", row.pk, row.subscriber, error)
                self.outbox.mark_failed(row.pk, error)
                return attempted
        return len(queue)

    async def _outside_transaction(self) -> None:
        # A handler may have opened a transaction while we awaited the POST; our UPDATE must not
        # become part of it (a rollback would undo the mark and the row would be sent again).
        while self.outbox.db.in_transaction:
            await asyncio.sleep(0.005)

    async def _post(self, row: OutboxRow) -> str | None:
        """POST one row; None on a 2xx, else the reason as text."""
        assert self._session is not None
        headers = {**row.headers, "Content-Type": row.content_type, OUTBOX_ID_HEADER: str(row.pk)}
        try:
            async with self._session.post(
                row.subscriber,
                data=row.body,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                allow_redirects=False,
            ) as response:
                if 200 <= response.status < 300:
                    return None
                excerpt = (await response.content.read(200)).decode("utf-8", "replace").strip()
                reason = f"HTTP {response.status} {response.reason or ''}".rstrip()
                return f"{reason}: {excerpt}" if excerpt else reason
        except TimeoutError:
            return f"no answer within {self.timeout:g} s"
        except Exception as error:  # connection refused, bad URL, protocol error: all retried
            return f"{type(error).__name__}: {error}"


def outbox_context(key: web.AppKey[OutboxWorker]) -> Callable[[web.Application], AsyncIterator[None]]:
    """A `cleanup_ctx` entry that runs the worker stored under `key` while the application runs.

    Append it after the entry that opens the database, so the worker stops before the database
    closes: `app.cleanup_ctx.append(outbox_context(OUTBOX_WORKER))`.
    """

    async def run_outbox(app: web.Application) -> AsyncIterator[None]:
        worker = app[key]
        await worker.start()  # its first round sends what an earlier run left undelivered
        try:
            yield
        finally:
            await worker.stop()

    return run_outbox
