"""Requests of a test that do not depend on each other, sent at once (`Api.concurrently`,
conformance/client/concurrent_calls.py): results and the first failure in call order, exchanges and findings handed to
the test in call order, a 429 waited out, at most N in flight on a small threaded server. That the concurrency never
changes a verdict is tests/conformance/test_round_trip.py's (one certification for the workers and the concurrency)."""

from __future__ import annotations

import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, ClassVar, cast
from urllib.parse import urlsplit

import pytest
from handler_servers import serving_handler
from project_paths import eris_command

from conformance.client.concurrent_calls import in_order
from conformance.client.traffic import Exchange, Traffic
from conformance.configuration.settings import DEFAULT_CONCURRENCY
from conformance.configuration.target import Target
from conformance.evidence.outcomes import Findings
from conformance.harness.plugin import Api, Bounds, not_exercised, side_finding

if TYPE_CHECKING:
    from profiles.validator import Validator

PAUSE = 0.05
"""Seconds the stand-in server holds each answer: long enough that calls sent at once overlap there."""


def _exchange(name: str) -> Exchange:
    return Exchange("outbound", time.time(), 0.0, "GET", name, {}, "", 0, 200, {}, "", 0)


def _threads(count: int) -> ThreadPoolExecutor:
    """An executor of `count` threads, as Api keeps one (its threads end with the test process)."""
    return ThreadPoolExecutor(max_workers=count, thread_name_prefix="test-call")


def _traffic_urls(traffic: Traffic) -> list[str]:
    return [exchange.url for exchange in traffic.take()]


# -- the order of results, failures, exchanges and findings ------------------------------------------------------


def test_results_exchanges_and_findings_come_back_in_call_order_whatever_finishes_first():
    traffic, test = Traffic(), Findings()

    def call(position: int) -> int:
        time.sleep((5 - position) * 0.02)  # the last call finishes first
        traffic.record(_exchange(f"call {position}"))
        assert side_finding("ERIS-READ-001", f"met in call {position}")
        return position * 10

    results = in_order([lambda p=p: call(p) for p in range(5)], threads=_threads(5), traffic=traffic, test=test)

    assert results == [0, 10, 20, 30, 40]
    assert _traffic_urls(traffic) == [f"call {p}" for p in range(5)]
    assert test.found == {"ERIS-READ-001": [f"met in call {p}" for p in range(5)]}


def test_the_first_failure_in_call_order_is_raised_though_a_later_one_came_first():
    traffic = Traffic()

    def slow_failure() -> None:
        time.sleep(0.2)
        raise AssertionError("the first call's check")

    def quick_failure() -> None:
        raise AssertionError("the second call's check")

    with pytest.raises(AssertionError, match="the first call's check"):
        in_order([lambda: None, slow_failure, quick_failure], threads=_threads(3), traffic=traffic, test=Findings())


def test_no_call_after_a_failure_starts_and_a_skip_in_a_thread_reaches_the_test():
    started: list[int] = []

    def call(position: int) -> None:
        started.append(position)
        if position == 1:
            not_exercised("the data looked for is not served", exercise="a [data] entry")
        time.sleep(0.05)

    with pytest.raises(pytest.skip.Exception, match="the data looked for is not served"):
        in_order([lambda p=p: call(p) for p in range(20)], threads=_threads(2), traffic=Traffic(), test=Findings())
    # calls 0 and 1 run together; 2 may have started as 1 failed; the rest never start
    assert set(started) <= {0, 1, 2} and {0, 1} <= set(started)


def test_one_at_a_time_and_calls_inside_a_call_run_in_the_calling_thread():
    here = threading.get_ident()
    assert in_order([threading.get_ident] * 3, threads=None, traffic=Traffic(), test=None) == [here] * 3

    def nested() -> list[int]:
        inner_thread = threading.get_ident()
        inner = in_order([threading.get_ident] * 3, threads=_threads(4), traffic=Traffic(), test=None)
        assert inner == [inner_thread] * 3  # the bound holds for the whole test: no second pool
        return inner

    outer = in_order([nested, nested], threads=_threads(2), traffic=Traffic(), test=None)
    assert here not in {thread for inner in outer for thread in inner}


# -- against a small threaded server ---------------------------------------------------------------------------


