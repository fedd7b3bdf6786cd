"""The outbox table: a row per subscriber in the caller's transaction, backed off on failure, given up, delivered."""

from __future__ import annotations

import random
import sqlite3
import time

from outbox_fixtures import FAST_BACKOFF, fast_outbox, outbox_database, party_notification

from reference_impl.outbox import Outbox, create_schema


def test_record_writes_one_row_per_subscriber_and_nothing_without_subscribers() -> None:
    db = outbox_database()
    assert fast_outbox(db, []).record_notification(party_notification()) == []
    pks = fast_outbox(db, ["http://a.invalid/hook", "http://b.invalid/hook"]).record_notification(party_notification())
    rows = db.execute("SELECT pk, kind, subscriber, content_type, attempts, delivered_at FROM outbox").fetchall()
    assert rows == [
        (pks[0], "notification", "http://a.invalid/hook", "application/json", 0, None),
        (pks[1], "notification", "http://b.invalid/hook", "application/json", 0, None),
    ]


def test_record_is_part_of_the_callers_transaction() -> None:
    db = outbox_database()
    outbox = fast_outbox(db, ["http://a.invalid/hook"])
    db.execute("BEGIN IMMEDIATE")
    outbox.record_notification(party_notification())
    db.execute("ROLLBACK")
    assert outbox.pending() == 0
    db.execute("BEGIN IMMEDIATE")
    outbox.record_notification(party_notification())
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
    db = outbox_database()
    outbox = Outbox(db, ["http://a.invalid/hook"], clock=lambda: now[0], rng=random.Random(7))
    (pk,) = outbox.record_notification(party_notification())
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
    db = outbox_database()
    outbox = fast_outbox(db, ["http://a.invalid/hook"], max_attempts=2)
    (pk,) = outbox.record_notification(party_notification())
    assert outbox.mark_failed(pk, "refused") is not None
    assert outbox.mark_failed(pk, "refused again") is None
    time.sleep(FAST_BACKOFF.cap)
    assert outbox.due() == []
    assert outbox.pending() == 1


def test_delivered_rows_are_no_longer_due() -> None:
    db = outbox_database()
    outbox = fast_outbox(db, ["http://a.invalid/hook"])
    (pk,) = outbox.record_notification(party_notification())
    outbox.mark_delivered(pk)
    assert outbox.due() == []
    assert outbox.pending() == 0
    assert outbox.mark_failed(pk, "late") is None
