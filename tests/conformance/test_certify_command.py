"""`eris certify` as a user runs it: exit codes with a one-line reason, and end-to-end runs of a probe suite."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from handler_servers import ServesNothing, serving_handler
from markupsafe import escape
from project_paths import run_certify
from small_certifications import SCRIPT, assert_only_the_reports_own_script, requirements_by_id, write_suite

from conformance.cli import main
from conformance.configuration.settings import DEFAULT_BACKOFF
from conformance.run.embedded import free_port

pytestmark = pytest.mark.slow  # each test here certifies through eris certify

RUN_TIMEOUT = 240


# -- the command: exit codes ---------------------------------------------------------------------------------


def _one_error_line(captured: pytest.CaptureResult[str]) -> str:
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("eris: ")
    return lines[0]


def test_an_unreachable_target_is_exit_2_with_the_reason_in_one_line(tmp_path, capsys):
    port = free_port()
    assert main(["certify", "--target", f"http://127.0.0.1:{port}", "--report-dir", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr())
    assert f"the target http://127.0.0.1:{port} cannot be reached" in line
    assert not (tmp_path / "out" / "certification.json").exists()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read the target description"),
        ("[target\nbase_url = 1", "is not TOML"),
        ('[target]\ntoken = "t"\n', "no target"),
        ('[target]\nbase_url = "ftp://x"\n', "must be an absolute http(s) URL"),
        ('target = "x"\n', "[target] must be a table"),
        ('[target]\nbase_url = "http://x"\n[features]\nstorage = "blob"\n', "storage must be a list"),
        ('[target]\nbase_url = "http://x"\n[features]\nstorage = ["ftp"]\n', "names ['ftp']"),
        ('[target]\nbase_url = "http://x"\nstorage = 1\n[storage]\nblob = 2\n', "[blob] must be a table"),
    ],
)
def test_a_bad_target_description_is_exit_2_in_one_line(tmp_path, capsys, content, reason):
    config = tmp_path / "target.toml"
    if content is not None:
        config.write_text(content, encoding="utf-8")
    assert main(["certify", "--config", str(config), "--report-dir", str(tmp_path / "out")]) == 2
    assert reason in _one_error_line(capsys.readouterr())


def test_bad_options_are_exit_2_in_one_line(tmp_path, capsys, monkeypatch):
    out = ["--report-dir", str(tmp_path / "out"), "--target", "http://127.0.0.1:9"]
    assert main(["certify", *out, "--expected-failures", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read the expected failures" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--delivery-timeout", "0"]) == 2
    assert "--delivery-timeout must be more than 0" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--backoff", "0"]) == 2
    assert "--backoff must be more than 0 seconds, not 0" in _one_error_line(capsys.readouterr())
    assert main(["certify", *out, "--suite", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in _one_error_line(capsys.readouterr())
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    assert main(["certify", *out, "--workers", "2"]) == 2
    assert "--workers needs pytest-xdist" in _one_error_line(capsys.readouterr())


# -- the command end to end (subprocesses: each run is a pytest session of its own) --------------------------

PROBE_SUITE = {
    "test_probe.py": f"""
        import pytest

        @pytest.mark.requirement("ERIS-BASE-001")
        def test_parties_are_read(api):
            api.read("/v1/parties")

        @pytest.mark.requirement("ERIS-PARTY-003")
        def test_a_check_that_fails(api):
            response = api.post("/v1/parties", json={{"resourceType": "Party", "comment": "{SCRIPT}"}})
            assert response.status_code == 599, "{SCRIPT} was not answered 599"

        @pytest.mark.requirement("ERIS-PARTY-009")
        def test_an_informational_observation():
            assert False, "an observation"

        @pytest.mark.requirement("ERIS-NS-001")
        def test_a_clause_exercised():
            from conformance.harness.plugin import exercised

            exercised("ERIS-NS-001", "usage", value="Party", request="GET /v1/naming-systems?usage=Party")

        def test_deselected_by_k(api):
            raise AssertionError("-k must deselect this test")
    """,
}


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_certify(*arguments, timeout=RUN_TIMEOUT, cwd=cwd)


@pytest.fixture(scope="module")
def embedded_run(tmp_path_factory) -> tuple[subprocess.CompletedProcess[str], Path]:
    root = tmp_path_factory.mktemp("certify")
    suite = write_suite(root, PROBE_SUITE)
    out = root / "report"
    return _run("--suite", str(suite), "--report-dir", str(out), "-k", "not deselected", cwd=root), out


def test_end_to_end_the_embedded_reference_is_certified_with_every_output(embedded_run):
    result, out = embedded_run
    assert result.returncode == 1, result.stdout + result.stderr
    assert "certifying the embedded reference implementation at http://127.0.0.1:" in result.stdout
    assert "eris certify: 4 tests in 1 parts of the contract" in result.stdout  # progress as plain lines: a pipe
    assert "eris certify: 4/4 tests (100%), 2 failed" in result.stdout and "[100%]" not in result.stdout
    assert "NON-CONFORMANT" in result.stdout
    assert "failed MUST ERIS-PARTY-003" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["certification.json", "junit.xml", "report.html", "traffic.har"]

    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["target"]["embedded_reference_implementation"] is True
    assert document["summary"]["verdict"] == "non-conformant"
    assert document["summary"]["tests"] == {"passed": 2, "failed": 2, "error": 0, "skipped": 0}
    entries = requirements_by_id(document)
    assert entries["ERIS-BASE-001"]["status"] == "passed"
    assert entries["ERIS-NS-001"]["status"] == "passed"  # its one clause recorded by a test that held
    assert entries["ERIS-NS-001"]["clauses"] == [
        {
            "clause": "usage",
            "exercised": "GET /v1/naming-systems?usage=Party",
            "test": "pkg/suite/test_probe.py::test_a_clause_exercised",
        }
    ]
    assert entries["ERIS-PARTY-003"]["status"] == "failed"
    assert "was not answered 599" in entries["ERIS-PARTY-003"]["message"]
    assert entries["ERIS-PARTY-009"]["status"] == "skipped"  # INFO
    assert entries["ERIS-TYPE-001"]["status"] == "not-tested"
    # the back-off after a 429 without Retry-After is the suite's choice: the report states it
    assert document["run"]["backoff_s"] == DEFAULT_BACKOFF
    assert f"without Retry-After {DEFAULT_BACKOFF:g} s, doubling" in document["run"]["backoff"]
    nodeids = {test["nodeid"] for entry in entries.values() for test in entry["tests"]}
    assert nodeids == {
        "pkg/suite/test_probe.py::test_parties_are_read",
        "pkg/suite/test_probe.py::test_a_check_that_fails",
        "pkg/suite/test_probe.py::test_an_informational_observation",
        "pkg/suite/test_probe.py::test_a_clause_exercised",
    }

    har = json.loads((out / "traffic.har").read_text("utf-8"))
    assert har["log"]["version"] == "1.2"
    entries_har = har["log"]["entries"]
    assert [(e["request"]["method"], e["_eris_test"].split("::")[1]) for e in entries_har] == [
        ("GET", "test_parties_are_read"),
        ("POST", "test_a_check_that_fails"),
    ]
    assert SCRIPT in entries_har[1]["request"]["postData"]["text"]

    page = (out / "report.html").read_text("utf-8")
    assert "<h1>Non-conformant</h1>" in page
    assert "<dt>Back-off</dt>" in page and escape(document["run"]["backoff"]) in page
    assert_only_the_reports_own_script(page)
    assert "&lt;script&gt;" in page and "curl -i -X POST" in page
    assert "testsuite" in (out / "junit.xml").read_text("utf-8")


LOGGERS_MADE_MEANWHILE_SUITE = {
    "test_loggers.py": """
        import itertools
        import logging
        import threading
        import time

        import pytest

        @pytest.fixture(scope="module", autouse=True)
        def loggers_made_meanwhile():
            done = threading.Event()

            def make_loggers():
                for number in itertools.count():
                    if done.is_set():
                        return
                    logging.getLogger(f"made-meanwhile.{number}")
                    if number % 10 == 0:
                        time.sleep(0.0001)

            maker = threading.Thread(target=make_loggers, daemon=True)
            maker.start()
            yield
            done.set()
            maker.join()

        @pytest.mark.requirement("ERIS-BASE-001")
        @pytest.mark.parametrize("number", range(150))
        def test_nothing_but_time_passing(number):
            pass
    """,
}


def test_loggers_made_by_another_thread_during_the_run_fail_no_test(tmp_path):
    """The embedded target, a store starting or a delivery may make a logger while a test starts: pytest's logging
    plugin iterated the registry of loggers unlocked there, and failed that test (charged to the target)."""
    suite = write_suite(tmp_path, LOGGERS_MADE_MEANWHILE_SUITE)
    out = tmp_path / "report"
    result = _run("--suite", str(suite), "--report-dir", str(out), "--quiet", cwd=tmp_path)
    assert (out / "certification.json").exists(), result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["tests"] == {"passed": 150, "failed": 0, "error": 0, "skipped": 0}, result.stdout


def test_end_to_end_expected_failures_are_not_counted_and_quiet_hides_progress(embedded_run, tmp_path):
    _, first = embedded_run
    suite = first.parent / "pkg" / "suite"
    listed = tmp_path / "expected.txt"
    listed.write_text("# the probe suite fails this on purpose\nERIS-PARTY-003: the probe\n", encoding="utf-8")
    out = tmp_path / "report"
    result = _run(
        "--suite", str(suite), "--report-dir", str(out), "-k", "not deselected", "--expected-failures", str(listed),
        "--quiet", cwd=tmp_path,
    )  # fmt: skip
    # The probe suite exercises three requirements of the catalogue: nothing failed but as expected, yet most
    # MUST requirements were not exercised.
    assert result.returncode == 3, result.stdout + result.stderr
    assert "INCOMPLETE" in result.stdout and "(expected)" in result.stdout
    assert "[100%]" not in result.stdout and "eris certify: 3" not in result.stdout  # no progress
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert [entry["id"] for entry in document["summary"]["expected_failures"]] == ["ERIS-PARTY-003"]
    assert requirements_by_id(document)["ERIS-PARTY-003"]["expected"] is True


def test_a_k_selecting_nothing_and_a_bad_k_are_exit_2(embedded_run, stub_target, tmp_path):
    _, first = embedded_run
    common = ["--suite", str(first.parent / "pkg" / "suite"), "--target", stub_target]
    nothing = _run(*common, "--report-dir", str(tmp_path / "a"), "-k", "no_such_test", cwd=tmp_path)
    assert nothing.returncode == 2, nothing.stdout + nothing.stderr
    assert nothing.stderr.strip().splitlines()[-1] == (
        "eris: no conformance test ran (-k 'no_such_test' selected none): a certification needs at least one"
    )
    broken = _run(*common, "--report-dir", str(tmp_path / "b"), "-k", "not (", cwd=tmp_path)
    assert broken.returncode == 2, broken.stdout + broken.stderr
    assert broken.stderr.strip().splitlines()[-1].startswith("eris: pytest refused the options of the run")


@pytest.fixture
def stub_target() -> Iterator[str]:
    with serving_handler(ServesNothing) as url:
        yield url


def test_a_stop_of_the_plugin_is_exit_2_with_its_reason_in_one_line(tmp_path, stub_target):
    """The receiver's port is taken: the plugin stops the run with pytest.exit(returncode=2)."""
    suite = write_suite(tmp_path, {"test_r.py": "def test_needs_receiver(receiver):\n    pass\n"})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "target.toml"
        config.write_text(f'[target]\nbase_url = "{stub_target}"\n[receiver]\nport = {port}\n', encoding="utf-8")
        started = time.monotonic()
        result = _run("--suite", str(suite), "--config", str(config), "--report-dir", str(tmp_path / "o"), cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"eris: the receiver cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "o" / "certification.json").exists()
    assert time.monotonic() - started < RUN_TIMEOUT


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist is not installed")
def test_end_to_end_with_workers_the_node_ids_are_those_of_a_plain_run(embedded_run, tmp_path):
    _, first = embedded_run
    suite = str(first.parent / "pkg" / "suite")
    out = tmp_path / "report"
    result = _run("--suite", suite, "--report-dir", str(out), "-k", "not deselected", "--workers", "2", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["tests"] == {"passed": 2, "failed": 2, "error": 0, "skipped": 0}
    assert (
        requirements_by_id(document)["ERIS-BASE-001"]["tests"][0]["nodeid"]
        == "pkg/suite/test_probe.py::test_parties_are_read"
    )


class _FragileTarget(ServesNothing):
    """Reads answer an empty envelope; every write fails inside the service (500), as a target without a strict
    JSON intake does on a body nested 2,000 deep."""

    def _server_error(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PATCH = _server_error


def test_the_robustness_check_reports_server_errors_on_malformed_input_as_a_should_only(tmp_path):
    with serving_handler(_FragileTarget) as target:
        done = _run("--target", target, "--requirement", "ERIS-ROBUST-001", "--report-dir", str(tmp_path), cwd=tmp_path)
    document = json.loads((tmp_path / "certification.json").read_text(encoding="utf-8"))
    robust = next(r for r in document["requirements"] if r["id"] == "ERIS-ROBUST-001")
    assert robust["status"] == "failed" and robust["level"] == "SHOULD", done.stdout[-2000:]
    assert "server error" in robust["message"]
    assert document["summary"]["verdict"] != "non-conformant" and done.returncode != 1
