"""The workers of a run chosen from the target's round trip (conformance/run/round_trip.py), and that neither they nor
the requests of a test sent at once change a verdict: the reference implementation certified in one process, one
request at a time, and behind a round trip that makes eris choose workers, with the defaults, gives the same status
to every requirement."""

from __future__ import annotations

import importlib.util
import itertools
import json
import socket
import subprocess
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from handler_servers import serving_handler
from project_paths import ROOT, run_certify

from conformance.client.bounded_http import BoundedClient
from conformance.configuration.settings import DEFAULT_CONCURRENCY
from conformance.run.embedded import EmbeddedReference
from conformance.run.round_trip import (
    LOCAL_ROUND_TRIP,
    MAX_WORKERS,
    MEASURED_CORES,
    WORKERS_BY_ROUND_TRIP,
    choose_workers,
    shortest_round_trip,
    workers_for,
)

RUN_TIMEOUT = 600
SEED = "7"
EXAMPLES = "2"


def test_loopback_keeps_one_process_and_a_longer_round_trip_never_takes_fewer_workers():
    assert workers_for(0.0) == 1
    assert workers_for(0.002) == 1  # loopback: a run no slower than one without the choice
    assert workers_for(LOCAL_ROUND_TRIP * 0.99) == 1
    assert workers_for(LOCAL_ROUND_TRIP) > 1
    milliseconds = range(0, 1001)
    chosen = [workers_for(ms / 1000) for ms in milliseconds]
    assert chosen == sorted(chosen)
    assert max(chosen) == MAX_WORKERS == workers_for(10.0)  # the ceiling a small test server serves
    for least, workers in WORKERS_BY_ROUND_TRIP:
        assert workers_for(least) == workers


def test_more_cores_take_more_workers_sooner_but_never_on_loopback():
    assert workers_for(LOCAL_ROUND_TRIP * 0.99, cores=64) == 1
    for ms in (10, 20, 50, 150):
        one, two, many = (workers_for(ms / 1000, cores) for cores in (1, MEASURED_CORES, 16))
        assert one <= two <= many <= MAX_WORKERS
    assert workers_for(0.020, cores=4) > workers_for(0.020, cores=MEASURED_CORES)


def test_the_users_workers_win_and_what_cannot_run_them_falls_back_to_one_process():
    assert choose_workers(3, 0.2, True).workers == 3
    assert choose_workers(1, 0.2, True).line() == "round trip 200 ms: one process (--workers)"
    auto = choose_workers(None, 0.05, True)
    assert (auto.workers, auto.chosen_by) == (workers_for(0.05), "round trip")
    assert auto.line() == f"round trip 50 ms: {auto.workers} workers (--workers 1 runs in one process)"
    assert auto.to_json() == {"workers": auto.workers, "round_trip_ms": 50.0, "workers_chosen_by": "round trip"}
    assert choose_workers(None, 0.001, True).line() == "round trip 1 ms: one process (--workers N runs in N processes)"
    missing = choose_workers(None, 0.05, False)
    assert missing.workers == 1 and "pytest-xdist, which is not installed" in missing.line()
    assert choose_workers(None, None, True).workers == 1
    assert choose_workers(None, 0.5, True, on_this_machine=True).workers == 1
    assert choose_workers(None, 0.02, True, cores=16).workers == workers_for(0.02, 16)


def test_the_round_trip_is_the_fastest_probe_not_those_a_busy_machine_slowed():
    answered = itertools.count()

    class SlowEveryOther(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if next(answered) % 2 == 0:
                time.sleep(0.05)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *arguments: object) -> None:
            pass

    with serving_handler(SlowEveryOther) as url, BoundedClient(request_timeout=10, max_answer_size=1 << 20) as client:
        seconds = shortest_round_trip(client, f"{url}/v1/value-sets")
    assert next(answered) == 5  # every probe was sent
    assert seconds < 0.05, f"{seconds * 1000:.0f} ms: a slowed answer was taken for the round trip"


