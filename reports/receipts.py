"""What the receiver has received: saved deliveries, notifications, every answered exchange, and blocking waits
for them. Written by the receiver's event-loop thread, read and waited on from synchronous callers."""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "NAME_PATTERN",
    "Delivery",
    "InboundExchange",
    "ReceiptLog",
    "check_delivery_name",
    "is_valid_delivery_name",
]

NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,200}")
"""Delivery names: one safe path segment. The length cap leaves room for the ``.N`` of repeats within the
255-byte file-name limit of common file systems."""


@dataclass(frozen=True)
class Delivery:
    """One artifact received and saved complete.

    ``headers`` are the request headers, names in lower case; repeated headers are joined with ", ".
    """

    name: str
    path: Path
    size: int
    sha256: str
    headers: dict[str, str]
    received_at: float


@dataclass(frozen=True)
class InboundExchange:
    """One request the receiver answered, with its answer: the material of a HAR log.

    ``request_body`` is kept for notifications only (small JSON); artifacts are on disk, so theirs is None.
    ``request_body_size`` is the number of bytes the receiver read, or, for a body it did not read (a 404 or
    405), the declared Content-Length, -1 when none was declared. Header names are in lower case.
    """

    started: float
    duration: float
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes | None
    request_body_size: int
    status: int
    response_headers: dict[str, str]
    response_body: bytes


def is_valid_delivery_name(name: str) -> bool:
    """Whether ``name`` can name a delivery: one path segment of [A-Za-z0-9._-], neither "." nor ".."."""
    return isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None and name not in {".", ".."}


def check_delivery_name(name: str) -> None:
    if not is_valid_delivery_name(name):
        raise ValueError(
            f"invalid delivery name {name!r}: use 1 to 200 characters of A-Z, a-z, 0-9, '.', '_', '-' (not '.' or '..')"
        )


class ReceiptLog:
    """Everything received, guarded by one condition: the waits sleep on it until the receiver records something.

    Also holds the failures the receiver was told to simulate (`fail_next`), since a handler takes one under the
    same lock as it records."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._deliveries: list[Delivery] = []
        self._notifications: list[dict[str, Any]] = []
        self._exchanges: list[InboundExchange] = []
        self._failures_left = 0
        self._failure_status = 500

    # Recording (event-loop thread)

    def add_delivery(self, delivery: Delivery) -> None:
        with self._condition:
            self._deliveries.append(delivery)
            self._condition.notify_all()

    def add_notification(self, notification: dict[str, Any]) -> None:
        with self._condition:
            self._notifications.append(notification)
            self._condition.notify_all()

    def add_exchange(self, exchange: InboundExchange) -> None:
        with self._condition:
            self._exchanges.append(exchange)

    def take_failure(self) -> int | None:
        """The status to answer the current request with instead of serving it, or None to serve it."""
        with self._condition:
            if self._failures_left <= 0:
                return None
            self._failures_left -= 1
            return self._failure_status

    # Reading and waiting (any thread)

    def deliveries(self, name: str | None = None) -> list[Delivery]:
        with self._condition:
            return [delivery for delivery in self._deliveries if name is None or delivery.name == name]

    def wait_for_delivery(self, name: str, timeout: float, url: str) -> Delivery:
        with self._condition:
            if not self._condition.wait_for(lambda: any(d.name == name for d in self._deliveries), timeout):
                received = sorted({delivery.name for delivery in self._deliveries})
                raise TimeoutError(
                    f"no report delivery arrived at {url} within {timeout:g} s "
                    f"(deliveries received under other names: {', '.join(received) or 'none'}; "
                    f"requests answered: {len(self._exchanges)})"
                )
            return next(delivery for delivery in self._deliveries if delivery.name == name)

    def notifications(self) -> list[dict[str, Any]]:
        with self._condition:
            return copy.deepcopy(self._notifications)

    def wait_for_notification(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, url: str
    ) -> dict[str, Any]:
        matched: list[dict[str, Any]] = []
        examined = 0

        def found() -> bool:
            # Each notification goes through the predicate once, however often the condition wakes up.
            nonlocal examined
            while examined < len(self._notifications):
                notification = self._notifications[examined]
                examined += 1
                if predicate(copy.deepcopy(notification)):
                    matched.append(notification)
                    return True
            return False

        with self._condition:
            if not self._condition.wait_for(found, timeout):
                raise TimeoutError(
                    f"no notification matching the predicate arrived at {url} within {timeout:g} s "
                    f"({len(self._notifications)} notifications received)"
                )
            return copy.deepcopy(matched[0])

    def exchanges(self) -> list[InboundExchange]:
        with self._condition:
            return list(self._exchanges)

    def fail_next(self, count: int, status: int) -> None:
        if count < 0:
            raise ValueError(f"count must be 0 or more, got {count}")
        if not 400 <= status <= 599:
            raise ValueError(f"a failure status must be 4xx or 5xx, got {status}")
        with self._condition:
            self._failures_left = count
            self._failure_status = status
