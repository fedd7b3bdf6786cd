"""The receiver as the suite's tests use it (`SuiteReceiver`): the local HTTP receiver of report deliveries and
notifications (reports/receiver.py), or, when the target cannot reach its address, one whose waits skip the test
as not exercised (`UnreachableReceiver`); and the move of what it received into the run's traffic
(`RecordedReceiver`), so that traffic.har shows what the target sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from conformance.client.recording import not_exercised
from conformance.client.traffic import Traffic

if TYPE_CHECKING:
    from reports.receipts import Delivery
    from reports.receiver import Receiver

__all__ = ["RECEIVER_EXERCISE", "RecordedReceiver", "SuiteReceiver", "UnreachableReceiver"]


class RecordedReceiver:
    """Moves the receiver's inbound exchanges into the run's traffic as tests finish."""

    def __init__(self, receiver: Receiver, traffic: Traffic) -> None:
        self.receiver = receiver
        self.traffic = traffic
        self.seen = 0

    def collect(self) -> None:
        exchanges = self.receiver.exchanges()
        for exchange in exchanges[self.seen :]:
            self.traffic.inbound(
                started=exchange.started,
                duration=exchange.duration,
                method=exchange.method,
                url=exchange.url,
                request_headers=exchange.request_headers,
                request_body=exchange.request_body
                if exchange.request_body is not None
                else _delivered(self.receiver, exchange.url, exchange.request_body_size),
                request_body_size=exchange.request_body_size,
                status=exchange.status,
                response_headers=exchange.response_headers,
                response_body=exchange.response_body,
            )
        self.seen = len(exchanges)


def _delivered(receiver: Receiver, url: str, size: int) -> bytes | None:
    """The artifact an inbound exchange delivered (the receiver keeps it on disk): in traffic.har, so that `eris
    verify` delivers it again."""
    name = url.rstrip("/").rpartition("/")[2]
    found = [delivery for delivery in receiver.deliveries(name) if delivery.size == size]
    try:
        return found[-1].path.read_bytes() if found else None
    except OSError:
        return None


RECEIVER_EXERCISE = (
    "[receiver] host and port of this machine that the target can reach, or public_url (the address the target "
    "sees, a tunnel) in the target description"
)


class SuiteReceiver(Protocol):
    """The `receiver` fixture as the tests use it: a reports.receiver.Receiver, or one the target cannot reach
    (whose waits skip the test as not exercised)."""

    @property
    def url(self) -> str: ...

    @property
    def notification_url(self) -> str: ...

    def delivery_url(self, name: str) -> str: ...

    def notifications(self) -> list[dict[str, Any]]: ...

    def wait_for_delivery(self, name: str, timeout: float) -> Delivery: ...

    def wait_for_notification(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]: ...


class UnreachableReceiver:
    """The receiver, at an address the target cannot reach: an order still names it (a refusal needs no delivery),
    but a wait for what the target sends there is not exercised, never the target's failure."""

    def __init__(self, receiver: Receiver, reason: str) -> None:
        self._receiver = receiver
        self._reason = reason

    @property
    def url(self) -> str:
        return self._receiver.url

    @property
    def notification_url(self) -> str:
        return self._receiver.notification_url

    def delivery_url(self, name: str) -> str:
        return self._receiver.delivery_url(name)

    def notifications(self) -> list[dict[str, Any]]:
        return self._receiver.notifications()

    def wait_for_delivery(self, name: str, timeout: float) -> NoReturn:
        not_exercised(self._reason, exercise=RECEIVER_EXERCISE)

    def wait_for_notification(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> NoReturn:
        not_exercised(self._reason, exercise=RECEIVER_EXERCISE)
