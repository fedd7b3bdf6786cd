"""The suite as a careful client: every answer bounded in time and in size, whatever the target sends, and a run
that ends when the target stops answering, with its outputs written. Real servers on loopback
(tests/conformance/hostile_targets.py), and `eris certify` as a user runs it; the limits are small here to keep the
tests fast (bench/bounded_run.py measures the defaults against gigabytes)."""

from __future__ import annotations

import base64
import json
import subprocess
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from textwrap import dedent

import httpx
import pytest
from aiohttp import web
from hostile_targets import (
    REQUESTS,
    Handler,
    TricklingHead,
    bomb,
    gzip_bomb,
    hang,
    hostile_app,
    hostile_proxy,
    huge,
    served,
    trickle,
)
from project_paths import eris_command, run_certify
from serve_fixtures import RunningServer, running, seeded_settings

from conformance.catalogue.requirements import load_catalogue
from conformance.certification import certify, write_outputs
from conformance.client.bounded_http import KEPT, AnswerTooLarge, AnswerTooSlow, BoundedClient
from conformance.client.traffic import Exchange
from conformance.configuration.settings import DEFAULT_CONCURRENCY
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it
from conformance.harness.reachability import receiver_unreachable
from conformance.run.round_trip import PROBES

pytestmark = pytest.mark.slow  # each test here certifies against a hostile target

MiB = 1 << 20
LIMIT = MiB
BOMB = 64 * MiB
"""Inflated size of the gzip answers: 64 times the limit (bench/bounded_run.py serves 2 GiB)."""
TIMEOUT = 2.0
RUN_TIMEOUT = 240


# -- the client --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    answers = {"/huge": huge(200 * MiB), "/bomb": bomb(BOMB), "/trickle": trickle, "/hang": hang}
    with served(hostile_app(answers)) as server:
        yield server.url


@pytest.fixture
def client(hostile: str) -> Iterator[BoundedClient]:
    with BoundedClient(base_url=hostile, request_timeout=TIMEOUT, max_answer_size=LIMIT) as bounded:
        yield bounded


def _timed(client: BoundedClient, path: str, error: type[Exception]) -> tuple[Exception, float]:
    started = time.monotonic()
    with pytest.raises(error) as raised:
        client.get(path)
    return raised.value, time.monotonic() - started


def test_a_huge_answer_is_cut_at_the_limit(client):
    error, took = _timed(client, "/huge", AnswerTooLarge)
    assert "passed 1 MiB (--max-answer-size)" in str(error)
    assert error.response.status_code == 200 and error.received.startswith(b'{"items": ["xxx')
    assert took < TIMEOUT  # 200 MiB were on offer: about one was read


def _peak_of(client: BoundedClient, path: str) -> tuple[Exception, int]:
    """The error reading `path`, and the most memory Python held meanwhile."""
    tracemalloc.start()
    try:
        error, _ = _timed(client, path, AnswerTooLarge)
        return error, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gzip_answer_is_counted_after_decompression_and_never_inflates_past_the_limit(client):
    error, peak = _peak_of(client, "/bomb")
    assert "passed 1 MiB (--max-answer-size) once decompressed (gzip)" in str(error)
    assert peak < 8 * LIMIT, f"{peak / MiB:.1f} MiB held for an answer cut at 1 MiB"  # httpx alone: all 64 MiB


def _encoded(body: bytes, encoding: str) -> Handler:
    async def answer(request: web.Request) -> web.StreamResponse:
        assert request.headers["Accept-Encoding"] == "gzip, deflate"  # only what it inflates in bounded pieces
        return web.Response(body=body, headers={"Content-Type": "application/json", "Content-Encoding": encoding})

    return answer


