"""SQLite storage of the reference implementation: resources as JSON, and search tokens.

Every resource is one row of `resource`: its JSON text exactly as a read serves it (`served_json`).
What a read can filter on is extracted when the resource is written, as rows of `search_token`
(param, system, value), indexed so that a lookup by identifier or owner costs the same with 1,000
or 1,000,000 rows. One connection, used from the event loop thread; writes run in explicit transactions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS resource (
    pk INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    last_modified TEXT NOT NULL,
    UNIQUE (type, id)
);
CREATE TABLE IF NOT EXISTS search_token (
    resource_pk INTEGER NOT NULL REFERENCES resource (pk) ON DELETE CASCADE,
    param TEXT NOT NULL,
    system TEXT NOT NULL,
    value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS search_token_lookup ON search_token (param, value, system);
DROP INDEX IF EXISTS search_token_resource;
CREATE INDEX IF NOT EXISTS search_token_of_resource ON search_token (resource_pk, param, value, system);
CREATE INDEX IF NOT EXISTS resource_type ON resource (type);
CREATE INDEX IF NOT EXISTS resource_modified ON resource (type, last_modified);
CREATE TABLE IF NOT EXISTS counter (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
"""


NARROW = 500
"""A token condition matching fewer search tokens than this is read as the list of its resources (a read
starts from those few rows); one matching more is checked row by row while the rows of the type are read
in order (`resource_type`), so that a page of a broad filter costs its page and not every match."""


_BODIES_WITH_TOKEN = (
    "SELECT r.body FROM resource r WHERE r.type = ? AND r.pk IN"
    " (SELECT resource_pk FROM search_token WHERE param = ? AND value = ?{system}) ORDER BY r.pk LIMIT ? OFFSET ?"
)
_BODIES_WITH_TOKEN_OF_ANY_SYSTEM = _BODIES_WITH_TOKEN.format(system="")
_BODIES_WITH_TOKEN_OF_SYSTEM = _BODIES_WITH_TOKEN.format(system=" AND system = ?")


