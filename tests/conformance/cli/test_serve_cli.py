"""`eris serve` and `eris token` as a user runs them: a subprocess that prints its URL, writes the
conformance target description, answers reads, accepts the tokens `eris token` mints, seeds a large
data set on request, refuses a bad `--seed` in one line, and stops cleanly on SIGTERM.

Every server started here is stopped by its pid in a `finally`."""

from __future__ import annotations

import base64
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from serve_fixtures import CONTRACT, PROBLEM_JSON, seed_of

from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, TokenVerifier, public_keys_from_pem_files

pytestmark = pytest.mark.slow  # every test here runs `eris serve` or a certification in a subprocess

LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:(\d+))")
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


def _eris() -> list[str]:
    script = Path(sys.executable).with_name("eris")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "conformance.cli"]


class Served:
    """A running `eris serve` subprocess: its URL and the lines it printed."""

    def __init__(self, process: subprocess.Popen[str], url: str, lines: queue.Queue[str | None]) -> None:
        self.process = process
        self.url = url
        self._lines = lines

    def output(self) -> list[str]:
        """Every line printed so far (after the process ended: all of them)."""
        found = []
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return found
            if line is not None:
                found.append(line)


def _pump(stream: object, lines: queue.Queue[str | None]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(STOP_TIMEOUT)


@contextmanager
def serve(tmp_path: Path, *arguments: str) -> Iterator[Served]:
    """`eris serve --port 0` with a database and keys in tmp_path, until its URL is printed."""
    command = [*_eris(), "serve", "--port", "0", "--db", str(tmp_path / "eris.db"), "--keys", str(tmp_path / "keys")]
    process = subprocess.Popen(
        [*command, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        printed = []
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no URL within {START_TIMEOUT} s: {printed}"
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, f"eris serve ended before listening: {printed}"
            printed.append(line)
            match = LISTENING.search(line)
            if match:
                assert int(match.group(2)) > 0
                break
        yield Served(process, match.group(1), lines)
    finally:
        _stop(process)


def _token(keys: Path, *options: str) -> str:
    result = subprocess.run(
        [*_eris(), "token", "--keys", str(keys), *options], capture_output=True, text=True, timeout=30, check=True
    )
    [token] = result.stdout.split()
    return token


def test_serve_prints_its_url_writes_the_target_and_stops_on_sigterm(tmp_path: Path) -> None:
    target = tmp_path / "target.toml"
    with serve(tmp_path, "--write-config", str(target)) as served:
        config = tomllib.loads(target.read_text(encoding="utf-8"))
        assert config["target"]["base_url"] == served.url
        assert config["installation"] == {
            **CONTRACT.installation.values,
            "namespaces": dict(CONTRACT.installation.namespace_keys),
        }
        verifier = TokenVerifier(public_keys_from_pem_files([tmp_path / "keys" / ApplicationKeys.PUBLIC_FILE]))
        with_right = verifier.verify(config["target"]["token"])
        without_right = verifier.verify(config["target"]["token_without_report_right"])
        assert with_right.has_right(REPORT_RIGHT) and not without_right.has_right(REPORT_RIGHT)

        with httpx.Client(base_url=served.url, timeout=10) as client:
            response = client.get("/v1/parties")
            assert response.status_code == 200
            assert len(response.json()["items"]) == 20 and response.json()["nextToken"] is None
            refused = client.post("/v1/reports", json={})
            assert refused.status_code == 401
            assert refused.headers["content-type"].startswith(PROBLEM_JSON)
            for token in (config["target"]["token"], config["target"]["token_without_report_right"]):
                answer = client.post("/v1/reports", json={}, headers={"Authorization": f"Bearer {token}"})
                assert answer.status_code != 401, answer.text

        os.kill(served.process.pid, signal.SIGTERM)
        started = time.monotonic()
        assert served.process.wait(STOP_TIMEOUT) == 0
        assert time.monotonic() - started < STOP_TIMEOUT
        output = served.output()
        assert any("stopping" in line for line in output), output
        assert not any("Traceback" in line for line in output), output
    assert (tmp_path / "eris.db").exists()


def test_eris_token_mints_a_token_the_server_accepts(tmp_path: Path) -> None:
    with serve(tmp_path, "--token-on-every-endpoint") as served:
        token = _token(tmp_path / "keys")
        plain = _token(tmp_path / "keys", "--no-report-right", "--subject", "someone")
        verifier = TokenVerifier(public_keys_from_pem_files([tmp_path / "keys" / ApplicationKeys.PUBLIC_FILE]))
        assert verifier.verify(token).has_right(REPORT_RIGHT)
        claims = verifier.verify(plain)
        assert claims.subject == "someone" and not claims.has_right(REPORT_RIGHT)
        other = tmp_path / "other-keys"
        ApplicationKeys.generate().save(other)  # `eris token` never makes a pair of its own
        stranger = _token(other)
        with httpx.Client(base_url=served.url, timeout=10) as client:
            assert client.get("/v1/capabilities").status_code == 401
            for accepted in (token, plain):
                response = client.get("/v1/capabilities", headers={"Authorization": f"Bearer {accepted}"})
                assert response.status_code == 200, response.text
                assert len(response.json()["items"]) == len(seed_of("Capability"))
            refused = client.get("/v1/capabilities", headers={"Authorization": f"Bearer {stranger}"})
            assert refused.status_code == 401


def test_seed_large_adds_parties(tmp_path: Path) -> None:
    with serve(tmp_path, "--seed", "large:50") as served, httpx.Client(base_url=served.url, timeout=10) as client:
        response = client.get("/v1/parties", params={"count": "1000"})
        assert response.status_code == 200
        assert len(response.json()["items"]) == len(seed_of("Party")) + 50 == 34 + 50


def test_a_restarted_server_keeps_its_data_and_its_keys(tmp_path: Path) -> None:
    with serve(tmp_path) as served, httpx.Client(base_url=served.url, timeout=10) as client:
        first = client.get("/v1/parties", params={"count": "1000"}).json()["items"]
    public_key = (tmp_path / "keys" / ApplicationKeys.PUBLIC_FILE).read_bytes()
    with serve(tmp_path, "--seed", "large:5") as served, httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/v1/parties", params={"count": "1000"}).json()["items"] == first
    assert (tmp_path / "keys" / ApplicationKeys.PUBLIC_FILE).read_bytes() == public_key


@pytest.mark.parametrize("spec", ["nonsense", "large:", "large:-5", "large:many"])
def test_a_bad_seed_exits_2_with_one_line(tmp_path: Path, spec: str) -> None:
    result = subprocess.run(
        [
            *_eris(),
            "serve",
            "--port",
            "0",
            "--db",
            str(tmp_path / "x.db"),
            "--keys",
            str(tmp_path / "k"),
            "--seed",
            spec,
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "--seed" in lines[0] and spec in lines[0]
    assert not (tmp_path / "x.db").exists()


def test_serve_delivers_local_reports_below_its_root_with_the_catalogue_size_asked(tmp_path: Path) -> None:
    from reports.crypto import decrypt_artifact, open_session_key
    from reports.keys import generate_key_pair, public_key_pem

    root = tmp_path / "deliveries"
    key = generate_key_pair(2048)
    order = {
        "reportId": "product-level-cost-calculation",
        "format": "parquet",
        "publicKeyPem": public_key_pem(key),
        "runAt": "2024-01-01T00:00:00Z",
        "storage": {"type": "local", "connectionString": "finance"},
        "parameters": {"CompanyTaxNo": "7251801126", "Year": "2024", "Month": "5"},
    }
    with serve(tmp_path, "--local-root", str(root), "--report-products", "16") as served:
        headers = {"Authorization": f"Bearer {_token(tmp_path / 'keys')}"}
        answer = httpx.post(f"{served.url}/v1/reports", json=order, headers=headers, timeout=10)
        assert answer.status_code == 202, answer.text
        execution_id = answer.json()["executionId"]
        artifact = root / "finance" / f"{execution_id}.parquet.enc"
        deadline = time.monotonic() + 20
        while not artifact.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    session = open_session_key(key, base64.b64decode(answer.json()["encryptedSessionKey"]))
    decrypt_artifact(artifact, session, tmp_path / "report.parquet")
    assert pq.read_metadata(tmp_path / "report.parquet").num_rows == 16 * 8


def test_a_negative_catalogue_size_exits_2_with_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *_eris(),
            "serve",
            "--port",
            "0",
            "--db",
            ":memory:",
            "--keys",
            str(tmp_path / "k"),
            "--report-products",
            "-1",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--report-products" in result.stderr


def test_a_server_without_seed_data_is_certified_incomplete_naming_the_data_it_lacks(tmp_path: Path) -> None:
    """An empty installation passes what it can show, but a MUST it cannot exercise is no pass: exit 3."""
    target = tmp_path / "target.toml"
    with serve(tmp_path, "--seed", "none", "--write-config", str(target)) as served:
        result = subprocess.run(
            [*_eris(), "certify", "--config", str(target), "--report-dir", str(tmp_path / "out"), "--examples", "0"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"INCOMPLETE — {served.url}" in result.stdout
    # which data it must hold, and what would exercise the requirements it could not
    assert "served no" in result.stdout and "to exercise: data served by GET /v1/" in result.stdout


def test_a_selection_of_the_suite_is_never_conformant(tmp_path: Path) -> None:
    result = subprocess.run(
        [*_eris(), "certify", "-k", "envelope", "--examples", "0", "--report-dir", str(tmp_path / "out"), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]
    assert "INCOMPLETE" in result.stdout and "selection: -k envelope" in result.stdout


def test_a_connection_trickling_its_request_head_is_closed_and_others_are_served(tmp_path: Path) -> None:
    import socket

    with serve(tmp_path, "--head-timeout", "1") as served:
        host, port = served.url.removeprefix("http://").split(":")
        slow = socket.create_connection((host, int(port)))
        slow.sendall(b"GET /v1/value-sets HTTP/1.1\r\nHo")  # and then nothing more
        slow.settimeout(10)
        started = time.monotonic()
        assert slow.recv(100) == b""  # closed by the server, unanswered
        assert 0.5 < time.monotonic() - started < 5
        slow.close()
        with httpx.Client(base_url=served.url, timeout=10) as client:
            assert client.get("/v1/value-sets").status_code == 200
            time.sleep(1.5)  # past the head deadline: a kept-alive connection still serves
            assert client.get("/v1/value-sets").status_code == 200