class _CountingHandler(BaseHTTPRequestHandler):
    """Holds each answer PAUSE seconds and counts the requests in flight; the first request of a path under
    /limited/ is answered 429 with Retry-After: 1."""

    lock = threading.Lock()
    in_flight = 0
    most = 0
    limited: ClassVar[set[str]] = set()
    arrivals: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        cls = type(self)
        with cls.lock:
            cls.in_flight += 1
            cls.most = max(cls.most, cls.in_flight)
            first_of_limited = self.path.startswith("/limited/") and self.path not in cls.limited
            cls.limited.add(self.path)
            cls.arrivals.append(self.path)
        time.sleep(PAUSE)
        with cls.lock:  # no longer in flight before the answer: once it is sent, its client may send the next
            cls.in_flight -= 1
        status = 429 if first_of_limited else 200
        self.send_response(status)
        if first_of_limited:
            self.send_header("Retry-After", "1")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


def _api(url: str, concurrency: int) -> Api:
    validator = cast("Validator", None)  # nothing here is validated
    return Api(Target(base_url=url), validator, Traffic(), bounds=Bounds(concurrency=concurrency))


@pytest.fixture
def counting() -> type[_CountingHandler]:
    fresh = {"lock": threading.Lock(), "in_flight": 0, "most": 0, "limited": set(), "arrivals": []}  # this test's only
    return cast("type[_CountingHandler]", type("Counting", (_CountingHandler,), fresh))


@pytest.mark.parametrize("concurrency", [1, 3])
def test_at_most_n_requests_are_in_flight(counting: type[_CountingHandler], concurrency: int):
    with serving_handler(counting) as url:
        api = _api(url, concurrency)
        try:
            paths = [f"/page/{n}" for n in range(12)]
            answers = api.concurrently([lambda path=path: api.request("GET", path) for path in paths])
        finally:
            api.close()
    assert [urlsplit(str(answer.url)).path for answer in answers] == paths
    assert counting.most == concurrency
    assert [urlsplit(url).path for url in _traffic_urls(api.traffic)] == paths


def test_each_thread_sends_through_a_client_of_its_own():
    """httpcore's pool, shared by threads, may close an idle connection another thread has just been given: a
    certification failed a MUST on that EBADF. The threads of `concurrently` therefore never share a client."""
    api = _api("http://127.0.0.1:9", 4)  # nothing is sent

    def client_of_this_thread() -> tuple[int, int]:
        time.sleep(0.05)
        return threading.get_ident(), id(api.client)

    try:
        used = api.concurrently([client_of_this_thread] * 4)
    finally:
        api.close()
    threads, clients = {thread for thread, _ in used}, {client for _, client in used}
    assert len(threads) > 1 and len(clients) == len(threads) == len(set(used))  # one client to each thread
    assert id(api.client) not in clients  # the test's own thread keeps the first client


def test_a_429_is_waited_out_by_its_own_request_with_its_retry_after(counting: type[_CountingHandler]):
    with serving_handler(counting) as url:
        api = _api(url, DEFAULT_CONCURRENCY)
        try:
            started = time.monotonic()
            paths = ["/limited/a", "/free/b", "/limited/c"]
            answers = api.concurrently([lambda path=path: api.request("GET", path) for path in paths])
            took = time.monotonic() - started
        finally:
            api.close()
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert took >= 1.0  # the Retry-After was waited out
    # both limited requests were refused before either was sent again: they waited at once, not one after the other
    arrivals = counting.arrivals
    assert sorted(arrivals) == ["/free/b", "/limited/a", "/limited/a", "/limited/c", "/limited/c"]
    refused = [arrivals.index("/limited/a"), arrivals.index("/limited/c")]
    again = [len(arrivals) - 1 - arrivals[::-1].index(path) for path in ("/limited/a", "/limited/c")]
    assert max(refused) < min(again), arrivals
    recorded = [(urlsplit(e.url).path, e.status) for e in api.traffic.take()]
    assert recorded == [
        ("/limited/a", 429),
        ("/limited/a", 200),
        ("/free/b", 200),
        ("/limited/c", 429),
        ("/limited/c", 200),
    ]


def test_a_concurrency_below_one_is_refused_in_one_line(tmp_path):
    done = subprocess.run(
        [*eris_command(), "certify", "--report-dir", str(tmp_path), "--concurrency", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "eris: --concurrency must be 1 or more, not 0"