def test_encodings_applied_twice_are_undone_in_bounded_pieces_too():
    twice = zlib.compress(gzip_bomb(64 * MiB))  # gzip, then deflate: 64 MiB from a few kilobytes
    with (
        served(hostile_app({"/twice": _encoded(twice, "gzip, deflate")})) as server,
        BoundedClient(base_url=server.url, max_answer_size=LIMIT) as bounded,
    ):
        error, peak = _peak_of(bounded, "/twice")
    assert "once decompressed (gzip, deflate)" in str(error)
    assert peak < 8 * LIMIT, f"{peak / MiB:.1f} MiB held for an answer cut at 1 MiB"


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_an_answer_within_the_limit_reads_as_httpx_reads_it(coding):
    document = json.dumps({"items": [{"id": str(n)} for n in range(2000)], "nextToken": None}).encode()
    wbits = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS, "raw-deflate": -zlib.MAX_WBITS}[coding]
    compressor = zlib.compressobj(6, zlib.DEFLATED, wbits)
    body = compressor.compress(document) + compressor.flush()
    with served(hostile_app({"/read": _encoded(body, "gzip" if coding == "gzip" else "deflate")})) as server:
        with BoundedClient(base_url=server.url, max_answer_size=len(document)) as bounded:
            answer = bounded.get("/read")
        plain = httpx.get(f"{server.url}/read", headers={"Accept-Encoding": "gzip, deflate"})
    assert answer.content == plain.content == document
    assert answer.json()["items"][-1] == {"id": "1999"}


def test_an_answer_that_trickles_is_cut_at_the_request_timeout(client):
    error, took = _timed(client, "/trickle", AnswerTooSlow)
    assert "the answer (200) was not complete within 2 s (--request-timeout)" in str(error)
    assert error.received and ENVELOPE_START.startswith(error.received)
    assert TIMEOUT <= took < TIMEOUT + 1.5  # a byte a second: each read alone is well within any read timeout


ENVELOPE_START = b'{"items": [], "nextToken": null}'


def test_a_head_that_trickles_is_cut_at_the_request_timeout():
    server = TricklingHead()
    try:
        with BoundedClient(base_url=server.url, request_timeout=TIMEOUT) as bounded:
            error, took = _timed(bounded, "/v1/parties", AnswerTooSlow)
    finally:
        server.stop()
    assert "no answer within 2 s (--request-timeout)" in str(error) and error.response is None
    assert took < TIMEOUT + 1.5


def test_no_answer_at_all_is_cut_at_the_request_timeout(client):
    error, took = _timed(client, "/hang", AnswerTooSlow)
    assert "no answer within 2 s" in str(error)
    assert took < TIMEOUT + 1.5


def test_a_read_timeout_shorter_than_the_request_timeout_stays_a_plain_timeout(hostile):
    with (
        BoundedClient(base_url=hostile, request_timeout=30, timeout=0.5) as bounded,
        pytest.raises(httpx.ReadTimeout) as raised,
    ):
        bounded.get("/hang")
    assert not isinstance(raised.value, AnswerTooSlow)


# -- the receiver --------------------------------------------------------------------------------------------------


def test_a_receiver_on_loopback_is_out_of_reach_of_a_target_on_another_machine():
    assert "cannot deliver there" in receiver_unreachable("http://127.0.0.1:8099", "https://192.0.2.10")
    assert "cannot deliver there" in receiver_unreachable("http://localhost:8099", "http://192.0.2.10:8080")
    assert "cannot deliver there" in receiver_unreachable("http://0.0.0.0:8099", "http://192.0.2.10:8080")
    assert receiver_unreachable("http://127.0.0.1:8099", "http://127.0.0.1:8080") is None
    assert receiver_unreachable("http://localhost:8099", "http://localhost:8080") is None
    assert receiver_unreachable("https://hooks.example.net/eris", "http://192.0.2.10") is None
    assert receiver_unreachable("http://127.0.0.1:8099", "http://no-such-host.invalid") is None  # not known: tried


# -- eris certify --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with running(seeded_settings(local_root=str(tmp_path_factory.mktemp("deliveries")))) as server:
        yield server


