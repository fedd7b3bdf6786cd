"""The suite's back-off from the target's gateway: "429 | gateway limit exceeded; back off according to the
`Retry-After` header" (ERIS-ERR-307).

A gateway limits a client, not a thread: one back-off serves every thread of an Api, so that after any 429 the next
request of any thread waits. A 429 with a readable Retry-After is waited out as it says (at most MAX_BACKOFF
seconds); one without is waited out by the suite's own back-off, which doubles with each 429 in a row, up to
MAX_BACKOFF. The missing header is ERIS-ERR-307's defect alone: the suite still backs off, and the requests after
it are not refused for want of a pause (a field run that retried after one second three times failed four more
requirements on the 429s that followed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from conformance.configuration.settings import DEFAULT_BACKOFF, MAX_BACKOFF

__all__ = ["ATTEMPTS", "GatewayBackoff", "backoff_text"]

ATTEMPTS = 7
"""Sends of one request at most while it is answered 429: from a back-off of 1 s, the waits between them are 1, 2,
4, 8, 16 and 30 s, a minute in all, longer than the windows of the gateway quotas met in the field."""


def backoff_text(first: float) -> str:
    """The back-off in words, as the certification reports it."""
    return (
        f"after a 429 the next request waits as its Retry-After says (at most {MAX_BACKOFF:g} s); without "
        f"Retry-After {first:g} s, doubling with each 429 in a row up to {MAX_BACKOFF:g} s; a request is sent "
        f"{ATTEMPTS} times at most while answered 429"
    )


class GatewayBackoff:
    """When the next request may be sent, after the 429s met by any thread (`refused`), and how long the next
    back-off without Retry-After is; an answer other than 429 (`answered`) starts the doubling over."""

    def __init__(
        self,
        first: float = DEFAULT_BACKOFF,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.first = first
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._not_before = 0.0
        self._in_a_row = 0

    def wait(self) -> float:
        """Sleep until a request may be sent; the seconds slept."""
        slept = 0.0
        while True:
            with self._lock:
                left = self._not_before - self._clock()
            if left <= 0:
                return slept
            self._sleep(left)  # outside the lock: the other threads wait too, and may push the moment later
            slept += left

    def refused(self, retry_after: float | None) -> float:
        """A 429 was answered, with `retry_after` seconds read from its Retry-After header (None: none readable).
        No request is sent before the wait it returns is over."""
        with self._lock:
            self._in_a_row += 1
            if retry_after is not None:
                wait = min(MAX_BACKOFF, max(0.0, retry_after))
            else:
                wait = min(MAX_BACKOFF, self.first * 2 ** min(self._in_a_row - 1, 32))
            self._not_before = max(self._not_before, self._clock() + wait)
            return wait

    def answered(self) -> None:
        """An answer other than 429: the gateway let a request through."""
        with self._lock:
            self._in_a_row = 0
