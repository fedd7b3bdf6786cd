"""The suite's back-off after a 429 (conformance/client/backoff.py): shared by every thread of an Api, as Retry-After
says, else the suite's own, doubling up to a bound; a request still refused after its attempts is not exercised. That a
429 without Retry-After then fails ERIS-ERR-307 alone is the self-test's (fault retry-after-missing-in-a-window,
tests/conformance/test_selftest.py MET_ON_THE_WAY)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, ClassVar, cast

import pytest
from handler_servers import serving_handler

from conformance.client.backoff import ATTEMPTS, GatewayBackoff
from conformance.client.traffic import Traffic
from conformance.configuration.settings import MAX_BACKOFF
from conformance.configuration.target import Target
from conformance.harness.plugin import Api, Bounds

if TYPE_CHECKING:
    from profiles.validator import Validator


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


def _backoff(first: float = 1.0) -> tuple[GatewayBackoff, _Clock]:
    clock = _Clock()
    return GatewayBackoff(first, clock=clock, sleep=clock.sleep), clock


def test_without_retry_after_the_wait_doubles_with_each_429_in_a_row_up_to_the_bound():
    backoff, _ = _backoff()
    waits = [backoff.refused(None) for _ in range(8)]
    assert waits == [1, 2, 4, 8, 16, MAX_BACKOFF, MAX_BACKOFF, MAX_BACKOFF]
    backoff.answered()
    assert backoff.refused(None) == 1  # an answer let through starts the doubling over


def test_a_retry_after_is_waited_as_it_says_within_the_bound():
    backoff, clock = _backoff()
    assert backoff.refused(3.0) == 3.0
    assert backoff.wait() == 3.0 and clock.slept == [3.0]
    assert backoff.refused(3600.0) == MAX_BACKOFF


def test_no_request_is_sent_before_the_latest_back_off_of_any_429_is_over():
    backoff, clock = _backoff()
    assert backoff.wait() == 0 and clock.slept == []
    backoff.refused(5.0)
    clock.now += 2.0
    backoff.refused(None)  # a shorter back-off met meanwhile does not cut the longer one short
    assert backoff.wait() == 3.0


class _Gateway(BaseHTTPRequestHandler):
    """Answers 429 without Retry-After to every request until `opens` (time.monotonic()), then 200; a path under
    /never/ is refused always."""

    opens: ClassVar[float] = 0.0
    lock = threading.Lock()
    sent: ClassVar[list[tuple[str, float, int]]] = []

    def do_GET(self) -> None:
        cls = type(self)
        now = time.monotonic()
        status = 429 if now < cls.opens or self.path.startswith("/never/") else 200
        with cls.lock:
            cls.sent.append((self.path, now, status))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def gateway() -> type[_Gateway]:
    return cast("type[_Gateway]", type("Gateway", (_Gateway,), {"sent": [], "lock": threading.Lock()}))


def _api(url: str, backoff: float) -> Api:
    validator = cast("Validator", None)  # nothing here is validated
    return Api(Target(base_url=url), validator, Traffic(), bounds=Bounds(concurrency=4, backoff=backoff))


def test_after_a_429_without_retry_after_no_thread_sends_before_the_back_off_is_over(gateway: type[_Gateway]):
    """A field run waited out each 429 in the thread that met it only, one second three times: the other requests
    went on meeting the gateway, and four requirements failed on the 429s that followed."""

    def later() -> int:
        time.sleep(0.1)  # after the first request met its 429
        return api.request("GET", "/read/later").status_code

    with serving_handler(gateway) as url:
        api = _api(url, backoff=0.5)
        try:
            gateway.opens = time.monotonic() + 0.3
            answers = api.concurrently([lambda: api.request("GET", "/read/first").status_code, later])
        finally:
            api.close()
    assert answers == [200, 200]
    (refused_path, refused_at, _), *rest = gateway.sent
    assert refused_path == "/read/first" and [status for *_, status in rest] == [200, 200], gateway.sent
    sent_later = next(at for path, at, _ in rest if path == "/read/later")
    assert sent_later - refused_at >= 0.45  # held back by the other thread's 429


def test_a_request_refused_at_every_attempt_is_not_exercised_and_says_why(gateway: type[_Gateway]):
    with serving_handler(gateway) as url:
        api = _api(url, backoff=0.01)
        try:
            with pytest.raises(pytest.skip.Exception) as skipped:
                api.request("GET", "/never/answered")
        finally:
            api.close()
    assert len(gateway.sent) == ATTEMPTS
    message = str(skipped.value)
    assert f"GET /never/answered was answered 429 {ATTEMPTS} times in a row" in message
    assert "without Retry-After 0.01 s, doubling" in message and "--backoff" in message