def _latency_proxy():
    """bench/latency_proxy.py, loaded by its path (bench/ on sys.path would hide the package `reports`)."""
    spec = importlib.util.spec_from_file_location("latency_proxy", ROOT / "bench" / "latency_proxy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LatencyProxy


def _certify(
    url: str, description: Path, report_dir: Path, *options: str
) -> tuple[subprocess.CompletedProcess[str], dict]:
    command = ["--target", url, "--config", str(description), *options, "--report-dir", str(report_dir)]
    done = run_certify(*command, "--seed", SEED, "--examples", EXAMPLES, "--quiet", timeout=RUN_TIMEOUT)
    path = report_dir / "certification.json"
    assert path.exists(), done.stdout + done.stderr
    return done, json.loads(path.read_text("utf-8"))


@pytest.mark.slow
def test_the_defaults_for_a_distant_target_give_every_requirement_the_status_of_one_request_at_a_time(tmp_path):
    """Neither the workers chosen from the round trip nor the requests of a test sent at once change a status: the
    baseline runs in one process, one request at a time (issue 30)."""
    delay_ms = LOCAL_ROUND_TRIP * 1000 + 5  # past loopback: eris chooses workers
    with EmbeddedReference() as reference:
        near, one = _certify(
            reference.base_url, reference.description, tmp_path / "one", "--workers", "1", "--concurrency", "1"
        )
    with EmbeddedReference() as reference, _latency_proxy()(reference.base_url, delay_ms) as proxy:
        far, many = _certify(proxy.url, reference.description, tmp_path / "many")

    assert one["run"]["workers"] == 1 and one["run"]["concurrency"] == 1, near.stdout
    assert "one request at a time (--concurrency)" in near.stdout
    assert many["run"]["workers"] > 1, far.stdout
    assert many["run"]["concurrency"] == DEFAULT_CONCURRENCY > 1
    assert many["run"]["round_trip_ms"] >= delay_ms
    assert f"{many['run']['workers']} workers (--workers 1 runs in one process)" in far.stdout
    assert f"{DEFAULT_CONCURRENCY} requests at once (--concurrency)" in far.stdout

    def statuses(document: dict) -> dict[str, str]:
        return {entry["id"]: entry["status"] for entry in document["requirements"]}

    assert statuses(many) == statuses(one)
    assert many["summary"]["verdict"] == one["summary"]["verdict"]
    # every test ran in both; the 429 burst may pass in one and skip in the other (test_errors.py: a quota the
    # burst does not reach on a busy machine is a skip), so passed and skipped are compared together
    tests, baseline = many["summary"]["tests"], one["summary"]["tests"]
    assert sum(tests.values()) == sum(baseline.values())
    assert (tests["failed"], tests["error"]) == (baseline["failed"], baseline["error"])


@pytest.mark.slow
def test_a_worker_that_cannot_go_on_says_why_in_one_line(tmp_path):
    """With workers, the plugin's pytest.exit in a worker reaches eris certify as an interruption: the reason the
    worker gave is the one said (here: the receiver's port is taken)."""
    suite = tmp_path / "pkg" / "suite"
    suite.mkdir(parents=True)
    (suite / "test_receiving.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.requirement('ERIS-BASE-001')\n"
        "def test_receiving(receiver):\n    pass\n\n"
        "@pytest.mark.requirement('ERIS-BASE-001')\n"
        "def test_reading(api):\n    pass\n",
        encoding="utf-8",
    )
    with EmbeddedReference() as reference, socket.socket() as taken:
        taken.bind(("127.0.0.1", reference.receiver_port))
        taken.listen()
        command = ["--target", reference.base_url, "--config", str(reference.description), "--suite", str(suite)]
        done = run_certify(*command, "--report-dir", str(tmp_path / "out"), "--workers", "2", "-q", timeout=RUN_TIMEOUT)
    assert done.returncode == 2, done.stdout + done.stderr
    reason = done.stderr.strip().splitlines()[-1]
    assert reason.startswith(f"eris: the receiver cannot listen on 127.0.0.1:{reference.receiver_port}"), reason
