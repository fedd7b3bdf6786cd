"""What every delivery target shares: the refusals of an order's storage, the failure of one attempt, the
interface of a target."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

__all__ = ["DeliveryFailed", "DeliveryTarget", "StorageRefused"]


class StorageRefused(ValueError):
    """The order's storage cannot be used: its connectionString is malformed or leads outside the root."""


class DeliveryFailed(Exception):
    """One delivery attempt failed. `retryable`: worth trying again later (the receiver may recover)."""

    def __init__(self, reason: str, *, retryable: bool = True) -> None:
        super().__init__(reason)
        self.retryable = retryable


class DeliveryTarget(Protocol):
    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        """Deliver the artifact file, or raise DeliveryFailed."""
