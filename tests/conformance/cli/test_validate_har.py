"""`eris validate` of HAR files: every exchange of the contract judged by the judge of an exchange, its findings
located by entry, method, path and JSON Pointer, with their side and requirement, in text, JSON and SARIF."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from case_files import load_tests
from project_paths import eris_command

from conformance.cli import main
from conformance.cli.har_input import judged_entries
from conformance.exchange_judge import ExchangeJudge
from profiles.validator import Validator

BASE = "http://erp.example:8080"
CONTRACTOR = next(t.data for t in load_tests() if t.file == "party/contractor.json" and t.test["valid"])
NAMELESS = {key: value for key, value in CONTRACTOR.items() if key != "resourceType"}


def _entry(
    method: str,
    url: str,
    status: int = 200,
    answer: Any = None,
    *,
    request_body: bytes | None = None,
    content: dict[str, Any] | None = None,
    response_headers: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    request: dict[str, Any] = {"method": method, "url": url, "headers": [], "queryString": [], "bodySize": 0}
    if request_body is not None:
        request["postData"] = {"mimeType": "application/json", "text": request_body.decode()}
        request["bodySize"] = len(request_body)
    if content is None:
        text = json.dumps(answer) if answer is not None else ""
        content = {"size": len(text.encode()), "mimeType": "application/json", "text": text}
    headers = response_headers if response_headers is not None else [("Content-Type", "application/json")]
    response = {
        "status": status,
        "headers": [{"name": n, "value": v} for n, v in headers],
        "content": content,
        "bodySize": content.get("size", 0),
    }
    return {"startedDateTime": "2026-11-28T12:00:00Z", "time": 1, "request": request, "response": response}


def _har(*entries: dict[str, Any]) -> str:
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}})


def _envelope(*items: Any) -> dict[str, Any]:
    return {"items": list(items), "nextToken": None}


@pytest.fixture
def har_file(tmp_path: Path):
    def write(*entries: dict[str, Any], name: str = "traffic.har") -> str:
        path = tmp_path / name
        path.write_text(_har(*entries), encoding="utf-8")
        return str(path)

    return write


def test_findings_name_the_entry_method_path_side_pointer_and_requirement(har_file, capsys):
    path = har_file(
        _entry("GET", f"{BASE}/v1/parties?count=2", answer=_envelope(CONTRACTOR)),
        _entry("GET", f"{BASE}/v1/capabilities", answer=_envelope(CONTRACTOR, NAMELESS)),
        _entry("GET", f"{BASE}/v1/parties?count=many", answer=_envelope()),
    )
    assert main(["validate", path]) == 1
    lines = capsys.readouterr().out.splitlines()
    server = [line for line in lines if "log.entries[1] GET /v1/capabilities: server response body/items/1" in line]
    assert server and all(line.endswith("ERIS-BASE-001]") for line in server if "resourceType" in line), lines
    assert any(
        "log.entries[2] GET /v1/parties: client query/count: error: count='many'" in line
        and "[paging-out-of-range, ERIS-READ-002]" in line
        for line in lines
    ), lines
    assert not any("log.entries[0]" in line for line in lines)
    assert lines[-1].startswith("3 document(s) checked (3 exchange(s) of HAR files: 1 error(s) of clients,")


def test_json_and_sarif_reports_carry_the_side_and_the_requirement(har_file, tmp_path):
    path = har_file(_entry("GET", f"{BASE}/v1/capabilities", answer=_envelope(NAMELESS)))
    assert main(["validate", "--format", "json", "-o", str(tmp_path / "r.json"), path]) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    [result] = report["results"]
    assert (result["entry"], result["method"], result["path"], result["valid"]) == (0, "GET", "/v1/capabilities", False)
    issue = next(i for i in result["issues"] if i["requirement"] == "ERIS-BASE-001")
    assert (issue["side"], issue["part"], issue["location"]) == ("server", "response body", "/items/0")
    assert report["summary"]["serverErrors"] >= 1 and report["summary"]["exchanges"] == 1

    assert main(["validate", "--format", "sarif", "-o", str(tmp_path / "r.sarif"), path]) == 1
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    result = next(r for r in sarif["runs"][0]["results"] if r["properties"].get("requirement") == "ERIS-BASE-001")
    assert result["properties"]["side"] == "server"
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "log.entries[0] response body/items/0"


def test_paths_outside_the_contract_are_information_once_each(har_file, capsys):
    path = har_file(
        _entry("GET", f"{BASE}/v1/parties/contractor-1", answer=CONTRACTOR),
        _entry("GET", f"{BASE}/v1/parties/contractor-1", answer=CONTRACTOR),
        _entry("POST", "http://127.0.0.1:9999/notifications", answer={}),
        _entry("DELETE", f"{BASE}/v1/parties", status=405, answer=None),
    )
    assert main(["validate", path]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "path-outside-contract" in line]
    assert len(lines) == 3, lines
    assert "log.entries[0] GET /v1/parties/contractor-1" in lines[0] and ": information: " in lines[0]
    assert "http://127.0.0.1:9999/notifications is not a path of the contract" in lines[1]
    assert "the contract has no DELETE on /v1/parties" in lines[2]


def test_base64_bodies_are_judged_and_cut_or_missing_ones_are_information(har_file, capsys):
    invalid = json.dumps(_envelope(NAMELESS)).encode()
    encoded = {"size": len(invalid), "mimeType": "application/json", "text": base64.b64encode(invalid).decode()}
    path = har_file(
        _entry("GET", f"{BASE}/v1/capabilities", content={**encoded, "encoding": "base64"}),
        _entry("GET", f"{BASE}/v1/capabilities", content={"size": 90000, "mimeType": "application/json", "text": "{"}),
        _entry("GET", f"{BASE}/v1/capabilities", content={"size": 1200, "mimeType": "application/json"}),
        _entry("POST", f"{BASE}/v1/parties", request_body=b"{", answer=CONTRACTOR),
    )
    path_data = json.loads(Path(path).read_text())
    path_data["log"]["entries"][3]["request"]["bodySize"] = 5000  # its body cut to one byte
    Path(path).write_text(json.dumps(path_data))
    assert main(["validate", path]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("log.entries[0] GET /v1/capabilities: server response body/items/0" in line for line in lines)
    cut = [line for line in lines if "[body-not-recorded]" in line]
    assert [line.split(": ")[0].rsplit(" ", 2)[0] for line in cut] == [
        f"{path}:log.entries[1]",
        f"{path}:log.entries[2]",
        f"{path}:log.entries[3]",
    ], lines
    assert all(": information: " in line for line in cut)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"log": {"entries": [', "not JSON: "),
        ("nothing like JSON", "not JSON: "),
        ("[1, 2]", "not a HAR: the document is a JSON list, not an object with a log"),
        ('{"log": {"pages": []}}', "not a HAR: its log has no entries array"),
        ('{"entries": []}', "not a HAR: it has no log object"),
    ],
)
def test_a_file_that_is_not_a_har_is_exit_2_with_one_line_saying_why(tmp_path, capsys, text, why):
    path = tmp_path / "broken.har"
    path.write_text(text)
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    problem = [line for line in out if "cannot be read" in line]
    assert len(problem) == 1 and f"{path}: error: cannot be read: {why}" in problem[0], out


_LONG = b'{"log": {"entries": [' + b'{"a": 1},\n' * 20_000 + b'{"a" 1}]}}'


@pytest.mark.parametrize(
    ("data", "why"),
    [
        # yajl, ijson's parser, wrote the first as a Python bytes repr with its own drawing of a caret
        (
            b'{"log": {"entries": [\xff\xfe]}}',
            "a character that begins no JSON value, near line 1, column 22 (byte 22)",
        ),
        (
            b'{"log": {"entries": [\n{"a": 1},\n{"a" 1}]}}',
            "no ':' between a member's name and its value, near line 3, column 6 (byte 38)",
        ),
        (_LONG, "no ':' between a member's name and its value, near line 20001, column 6 (byte 200027)"),
        (b'{"log": {"entries": [{"a": 1}', "the text ends before its JSON does, at its end (byte 29)"),
    ],
    ids=["not UTF-8", "line 3", "a later block", "cut short"],
)
def test_a_har_that_stops_being_json_says_why_and_where_in_words(tmp_path, capsys, data, why):
    path = tmp_path / "broken.har"
    path.write_bytes(data)
    assert main(["validate", str(path)]) == 2
    problem = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{path}: ")]
    assert problem == [f"{path}: error: cannot be read: not JSON: {why} [input-unreadable]"]


def test_an_entry_that_is_no_entry_is_a_problem_of_that_entry_only(har_file, capsys):
    path = har_file(
        {"request": {"url": f"{BASE}/v1/parties"}}, _entry("GET", f"{BASE}/v1/capabilities", answer=_envelope(NAMELESS))
    )
    assert main(["validate", path]) == 2
    out = capsys.readouterr().out
    assert f"{path}:log.entries[0]: error: cannot be read: not a HAR entry: " in out
    assert "log.entries[1] GET /v1/capabilities: server" in out


def test_har_files_of_a_folder_and_a_har_on_stdin(tmp_path, har_file):
    har_file(_entry("GET", f"{BASE}/v1/capabilities", answer=_envelope(NAMELESS)), name="a.har")
    (tmp_path / "party.json").write_text(json.dumps(CONTRACTOR))
    folder = subprocess.run([*eris_command(), "validate", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert folder.returncode == 1, folder.stdout + folder.stderr
    assert "a.har:log.entries[0] GET /v1/capabilities: server" in folder.stdout
    assert "2 document(s) checked (1 exchange(s) of HAR files" in folder.stdout

    har = _har(_entry("GET", f"{BASE}/v1/capabilities", answer=_envelope(NAMELESS)))
    piped = subprocess.run(
        [*eris_command(), "validate", "--format-in", "har", "-"], input=har, capture_output=True, text=True, timeout=120
    )
    assert piped.returncode == 1, piped.stdout + piped.stderr
    assert "<stdin>:log.entries[0] GET /v1/capabilities: server" in piped.stdout


def test_the_base_url_cuts_its_path_prefix_and_a_bad_one_is_refused(har_file, capsys):
    path = har_file(_entry("GET", "https://gw.example/erp/v1/capabilities", answer=_envelope(NAMELESS)))
    assert main(["validate", "--base-url", "https://gw.example/erp", path]) == 1
    assert "log.entries[0] GET /v1/capabilities: server" in capsys.readouterr().out
    assert main(["validate", "--base-url", "gw.example", path]) == 2
    assert "eris: --base-url: 'gw.example' is not an http(s) URL with a host" in capsys.readouterr().err


class _GeneratedHar(io.RawIOBase):
    """A HAR of `count` small exchanges, made as it is read: the test holds no copy of it."""

    def __init__(self, count: int) -> None:
        self._parts = self._generate(count)
        self._pending = b""

    @staticmethod
    def _generate(count: int) -> Iterator[bytes]:
        yield b'{"log": {"version": "1.2", "entries": ['
        entry = json.dumps(_entry("GET", f"{BASE}/v1/cost-centers?count=5", answer=_envelope())).encode()
        for index in range(count):
            yield (b"," if index else b"") + entry
        yield b"]}}"

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self._pending) < len(buffer):
            part = next(self._parts, None)
            if part is None:
                break
            self._pending += part
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def _peak_bytes(count: int, judge: ExchangeJudge) -> int:
    tracemalloc.start()
    try:
        judged = sum(1 for _ in judged_entries("generated.har", io.BufferedReader(_GeneratedHar(count)), judge, None))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert judged == count
    return peak


def test_memory_stays_flat_as_the_har_grows():
    judge = ExchangeJudge(Validator())
    _peak_bytes(50, judge)  # the validator's schemas compiled, the judge's tables read
    small, large = _peak_bytes(1_000, judge), _peak_bytes(10_000, judge)
    # ten times the entries (about 2.5 MB more of HAR text) in the same memory (measured: 543 KB for 1,000,
    # 10,000 and 40,000 entries)
    assert large < small * 1.1 + 64 * 1024, (small, large)


# -- the suite's own traffic.har -------------------------------------------------------------------------------

SUBSET = "generated_requests or envelope_of_valid_items or malformed"
"""The property phase, the envelope of every list read, the malformed requests the suite sends on purpose."""
READS = "envelope_of_valid_items"
"""Every list read of the contract once, the capabilities among them: where the fault of the faulty run shows."""
SEED = "1"
"""The property phase's seed, fixed: a test's outcome does not change from run to run (bench/seeds.py varies it)."""


def _certified_har(folder: Path, *options: str) -> Path:
    result = subprocess.run(
        [*eris_command(), "certify", "--quiet", "--report-dir", str(folder), "--seed", SEED, *options],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert (folder / "traffic.har").is_file(), result.stdout + result.stderr
    return folder / "traffic.har"


def _judged_har(har: Path, tmp_path: Path) -> list[dict[str, Any]]:
    report = tmp_path / f"{har.parent.name}.json"
    main(["validate", "--format", "json", "-o", str(report), str(har)])
    return [
        {**issue, "entry": result["entry"], "path": result["path"]}
        for result in json.loads(report.read_text())["results"]
        for issue in result["issues"]
    ]


@pytest.mark.slow
def test_the_har_of_a_conformant_run_has_no_server_finding_and_the_suites_malformed_requests_are_the_clients(
    tmp_path_factory, tmp_path
):
    har = _certified_har(tmp_path_factory.mktemp("conformant") / "report", "-k", SUBSET, "--examples", "3")
    issues = _judged_har(har, tmp_path)
    server = [i for i in issues if i["side"] == "server" and i["severity"] != "information"]
    assert server == [], server[:5]
    client_errors = {i["code"] for i in issues if i["side"] == "client" and i["severity"] == "error"}
    # generated filters of any text, bodies that are not JSON: what the suite sends on purpose
    assert {"query-parameter-malformed", "request-not-json"} <= client_errors, client_errors


@pytest.mark.slow
def test_the_har_of_a_faulty_run_names_the_faults_requirement(tmp_path_factory, tmp_path):
    har = _certified_har(
        tmp_path_factory.mktemp("faulty") / "report", "-k", READS, "--fault", "capabilities-without-resourceType"
    )
    issues = _judged_har(har, tmp_path)
    named = {(i["side"], i["requirement"], i["path"]) for i in issues if i["severity"] == "error"}
    assert ("server", "ERIS-BASE-001", "/v1/capabilities") in named, sorted(named)[:20]
    assert not [
        i for i in issues if i["side"] == "server" and i["path"] != "/v1/capabilities" and i["severity"] == "error"
    ]
