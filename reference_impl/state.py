"""What every handler shares, kept on the application under typed keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from profiles import Contract
from profiles.validator import Validator
from reference_impl.identifier_reads import IdentifierReads
from reference_impl.search import Operation, QueryBuilder, format_instant, search_tokens
from reference_impl.store import Store


@dataclass
class Service:
    """The contract, its validator, the store and the search over it: one per application."""

    contract: Contract
    validator: Validator
    store: Store
    queries: QueryBuilder
    operations: dict[tuple[str, str], Operation]
    change_listeners: list[Callable[[dict[str, Any], str, str], None]] = field(default_factory=list)
    """Called inside the write's transaction with (resource, operation, time of change)."""
    identifier_reads: IdentifierReads | None = None
    """Answers identifier reads of the common shape past the general path's machinery; None: every read takes the
    general path (set so by whatever changes how reads are answered: `queries`, the store's search)."""

    def save(self, resource: dict[str, Any], operation: str, *, now: datetime | None = None) -> None:
        """Store a resource created or updated through the API, and tell the listeners (the outbox).
        Call inside `store.transaction()`, so that the change and its notification commit together."""
        moment = now or datetime.now(UTC)
        self.store.put(resource, search_tokens(resource, self.validator), format_instant(moment))
        for listener in self.change_listeners:
            listener(resource, operation, moment.strftime("%Y-%m-%dT%H:%M:%SZ"))

    def load(self, resources: list[dict[str, Any]], *, now: datetime | None = None) -> None:
        """Store seed data: no notifications, one transaction. A resource's time of change is its
        meta.lastUpdated when it has one, else now."""
        moment = format_instant(now or datetime.now(UTC))
        with self.store.transaction():
            for resource in resources:
                self.store.put(resource, search_tokens(resource, self.validator), _last_updated(resource) or moment)


def _last_updated(resource: dict[str, Any]) -> str | None:
    meta = resource.get("meta")
    stamp = meta.get("lastUpdated") if isinstance(meta, dict) else None
    try:
        return format_instant(datetime.fromisoformat(stamp)) if isinstance(stamp, str) else None
    except ValueError:
        return None


SERVICE = web.AppKey("service", Service)
