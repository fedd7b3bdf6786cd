"""Report orders persisted in the server's SQLite database, so that a restart loses none.

An order moves through: scheduled (waiting for runAt) -> generated (the encrypted artifact is in
the spool folder; the session key is erased) -> delivered, or failed (generation failed, the
target refused, or delivery was not confirmed before the deadline). The session key is kept only
between acceptance and generation, because the artifact must be encrypted with the key already
returned in the 202 answer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from profiles.limits import LIMITS
from reports.crypto import SessionKey

__all__ = ["ORDER_SCHEMA", "OrderRow", "ReportQueue"]

ORDER_SCHEMA = """
CREATE TABLE IF NOT EXISTS report_order (
    execution_id TEXT PRIMARY KEY,
    report_id TEXT NOT NULL,
    group_id TEXT,
    format TEXT NOT NULL,
    compression INTEGER NOT NULL,
    parameters TEXT NOT NULL,
    storage_type TEXT NOT NULL,
    connection_string TEXT NOT NULL,
    run_at REAL NOT NULL,
    session_key BLOB,
    state TEXT NOT NULL,
    created_at REAL NOT NULL,
    generated_at REAL,
    rows INTEGER,
    artifact TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL,
    delivered_at REAL,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS report_order_due ON report_order (state, run_at);
"""

SCHEDULED, GENERATED, DELIVERED, FAILED = "scheduled", "generated", "delivered", "failed"
_COLUMNS = (
    "execution_id, report_id, group_id, format, compression, parameters, storage_type, connection_string,"
    " run_at, session_key, state, created_at, generated_at, rows, artifact, attempts, next_attempt_at,"
    " delivered_at, last_error"
)


@dataclass(frozen=True)
class OrderRow:
    execution_id: str
    report_id: str
    group_id: str | None
    format: str
    compression: bool
    parameters: Mapping[str, str]
    storage_type: str
    connection_string: str
    run_at: float
    session_key: SessionKey | None
    state: str
    created_at: float
    generated_at: float | None
    rows: int | None
    artifact: str | None
    attempts: int
    next_attempt_at: float | None
    delivered_at: float | None
    last_error: str | None

    @property
    def file_name(self) -> str:
        """The name the artifact gets at a local target: what it holds, then .enc for the encryption."""
        return f"{self.execution_id}.{self.format}{'.gz' if self.compression else ''}.enc"


class ReportQueue:
    """The report_order table on the server's connection. Times are epoch seconds from `clock`."""

    def __init__(self, db: sqlite3.Connection, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock
        for statement in ORDER_SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)

    def add(
        self,
        *,
        execution_id: str,
        order: Mapping[str, Any],
        run_at: float,
        session_key: SessionKey,
    ) -> None:
        storage = order["storage"]
        self.db.execute(
            "INSERT INTO report_order (execution_id, report_id, group_id, format, compression, parameters,"
            " storage_type, connection_string, run_at, session_key, state, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                execution_id,
                order["reportId"],
                order.get("groupId"),
                order["format"],
                int(bool(order.get("compression", LIMITS.compression_default))),
                json.dumps(order.get("parameters", {})),
                storage["type"],
                storage["connectionString"],
                run_at,
                session_key.to_bytes(),
                SCHEDULED,
                self.clock(),
            ),
        )

    def get(self, execution_id: str) -> OrderRow | None:
        found = self.db.execute(f"SELECT {_COLUMNS} FROM report_order WHERE execution_id = ?", (execution_id,))
        values = found.fetchone()
        return None if values is None else _row(values)

    def due_for_generation(self) -> list[OrderRow]:
        cursor = self.db.execute(
            f"SELECT {_COLUMNS} FROM report_order WHERE state = ? AND run_at <= ? ORDER BY run_at",
            (SCHEDULED, self.clock()),
        )
        return [_row(values) for values in cursor.fetchall()]

    def due_for_delivery(self) -> list[OrderRow]:
        cursor = self.db.execute(
            f"SELECT {_COLUMNS} FROM report_order WHERE state = ? AND next_attempt_at <= ? ORDER BY next_attempt_at",
            (GENERATED, self.clock()),
        )
        return [_row(values) for values in cursor.fetchall()]

    def next_event_at(self) -> float | None:
        """When something next becomes due: the earliest runAt waiting or retry planned."""
        (run_at,) = self.db.execute("SELECT min(run_at) FROM report_order WHERE state = ?", (SCHEDULED,)).fetchone()
        (retry,) = self.db.execute(
            "SELECT min(next_attempt_at) FROM report_order WHERE state = ?", (GENERATED,)
        ).fetchone()
        times = [t for t in (run_at, retry) if t is not None]
        return min(times) if times else None

    def mark_generated(self, execution_id: str, artifact: str, rows: int) -> None:
        now = self.clock()
        self.db.execute(
            "UPDATE report_order SET state = ?, session_key = NULL, artifact = ?, rows = ?, generated_at = ?,"
            " next_attempt_at = ? WHERE execution_id = ?",
            (GENERATED, artifact, rows, now, now, execution_id),
        )

    def mark_delivered(self, execution_id: str) -> None:
        self.db.execute(
            "UPDATE report_order SET state = ?, attempts = attempts + 1, delivered_at = ?, next_attempt_at = NULL,"
            " artifact = NULL, last_error = NULL WHERE execution_id = ?",
            (DELIVERED, self.clock(), execution_id),
        )

    def mark_retry(self, execution_id: str, error: str, next_attempt_at: float) -> None:
        self.db.execute(
            "UPDATE report_order SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?"
            " WHERE execution_id = ?",
            (next_attempt_at, error[:500], execution_id),
        )

    def lease(self, execution_id: str, until: float) -> None:
        """An attempt of delivery is under way until `until` at the latest: the order is not due before then (a
        restart in between tries it again after)."""
        self.db.execute("UPDATE report_order SET next_attempt_at = ? WHERE execution_id = ?", (until, execution_id))

    def mark_failed(self, execution_id: str, error: str) -> None:
        """Give the order up: it keeps its last error; its session key and artifact are gone."""
        self.db.execute(
            "UPDATE report_order SET state = ?, attempts = attempts + 1, session_key = NULL, artifact = NULL,"
            " next_attempt_at = NULL, last_error = ? WHERE execution_id = ?",
            (FAILED, error[:500], execution_id),
        )


def _row(values: tuple[Any, ...]) -> OrderRow:
    (
        execution_id,
        report_id,
        group_id,
        format_,
        compression,
        parameters,
        storage_type,
        connection_string,
        run_at,
        session_key,
        state,
        created_at,
        generated_at,
        rows,
        artifact,
        attempts,
        next_attempt_at,
        delivered_at,
        last_error,
    ) = values
    return OrderRow(
        execution_id=execution_id,
        report_id=report_id,
        group_id=group_id,
        format=format_,
        compression=bool(compression),
        parameters=json.loads(parameters),
        storage_type=storage_type,
        connection_string=connection_string,
        run_at=run_at,
        session_key=None if session_key is None else SessionKey.from_bytes(session_key),
        state=state,
        created_at=created_at,
        generated_at=generated_at,
        rows=rows,
        artifact=artifact,
        attempts=attempts,
        next_attempt_at=next_attempt_at,
        delivered_at=delivered_at,
        last_error=last_error,
    )
