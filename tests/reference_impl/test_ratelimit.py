"""The gateway rate limit: token buckets per client and the 429 answer."""

import asyncio
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from reference_impl.auth import auth_middleware
from reference_impl.problems import PROBLEM_JSON, STATUS_TYPES, TITLES
from reference_impl.ratelimit import RateLimiter, rate_limit_middleware
from reference_impl.tokens import ApplicationKeys, TokenVerifier, mint_token


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


# --- the limiter ----------------------------------------------------------------------------------


def test_burst_passes_then_the_next_request_waits(clock):
    limiter = RateLimiter(rate_per_second=2, burst=3, clock=clock)
    assert [limiter.check("a") for _ in range(3)] == [None, None, None]
    assert limiter.check("a") == pytest.approx(0.5)


def test_clients_have_separate_buckets(clock):
    limiter = RateLimiter(rate_per_second=1, burst=1, clock=clock)
    assert limiter.check("a") is None
    assert limiter.check("a") is not None
    assert limiter.check("b") is None


def test_bucket_refills_at_the_rate(clock):
    limiter = RateLimiter(rate_per_second=2, burst=2, clock=clock)
    assert limiter.check("a") is None
    assert limiter.check("a") is None
    assert limiter.check("a") == pytest.approx(0.5)
    clock.advance(0.25)
    assert limiter.check("a") == pytest.approx(0.25)
    clock.advance(0.25)
    assert limiter.check("a") is None
    clock.advance(60)
    assert [limiter.check("a") for _ in range(3)][:2] == [None, None]


def test_rejected_requests_take_no_tokens(clock):
    limiter = RateLimiter(rate_per_second=1, burst=1, clock=clock)
    assert limiter.check("a") is None
    for _ in range(10):
        assert limiter.check("a") is not None
    clock.advance(1)
    assert limiter.check("a") is None


def test_idle_buckets_are_dropped(clock):
    limiter = RateLimiter(rate_per_second=10, burst=5, clock=clock)
    for client in range(1000):
        limiter.check(f"client-{client}")
    assert len(limiter) == 1000
    clock.advance(0.5)  # burst / rate: every bucket is full again
    limiter.check("newcomer")
    assert len(limiter) == 1


def test_buckets_in_use_are_kept(clock):
    limiter = RateLimiter(rate_per_second=10, burst=5, clock=clock)
    limiter.check("old")
    clock.advance(0.4)
    limiter.check("recent")
    clock.advance(0.2)
    limiter.check("now")
    assert len(limiter) == 2


def test_client_count_is_capped(clock):
    limiter = RateLimiter(rate_per_second=1, burst=1, clock=clock, max_clients=100)
    for client in range(1000):
        limiter.check(f"client-{client}")
    assert len(limiter) == 100
    assert limiter.check("client-999") is not None  # the most recent buckets are the ones kept


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (float("nan"), 1), (float("inf"), 1), (1, 0)])
def test_invalid_settings_are_refused(rate, burst):
    with pytest.raises(ValueError):
        RateLimiter(rate_per_second=rate, burst=burst)


# --- the middleware -------------------------------------------------------------------------------


async def _ok(request: web.Request) -> web.Response:
    return web.json_response({})


def _app(limiter, verifier=None) -> web.Application:
    middlewares = [] if verifier is None else [auth_middleware(verifier)]
    app = web.Application(middlewares=[*middlewares, rate_limit_middleware(limiter)])
    app.router.add_get("/v1/parties", _ok)
    return app


def _statuses(app, requests):
    """Send `requests` (Authorization values, None for none) in order; the responses' status and headers."""

    async def run():
        answers = []
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            for authorization in requests:
                headers = {} if authorization is None else {"Authorization": authorization}
                async with client.get("/v1/parties", headers=headers) as response:
                    answers.append((response.status, response.headers.copy(), await response.json(content_type=None)))
        return answers

    return asyncio.run(run())


def test_over_the_limit_gives_429_with_retry_after(clock):
    limiter = RateLimiter(rate_per_second=0.1, burst=3, clock=clock)
    answers = _statuses(_app(limiter), [None] * 4)
    assert [status for status, _, _ in answers] == [200, 200, 200, 429]
    _, headers, body = answers[-1]
    assert headers["Retry-After"] == "10"
    assert headers["Content-Type"].startswith(PROBLEM_JSON)
    assert body["type"] == STATUS_TYPES[429]
    assert body["title"] == TITLES[429]
    assert body["status"] == 429
    assert "rate limit" in body["detail"]


def test_retry_after_is_at_least_one_second(clock):
    limiter = RateLimiter(rate_per_second=1000, burst=1, clock=clock)
    answers = _statuses(_app(limiter), [None, None])
    assert answers[-1][0] == 429
    assert answers[-1][1]["Retry-After"] == "1"


def test_refilled_bucket_lets_requests_through_again(clock):
    limiter = RateLimiter(rate_per_second=1, burst=1, clock=clock)
    assert [status for status, _, _ in _statuses(_app(limiter), [None, None])] == [200, 429]
    clock.advance(1)
    assert [status for status, _, _ in _statuses(_app(limiter), [None])] == [200]


def test_token_subjects_are_limited_separately_from_their_address(clock):
    keys = ApplicationKeys.generate()
    verifier = TokenVerifier({keys.key_id: keys.public_key})

    def bearer(subject):
        return "Bearer " + mint_token(keys.private_key, subject=subject, rights=(), key_id=keys.key_id, now=time.time())

    limiter = RateLimiter(rate_per_second=0.1, burst=1, clock=clock)
    answers = _statuses(
        _app(limiter, verifier), [bearer("alice"), bearer("alice"), bearer("bob"), None, None, "Bearer garbage"]
    )
    # alice: 200 then 429; bob has his own bucket; the anonymous requests share the address bucket,
    # which an invalid token on an unprotected endpoint falls back to.
    assert [status for status, _, _ in answers] == [200, 429, 200, 200, 429, 429]
