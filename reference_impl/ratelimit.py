"""The gateway rate limit: a token bucket per client, 429 with Retry-After when it is empty.

The contract says a gateway limit exists and that exceeding it gives 429 with a `Retry-After` header;
the quota is "not shown", so rate and burst are settings of the server.

A client is the subject of its verified token when the request carries one, else the peer address.
Behind a reverse proxy the peer is the proxy: let the proxy limit, or have a middleware placed before
this one rewrite `request.remote` from a trusted forwarding header.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware

from .auth import claims_of
from .problems import problem

__all__ = ["RateLimiter", "client_of", "rate_limit_middleware", "refusal_limit_middleware"]


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated_at: float


class RateLimiter:
    """Token buckets per client: `burst` requests at once, refilled at `rate_per_second`.

    Memory stays bounded: a bucket idle long enough to have refilled completely is the same as no
    bucket and is dropped, and at most `max_clients` buckets are kept (the least recently seen goes
    first, which at worst lets that client start again from a full bucket).
    """

    def __init__(
        self,
        rate_per_second: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_clients: int = 100_000,
    ) -> None:
        if not rate_per_second > 0 or not math.isfinite(rate_per_second):
            raise ValueError("rate_per_second must be a positive number")
        if burst < 1:
            raise ValueError("burst must be at least 1")
        if max_clients < 1:
            raise ValueError("max_clients must be at least 1")
        self.rate_per_second = rate_per_second
        self.burst = burst
        self._clock = clock
        self._max_clients = max_clients
        self._refill_seconds = burst / rate_per_second
        # Least recently seen first: idle buckets are found at the front without a scan.
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def check(self, client: str) -> float | None:
        """Take one token for `client`: None when the request may pass, else the seconds to wait."""
        bucket = self._refilled(client)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return (1.0 - bucket.tokens) / self.rate_per_second

    def waiting(self, client: str) -> float | None:
        """What `check` would answer, without taking a token."""
        bucket = self._refilled(client)
        return None if bucket.tokens >= 1.0 else (1.0 - bucket.tokens) / self.rate_per_second

    def _refilled(self, client: str) -> _Bucket:
        now = self._clock()
        self._drop_idle(now)
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(tokens=float(self.burst), updated_at=now)
            if len(self._buckets) > self._max_clients:
                self._buckets.popitem(last=False)
        else:
            elapsed = max(0.0, now - bucket.updated_at)
            bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate_per_second)
            bucket.updated_at = now
            self._buckets.move_to_end(client)
        return bucket

    def _drop_idle(self, now: float) -> None:
        while self._buckets:
            oldest = next(iter(self._buckets.values()))
            if now - oldest.updated_at < self._refill_seconds:
                return
            self._buckets.popitem(last=False)


def client_of(request: web.Request) -> str:
    """The rate-limit identity of a request: its token subject, else its peer address."""
    claims = claims_of(request)
    if claims is not None:
        return f"subject:{claims.subject}"
    return f"address:{request.remote or 'unknown'}"


def rate_limit_middleware(limiter: RateLimiter, *, applies: Callable[[web.Request], bool] | None = None) -> Middleware:
    """Answers 429 Problem Details with `Retry-After` (whole seconds, at least 1) over the limit; only for the
    requests `applies` names, when given.

    Order: after `auth_middleware`, which puts the claims this middleware keys on, so
    `web.Application(middlewares=[auth_middleware(...), rate_limit_middleware(...)])`. Requests the
    auth middleware refuses with 401 never reach the limiter.
    """

    @web.middleware
    async def limit_rate(request: web.Request, handler: Handler) -> web.StreamResponse:
        if applies is not None and not applies(request):
            return await handler(request)
        wait = limiter.check(client_of(request))
        if wait is None:
            return await handler(request)
        return _too_many(wait)

    return limit_rate


def refusal_limit_middleware(limiter: RateLimiter) -> Middleware:
    """Requests refused with 401 are limited per peer address, before anything is verified: a flood of missing or
    bad tokens gets 429 once the address's bucket is empty, though it never reaches `rate_limit_middleware`
    (keyed on verified subjects, after authentication). Requests that authenticate take nothing from it.

    Order: before `auth_middleware`."""

    @web.middleware
    async def limit_refusals(request: web.Request, handler: Handler) -> web.StreamResponse:
        client = f"address:{request.remote or 'unknown'}"
        wait = limiter.waiting(client)
        if wait is not None:
            return _too_many(wait)
        response = await handler(request)
        if response.status == 401:
            limiter.check(client)
        return response

    return limit_refusals


def _too_many(wait: float) -> web.Response:
    retry_after = max(1, math.ceil(wait))
    return problem(
        429,
        f"the gateway rate limit is exceeded; retry after {retry_after} s",
        headers={hdrs.RETRY_AFTER: str(retry_after)},
    )
