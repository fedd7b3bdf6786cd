"""Shared by the tests of the notification outbox: the contract, a Party Notification, an outbox table."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from profiles import load_contract
from reference_impl.notifications import build_notification
from reference_impl.outbox import Backoff, Outbox, create_schema

CONTRACT = load_contract()
CONTRACTOR = CONTRACT.installation_namespace_key("contractor")
FAST_BACKOFF = Backoff(base=0.05, cap=0.2, jitter=0.1)


def party_notification(value: str = "K-0001", operation: str = "created") -> dict[str, Any]:
    """A Notification that the Party with contractor identifier `value` was `operation`d."""
    return build_notification(
        CONTRACT,
        resource_type="Party",
        identifier={"system": CONTRACTOR, "value": value},
        operation=operation,
        date="2024-05-01T12:00:00Z",
        notification_id=f"n-{value}-{operation}",
    )


def outbox_database(path: str | Path = ":memory:") -> sqlite3.Connection:
    """A connection in autocommit mode to a database at `path` with the outbox table."""
    db = sqlite3.connect(path, isolation_level=None)
    create_schema(db)
    return db


def fast_outbox(db: sqlite3.Connection, subscribers: list[str], **options: Any) -> Outbox:
    """An Outbox over `db` that retries within fractions of a second, its jitter seeded."""
    return Outbox(db, subscribers, backoff=FAST_BACKOFF, rng=random.Random(0), **options)