def _certify(target: str, out: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    arguments = ("--target", target, "--report-dir", str(out), "--examples", "0", "-q", *options)
    done = run_certify(*arguments, timeout=RUN_TIMEOUT, cwd=out.parent)
    return done, time.monotonic() - started


def _failed(out: Path) -> dict[str, str]:
    certification = json.loads((out / "certification.json").read_text())
    return {r["id"]: r["message"] for r in certification["requirements"] if r["status"] == "failed"}


COST_CENTERS = "/v1/cost-centers"


HOSTILE_ANSWERS = {
    "huge": (lambda: huge(200 * MiB), "passed 1 MiB (--max-answer-size)"),
    "gzip-bomb": (lambda: bomb(BOMB), "passed 1 MiB (--max-answer-size) once decompressed (gzip)"),
    "trickle": (lambda: trickle, "was not complete within 2 s (--request-timeout)"),
}


@pytest.mark.parametrize("kind", list(HOSTILE_ANSWERS))
def test_an_answer_past_a_bound_fails_its_operation_and_the_run_ends(reference, tmp_path, kind):
    answer, limit_named = HOSTILE_ANSWERS[kind]
    with served(hostile_proxy(reference.url, answers={COST_CENTERS: answer()})) as proxy:
        out = tmp_path / "out"
        done, took = _certify(
            proxy.url,
            out,
            "-k",
            "test_cost_centers_are_served",
            "--max-answer-size",
            "1MiB",
            "--request-timeout",
            str(TIMEOUT),
        )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    failed = _failed(out)
    assert list(failed) == ["ERIS-ASSET-004"], failed  # GET /v1/cost-centers answers for it
    assert limit_named in failed["ERIS-ASSET-004"] and f"GET {proxy.url}{COST_CENTERS}" in failed["ERIS-ASSET-004"]
    assert took < 60


def test_a_target_that_stops_answering_mid_run_ends_the_run_with_its_outputs(reference, tmp_path):
    # silent from the same request of the run as before eris certify probed its round trip five times, not once
    answered = 120 + PROBES - 1
    with served(hostile_proxy(reference.url, answered=answered)) as proxy:
        out = tmp_path / "out"
        done, took = _certify(proxy.url, out, "--request-timeout", str(TIMEOUT))
        requests = proxy.app[REQUESTS]["seen"]
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    reason = done.stderr.strip().splitlines()[-1]
    assert reason.startswith("eris: the run stopped before its end: the target stopped answering: ")
    assert f"no answer within {TIMEOUT:g} s (--request-timeout)" in reason
    assert sorted(p.name for p in out.iterdir()) == ["certification.json", "junit.xml", "report.html", "traffic.har"]
    certification = json.loads((out / "certification.json").read_text())
    assert "the run stopped before its end: the target stopped answering" in certification["summary"]["selection"]
    assert certification["summary"]["tests"]["passed"] > 0  # what was done before is certified
    never_reached = [gap for gap in certification["summary"]["not_exercised"] if "not reached" in gap["reason"]]
    assert never_reached and all("a run to its end" in gap["to_exercise"] for gap in never_reached)
    assert not [gap for gap in certification["summary"]["not_exercised"] if "-k or --requirement" in gap["to_exercise"]]
    assert "the target stopped answering" in (out / "report.html").read_text()
    har = json.loads((out / "traffic.har").read_text())
    assert any(entry["response"]["status"] == 0 for entry in har["log"]["entries"])  # the request left unanswered
    # left unanswered: at most the requests of one test in flight at once (--concurrency); then the one asking
    # whether the target still answers, and one more in the round trip's slack
    assert requests <= answered + DEFAULT_CONCURRENCY + 2
    assert took < 120


SLOW_SUITE = {
    "test_slow.py": """
        import time

        import pytest

        @pytest.mark.requirement("ERIS-BASE-001")
        def test_reads(api):
            api.read("/v1/parties")

        @pytest.mark.requirement("ERIS-PARTY-003")
        def test_waits_on_something_else_than_the_target(api):
            time.sleep(float(__import__("os").environ["ERIS_TEST_SLEEP"]))

        @pytest.mark.requirement("ERIS-PARTY-004")
        def test_reads_again(api):
            api.read("/v1/parties")
    """,
}


def _slow_suite(root: Path) -> Path:
    suite = root / "pkg" / "suite"
    suite.mkdir(parents=True)
    for name, text in SLOW_SUITE.items():
        (suite / name).write_text(dedent(text), encoding="utf-8")
    return suite


@pytest.mark.parametrize(
    ("sleep", "reason"),
    [
        (12, "the run reached its time limit of 10 s (--run-timeout)"),  # no test starts after it: the run stops
        (600, "the run overran its time limit of 10 s (--run-timeout) and was cut"),  # the watchdog ends the wait
    ],
    ids=["no-test-after-the-limit", "a-wait-past-the-limit-is-cut"],
)
def test_a_run_past_its_time_limit_ends_with_what_was_done(reference, tmp_path, sleep, reason, monkeypatch):
    monkeypatch.setenv("ERIS_TEST_SLEEP", str(sleep))
    out = tmp_path / "out"
    # the watchdog's grace past the limit: two request timeouts and a delivery timeout, 7 s
    limits = ["--run-timeout", "10", "--request-timeout", "1", "--delivery-timeout", "5"]
    done, took = _certify(reference.url, out, "--suite", str(_slow_suite(tmp_path)), *limits)
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stderr.strip().splitlines()[-1].startswith(f"eris: the run stopped before its end: {reason}")
    certification = json.loads((out / "certification.json").read_text())
    tests = {
        test["nodeid"].rsplit("::", 1)[-1]: test["outcome"]
        for r in certification["requirements"]
        for test in r["tests"]
    }
    assert tests["test_reads"] == "passed" and "test_reads_again" not in tests, tests
    assert reason in certification["summary"]["selection"]
    assert took < 10 + 7 + 30


def test_traffic_har_is_written_entry_by_entry(tmp_path):
    """Every exchange keeps up to 64 KiB of its answer; a target answering NUL bytes as JSON makes each entry's text
    six times that (\\u0000): the HAR of a run's thousands of exchanges is written, never held whole."""
    answer = base64.b64encode(bytes(KEPT)).decode("ascii")
    exchange = Exchange(
        "outbound", 1.7e9, 0.1, "GET", "http://t.example/v1/parties", {}, "", 0, 200,
        {"content-type": "application/json"}, answer, 32 * MiB,
    ).to_dict()  # fmt: skip
    outcomes = [Outcome(f"t.py::test_{n}", requirements=["ERIS-READ-001"], exchanges=[exchange]) for n in range(300)]
    now = datetime.now(UTC)
    certification = certify(load_catalogue(), outcomes, base_url="http://t.example", started=now, finished=now)
    tracemalloc.start()
    try:
        write_outputs(certification, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    har = tmp_path / "traffic.har"
    assert har.stat().st_size > 300 * 6 * KEPT  # the text of every entry is there
    assert json.loads(har.read_text())["log"]["entries"][299]["response"]["bodySize"] == 32 * MiB
    assert peak < 40 * MiB, f"{peak / MiB:.0f} MiB held to write a HAR of {har.stat().st_size / MiB:.0f} MiB"


def test_a_target_that_stops_answering_while_its_installation_is_read_ends_the_run(reference, tmp_path):
    # eris certify's probes of the round trip (conformance/run/round_trip.py), then two reads of the installation
    with served(hostile_proxy(reference.url, answered=PROBES + 2)) as proxy:
        done, took = _certify(proxy.url, tmp_path / "out", "--request-timeout", str(TIMEOUT))
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("eris: the target stopped answering while its installation was read: GET /v1/")
    )
    assert took < 60  # two request timeouts, not one for each read of the installation


def test_eris_init_of_a_silent_target_ends_within_its_request_timeout(tmp_path):
    with served(hostile_proxy("http://127.0.0.1:9", answered=0)) as proxy:
        started = time.monotonic()
        done = subprocess.run(
            [
                *eris_command(),
                "init",
                "--target",
                proxy.url,
                "--output",
                str(tmp_path / "t.toml"),
                "--request-timeout",
                "1",
            ],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"eris: nothing could be discovered at {proxy.url}")
    assert "Traceback" not in done.stderr and not (tmp_path / "t.toml").exists()
    assert took < 20  # two request timeouts of 1 s, then the reads end: not 30 s for each read
