"""`eris verify` on a certification of the embedded reference implementation (a few tests, one delivery of a
report order included): the statuses re-derive offline with the target stopped, and each tampering the issue names
makes it exit 1, naming the first difference."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.cli import main

pytestmark = pytest.mark.slow  # a certification of its own, and its re-check

SELECTION = ["-k", "value_set or test_the_session_key_opens_with_rsa_oaep_sha256", "--seed", "3"]


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certified")
    # the embedded target stops when certify returns: the re-checks below run with no target at all
    assert main(["certify", *SELECTION, "--report-dir", str(folder)]) == 3  # incomplete: a selection
    return folder


@pytest.fixture
def copy(certified: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(certified, tmp_path / "copy"))


def _verify(folder: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str]:
    code = main(["verify", str(folder), *more])
    return code, capsys.readouterr().out


def test_the_certification_records_what_a_recheck_needs(certified: Path) -> None:
    document = json.loads((certified / "certification.json").read_text())
    recording = document["recording"]
    assert recording["traffic"]["digest"].startswith("sha256:")
    assert recording["suite"]["code_digest"] == document["suite"]["code_digest"]
    assert recording["seed"] == 3 and recording["names_seed"]
    assert recording["options"]["keyword"] == SELECTION[1]
    assert recording["target"]["target"]["token"].endswith(".redacted")
    assert (certified / "report-keys.pem").read_bytes().count(b"BEGIN PRIVATE KEY") >= 1


def test_no_token_is_written_into_the_traffic(certified: Path) -> None:
    har = json.loads((certified / "traffic.har").read_text())
    values = [
        header["value"]
        for entry in har["log"]["entries"]
        for header in entry["request"]["headers"]
        if header["name"].lower() == "authorization"
    ]
    assert values and all(value.endswith("redacted") for value in values)


def test_every_status_re_derives_offline(certified: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(certified, capsys)
    assert code == 0, out
    assert "VERIFIED" in out
    assert "found no recorded answer" not in out or "naming-systems" in out  # a read the session makes first


def test_a_changed_status_is_named(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy / "certification.json"
    document = json.loads(path.read_text())
    changed = next(r for r in document["requirements"] if r["status"] == "passed")
    changed["status"] = "failed"
    path.write_text(json.dumps(document))
    code, out = _verify(copy, capsys)
    assert code == 1
    assert f"DIFFERENT: {changed['id']} is failed in certification.json, passed re-derived" in out


def test_a_changed_answer_is_named(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy / "traffic.har"
    har = json.loads(path.read_text())
    listing = next(
        e
        for e in har["log"]["entries"]
        if e["request"]["url"].endswith("/v1/value-sets?count=100&offset=0") and e["response"]["status"] == 200
    )
    listing["response"]["status"] = 500
    path.write_text(json.dumps(har))
    code, out = _verify(copy, capsys)
    assert code == 1
    assert "DIFFERENT: traffic.har is not the file the certification recorded" in out
    assert "<- differs" in out


def test_an_item_removed_from_an_answer_is_named(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy / "traffic.har"
    har = json.loads(path.read_text())
    for entry in har["log"]["entries"]:
        content = entry["response"]["content"]
        if "/v1/value-sets" in entry["request"]["url"] and '"items"' in content.get("text", ""):
            body = json.loads(content["text"])
            if len(body["items"]) > 1:
                body["items"] = body["items"][1:]
                content["text"] = json.dumps(body)
    path.write_text(json.dumps(har))
    code, out = _verify(copy, capsys)
    assert code == 1
    assert "traffic.har is not the file the certification recorded" in out


def test_another_suite_version_is_said_and_re_derived_on_request(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy / "certification.json"
    document = json.loads(path.read_text())
    document["recording"]["suite"]["version"] = "0.0.1"
    path.write_text(json.dumps(document))
    code, out = _verify(copy, capsys)
    assert code == 1
    assert "made by eris 0.0.1" in out and "not re-derived" in out
    code, out = _verify(copy, capsys, "--with-installed-suite")
    assert "made by eris 0.0.1" in out and "VERIFIED" in out
    assert code == 0


def test_another_contract_is_said(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy / "certification.json"
    document = json.loads(path.read_text())
    document["recording"]["contract_digest"] = "sha256:0"
    path.write_text(json.dumps(document))
    code, out = _verify(copy, capsys)
    assert code == 1
    assert "contract data (schemas/, profiles/) that differ" in out
