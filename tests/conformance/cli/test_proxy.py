"""`eris proxy` end to end: the reference implementation (and a server of bad traffic) behind the proxy on free
loopback ports; what passes is compared byte for byte with direct requests, and the findings, the HAR and the
reports written when it stops are read back."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from handler_servers import serving_handler
from project_paths import eris_command

from conformance.run.embedded import EmbeddedReference

STOP_TIMEOUT = 60


@dataclass
class Stopped:
    returncode: int
    stdout: str
    stderr: str
    folder: Path

    @property
    def findings(self) -> list[dict]:
        report = json.loads((self.folder / "findings.json").read_text())
        return [{**issue, "path": result["path"]} for result in report["results"] for issue in result["issues"]]


@contextmanager
def proxy(target: str, folder: Path) -> Iterator[tuple[str, list[Stopped]]]:
    """`eris proxy` of `target` on a free port; once the block ends, SIGINT, and what it wrote in the list given."""
    process = subprocess.Popen(
        [*eris_command(), "proxy", "--target", target, "--port", "0", "--har", str(folder / "out.har"),
         "--report-dir", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    stopped: list[Stopped] = []
    try:
        first = process.stdout.readline() if process.stdout else ""
        assert first.startswith("eris proxy: http://127.0.0.1:"), first + (
            process.stderr.read() if process.stderr else ""
        )
        yield first.split()[2], stopped
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=STOP_TIMEOUT)
        stopped.append(Stopped(process.returncode, first + out, err, folder))


@pytest.fixture(scope="module")
def reference() -> Iterator[EmbeddedReference]:
    with EmbeddedReference() as served:
        yield served


READS = ["/v1/parties?count=3", "/v1/capabilities", "/v1/value-sets", "/v1/parties?count=x", "/v1/nothing/here"]


def _without_date(response: httpx.Response) -> list[tuple[bytes, bytes]]:
    return [(name, value) for name, value in response.headers.raw if name.lower() != b"date"]


def test_what_passes_is_unchanged_byte_for_byte_and_the_findings_are_written_when_it_stops(reference, tmp_path):
    with proxy(reference.base_url, tmp_path) as (url, stopped), httpx.Client(timeout=30) as client:
        for path in READS:
            for headers in ({}, {"Accept-Encoding": "gzip", "X-Trace": "a, b"}):
                through, direct = (
                    client.get(url + path, headers=headers),
                    client.get(reference.base_url + path, headers=headers),
                )
                assert (through.status_code, through.content) == (direct.status_code, direct.content), path
                assert _without_date(through) == _without_date(direct), path
        malformed = b'{"resourceType": "Party", '
        through = client.post(url + "/v1/parties", content=malformed, headers={"Content-Type": "application/json"})
        direct = client.post(
            reference.base_url + "/v1/parties", content=malformed, headers={"Content-Type": "application/json"}
        )
        assert (through.status_code, through.content, _without_date(through)) == (
            direct.status_code,
            direct.content,
            _without_date(direct),
        )
    [done] = stopped
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(
        "GET /v1/parties: client query/count: error: count='x'" in line and "ERIS-READ-002]" in line for line in lines
    ), lines
    assert any("POST /v1/parties: client request body: error: the request body is not JSON" in line for line in lines)
    assert sum("/v1/nothing/here is not a path of the contract" in line for line in lines) == 1
    assert not [f for f in done.findings if f["side"] == "server" and f["severity"] != "information"]
    har = json.loads((tmp_path / "out.har").read_text())
    assert len(har["log"]["entries"]) == 2 * len(READS) + 1
    assert har["log"]["entries"][0]["request"]["url"] == reference.base_url + READS[0]  # as with the service itself
    assert har["log"]["entries"][-1]["request"]["postData"]["text"] == malformed.decode()
    sarif = json.loads((tmp_path / "findings.sarif").read_text())
    assert {r["properties"]["side"] for r in sarif["runs"][0]["results"]} == {"client"}


def test_a_fault_of_the_target_is_named_by_its_requirement(tmp_path):
    with (
        EmbeddedReference(("capabilities-without-resourceType",)) as faulty,
        proxy(faulty.base_url, tmp_path) as (url, stopped),
    ):
        assert httpx.get(url + "/v1/capabilities", timeout=30).status_code == 200
    [done] = stopped
    assert any(
        "GET /v1/capabilities: server response body/items/0" in line and "ERIS-BASE-001]" in line
        for line in done.stdout.splitlines()
    ), done.stdout
    assert ("server", "ERIS-BASE-001", "/v1/capabilities") in {
        (f["side"], f.get("requirement"), f["path"]) for f in done.findings
    }


PAGE = json.dumps({"items": [{"id": "x"}], "nextToken": None}).encode()


class _BadTraffic(BaseHTTPRequestHandler):
    """Answers as a broken service would: not JSON, gzip (whole, and corrupt), a body cut short."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        headers = {"Content-Type": "application/json"}
        body = PAGE
        if path == "/v1/cost-centers":
            body = b"<html>not JSON</html>"
        elif path == "/v1/fixed-assets":
            body, headers["Content-Encoding"] = gzip.compress(PAGE), "gzip"
        elif path == "/v1/asset-components":
            body, headers["Content-Encoding"] = gzip.compress(PAGE)[:-12], "gzip"
        elif path == "/v1/naming-systems":  # promises 100 bytes, sends 10, closes
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(PAGE[:10])
            self.close_connection = True
            return
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def bad_traffic() -> Iterator[str]:
    with serving_handler(_BadTraffic) as url:
        yield url


def test_bad_traffic_is_a_finding_never_a_crash(bad_traffic, tmp_path):
    with proxy(bad_traffic, tmp_path) as (url, stopped), httpx.Client(timeout=30) as client:
        for path in ("/v1/cost-centers", "/v1/fixed-assets", "/v1/asset-components"):
            through = client.get(url + path, headers={"Accept-Encoding": "identity"})
            direct = client.get(bad_traffic + path, headers={"Accept-Encoding": "identity"})
            assert (through.content, through.headers.get("content-encoding")) == (
                direct.content,
                direct.headers.get("content-encoding"),
            )
        assert client.get(url + "/v1/naming-systems").status_code == 502  # no whole answer came to pass on
        assert client.get(url + "/v1/cost-centers").status_code == 200  # and the proxy goes on
    [done] = stopped
    assert done.returncode == 0, done.stderr
    found = {(f["path"], f["code"]) for f in done.findings}
    assert ("/v1/cost-centers", "answer-not-json") in found
    assert ("/v1/fixed-assets", "required-element-missing") in found, (
        found
    )  # the gzip page read: an item without resourceType
    assert ("/v1/asset-components", "body-encoding-unread") in found
    assert ("/v1/naming-systems", "answer-not-recorded") in found
    assert "Traceback" not in done.stderr


def test_it_refuses_to_start_without_a_target():
    missing = subprocess.run([*eris_command(), "proxy"], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "the following arguments are required: --target" in missing.stderr
    wrong = subprocess.run(
        [*eris_command(), "proxy", "--target", "erp.example"], capture_output=True, text=True, timeout=60
    )
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == "eris: --target: 'erp.example' is not an http(s) URL with a host"