def served_json(value: Any) -> str:
    """The JSON text of an answer, and of a stored resource: compact, non-ASCII characters as they are. Reads
    join stored texts into answers as they are (`Store.search_bodies`), so both must be written alike."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Condition:
    """One filter of a read, as SQL over `resource r`: `sql` with `?` placeholders and `args`."""

    sql: str
    args: tuple[Any, ...] = ()


class Store:
    def __init__(self, path: str = ":memory:") -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)
        self.writes = 0
        """Bumped by every `put` and at the end of every transaction (a rolled-back put takes back what a read in
        between saw): answers read at one value of it stay true while it keeps that value (reference_impl.answer_cache).
        This connection is the database's only writer, as a server of it assumes."""

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All writes inside commit together or not at all."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")
        finally:
            self.writes += 1

    def is_empty(self) -> bool:
        return self.db.execute("SELECT 1 FROM resource LIMIT 1").fetchone() is None

    def put(self, resource: dict[str, Any], tokens: Iterable[tuple[str, str, str]], last_modified: str) -> int:
        """Insert or replace a resource (by type and id) with its search tokens. Call inside a transaction."""
        body = served_json(resource)
        self.writes += 1
        row = self.db.execute(
            "SELECT pk FROM resource WHERE type = ? AND id = ?", (resource["resourceType"], resource["id"])
        ).fetchone()
        if row is None:
            pk = self.db.execute(
                "INSERT INTO resource (type, id, body, last_modified) VALUES (?, ?, ?, ?)",
                (resource["resourceType"], resource["id"], body, last_modified),
            ).lastrowid
        else:
            pk = row[0]
            self.db.execute("UPDATE resource SET body = ?, last_modified = ? WHERE pk = ?", (body, last_modified, pk))
            self.db.execute("DELETE FROM search_token WHERE resource_pk = ?", (pk,))
        self.db.executemany(
            "INSERT INTO search_token (resource_pk, param, system, value) VALUES (?, ?, ?, ?)",
            [(pk, param, system, value) for param, system, value in dict.fromkeys(tokens)],
        )
        return pk  # type: ignore[return-value]

    def search(
        self, resource_type: str, conditions: Sequence[Condition], *, count: int | None = None, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Resources of a type matching every condition, in insertion order, one page of them."""
        return [json.loads(body) for body in self.search_bodies(resource_type, conditions, count=count, offset=offset)]

    def search_bodies(
        self, resource_type: str, conditions: Sequence[Condition], *, count: int | None = None, offset: int = 0
    ) -> list[str]:
        """As `search`, but the stored JSON text of each resource: the text a read serves (`put` writes it in
        the served form), so that a list read joins it instead of parsing and writing it again."""
        where = " AND ".join(["r.type = ?", *(c.sql for c in conditions)])
        args: list[Any] = [resource_type, *(a for c in conditions for a in c.args)]
        sql = f"SELECT r.body FROM resource r WHERE {where} ORDER BY r.pk"
        if count is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [count, offset]
        return [body for (body,) in self.db.execute(sql, args)]

    def bodies_with_token(
        self, resource_type: str, param: str, system: str | None, value: str, *, count: int, offset: int
    ) -> list[str]:
        """As `search_bodies` with the one condition `token_condition(param, [(system, value)])`, in one statement:
        always the list of the token's resources (`IN`), without the count that chooses between list and probe.
        Meant for a token that names few resources, an identifier; one held by many costs all of them."""
        if system is None:
            rows = self.db.execute(_BODIES_WITH_TOKEN_OF_ANY_SYSTEM, (resource_type, param, value, count, offset))
        else:
            rows = self.db.execute(_BODIES_WITH_TOKEN_OF_SYSTEM, (resource_type, param, value, system, count, offset))
        return [body for (body,) in rows]

    def token_condition(self, param: str, keys: Iterable[tuple[str | None, str | None]]) -> Condition:
        """Resources with a search token of `param` and any of the (system, value) keys; None for a system or
        a value matches any. Shaped by how many tokens match (`NARROW`): a few are read as a list (`IN`), more
        are probed per row (`EXISTS`, one seek in `search_token_of_resource`), so that neither an identifier
        lookup nor a page of a broad filter touches every matching row."""
        branches, probes, args, probe_args = [], [], [], [param]
        for system, value in dict.fromkeys(keys):
            columns = [(name, part) for name, part in (("value", value), ("system", system)) if part is not None]
            branches.append(" AND ".join(["param = ?", *(f"{name} = ?" for name, _ in columns)]))
            probes.append(" AND ".join(f"t.{name} = ?" for name, _ in columns) or "1")
            args += [param, *(part for _, part in columns)]
            probe_args += [part for _, part in columns]
        where = " OR ".join(f"({branch})" for branch in branches)  # each branch one range of search_token_lookup
        (matches,) = self.db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM search_token WHERE {where} LIMIT {NARROW})", args
        ).fetchone()
        if matches < NARROW:
            return Condition(f"r.pk IN (SELECT resource_pk FROM search_token WHERE {where})", tuple(args))
        # param outside the OR, so that a probe seeks (resource_pk, param) and reads the resource's few tokens of
        # param; with param inside each branch SQLite read every token of the resource, and an owner page at
        # offsets up to 980 took ~3x as long
        probe = " OR ".join(f"({branch})" for branch in probes)
        return Condition(
            f"EXISTS (SELECT 1 FROM search_token t WHERE t.resource_pk = r.pk AND t.param = ? AND ({probe}))",
            tuple(probe_args),
        )

    def identifiers_of_parties_matching(self, system: str | None, value: str) -> list[tuple[str, str]]:
        """Every identifier (system, value) of the parties that have the identifier system|value."""
        # CROSS JOIN keeps this join order: the few tokens of system|value, their Party, its identifiers.
        # (Left to itself the planner reads every identifier token of the database first.)
        matched = "m.param = 'identifier' AND m.value = ?" + (" AND m.system = ?" if system is not None else "")
        rows = self.db.execute(
            "SELECT DISTINCT t.system, t.value FROM search_token m CROSS JOIN resource r CROSS JOIN search_token t "
            f"WHERE {matched} AND r.pk = m.resource_pk AND r.type = 'Party' "
            "AND t.resource_pk = m.resource_pk AND t.param = 'identifier'",
            (value,) if system is None else (value, system),
        )
        return list(rows)

    def next_identifier_value(self, system: str) -> int:
        """The next free numeric value in an identifier namespace. Call inside a transaction."""
        if self.db.execute("SELECT 1 FROM counter WHERE name = ?", (system,)).fetchone() is None:
            (highest,) = self.db.execute(
                "SELECT MAX(CAST(value AS INTEGER)) FROM search_token WHERE param = 'identifier' AND system = ?",
                (system,),
            ).fetchone()
            return self.next_number(system, (highest or 0) + 1)
        return self.next_number(system)

    def next_number(self, name: str, start: int = 1) -> int:
        """The next number of a named sequence (identifier values, party numbers). Call inside a transaction."""
        row = self.db.execute("SELECT next FROM counter WHERE name = ?", (name,)).fetchone()
        number = row[0] if row else start
        self.db.execute(
            "INSERT INTO counter (name, next) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next = excluded.next",
            (name, number + 1),
        )
        return number
