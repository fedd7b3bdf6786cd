"""Placing a report order (POST /v1/reports) as an integrator does: one call, 429 honoured."""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

__all__ = ["OrderAccepted", "OrderRefused", "place_order", "retry_after_seconds"]

MAX_RETRY_AFTER = 120.0


@dataclass(frozen=True)
class OrderAccepted:
    execution_id: str
    sealed_session_key: bytes


class OrderRefused(Exception):
    """The service did not accept the order; `status` and `detail` say why."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"the service answered {status}: {detail}")
        self.status = status
        self.detail = detail


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); None if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, moment - (time.time() if now is None else now))


def place_order(
    base_url: str,
    token: str | None,
    order: Mapping[str, Any],
    *,
    client: httpx.Client | None = None,
    attempts_on_429: int = 5,
    sleep: Callable[[float], None] = time.sleep,
) -> OrderAccepted:
    """POST the order; on 429 wait as Retry-After says (at most MAX_RETRY_AFTER s) and try again.
    Raises OrderRefused for any other answer than 202, or a 202 without the two fields."""
    url = base_url.rstrip("/") + "/v1/reports"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    own = client is None
    client = client or httpx.Client(timeout=30.0)
    try:
        for attempt in range(1, attempts_on_429 + 1):
            answer = client.post(url, json=dict(order), headers=headers)
            if answer.status_code != 429 or attempt == attempts_on_429:
                break
            wait = retry_after_seconds(answer.headers.get("Retry-After"))
            sleep(min(MAX_RETRY_AFTER, 1.0 if wait is None else wait))
    finally:
        if own:
            client.close()
    if answer.status_code != 202:
        raise OrderRefused(answer.status_code, _detail(answer))
    return _accepted(answer)


def _accepted(answer: httpx.Response) -> OrderAccepted:
    try:
        body = answer.json()
        execution_id, sealed = body["executionId"], body["encryptedSessionKey"]
        if not isinstance(execution_id, str) or not isinstance(sealed, str):
            raise TypeError
        return OrderAccepted(execution_id, base64.b64decode(sealed, validate=True))
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise OrderRefused(
            202, f"the answer is not {{executionId, encryptedSessionKey (base64)}}: {answer.text[:300]}"
        ) from None


def _detail(answer: httpx.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return answer.text[:300] or answer.reason_phrase
    if isinstance(body, dict):
        return str(body.get("detail") or body.get("title") or body)[:500]
    return str(body)[:300]
