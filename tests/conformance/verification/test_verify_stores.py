"""`eris verify` of the store tests, on a certification of a conformant variant (its artifacts named otherwise in
every store): the deliveries the suite read from blob (Azurite), smb (Samba) and local storage re-derive offline
from store-reads.json with no store running, no credential of a store is published, and an altered store file is
named as a difference (its digest), with the requirement whose status it changes."""

from __future__ import annotations

import base64
import json
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.stores import startable_stores
from conformance.stores.azurite import ACCOUNT_KEY
from conformance.verification import file_digest

pytestmark = pytest.mark.slow  # a certification with three store deliveries, and its re-checks

from store_fixtures import REQUIRED  # noqa: E402  (tests/ is on the path)

VARIANT = "store-artifact-named-otherwise"
STORE_REQUIREMENTS = {"blob": "ERIS-REPORT-020", "smb": "ERIS-REPORT-021", "local": "ERIS-REPORT-022"}


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if REQUIRED:
        assert set(startable_stores()) == {"blob", "smb"}, "ERIS_REQUIRE_STORES=1 but a store server is missing"
    folder = tmp_path_factory.mktemp("certified-stores")
    # the embedded target and the stores the suite started stop when certify returns: the re-checks run offline
    # a delivery timeout of its own: a re-check of an altered artifact waits it out, as the run would have
    selection = ["--variant", VARIANT, "-k", "test_stores", "--seed", "3", "--delivery-timeout", "8"]
    code = main(["certify", *selection, "--report-dir", str(folder)])
    assert code == 3  # incomplete: a selection
    return folder


@pytest.fixture
def copy(certified: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(certified, tmp_path / "copy"))


def _statuses(folder: Path) -> dict[str, str]:
    document = json.loads((folder / "certification.json").read_text())
    return {entry["id"]: entry["status"] for entry in document["requirements"]}


def _verify(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["verify", str(folder)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _alter_a_delivery(folder: Path) -> str:
    """One byte of the first delivered artifact changed in store-reads.json; the file, as verify names it."""
    path = folder / "store-reads.json"
    document = json.loads(path.read_text())
    entry = next(entry for entry in document["stores"] if entry.get("reads") and entry["reads"][-1])
    name, digest = next(iter(entry["reads"][-1].items()))
    data = bytearray(base64.b64decode(document["files"][digest]))
    data[len(data) // 2] ^= 0x01
    document["files"][digest] = base64.b64encode(bytes(data)).decode()
    path.write_text(json.dumps(document))
    return f"{entry['where']}{name}"


def test_every_store_delivery_is_recorded_without_credentials(certified: Path) -> None:
    statuses = _statuses(certified)
    declared = [*startable_stores(), "local"]
    assert all(statuses[STORE_REQUIREMENTS[name]] == "passed" for name in declared), statuses
    reads = json.loads((certified / "store-reads.json").read_text())
    assert {entry["type"] for entry in reads["stores"]} == set(declared)
    recording = json.loads((certified / "certification.json").read_text())["recording"]
    assert recording["store_reads"]["digest"] == file_digest(certified / "store-reads.json")
    published = (certified / "traffic.har").read_text() + (certified / "store-reads.json").read_text()
    assert ACCOUNT_KEY not in published
    smb = [entry["connection_string"] for entry in reads["stores"] if entry["type"] == "smb"]
    assert all(":redacted@" in text for text in smb)


def test_the_store_deliveries_re_derive_offline(certified: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _verify(certified, capsys)
    assert code == 0, out
    assert "VERIFIED" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("ERIS-")}
    for name in [*startable_stores(), "local"]:
        assert rows[STORE_REQUIREMENTS[name]] == ["passed", "passed"]


def test_an_altered_store_file_is_named(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    altered = _alter_a_delivery(copy)
    code, out, _ = _verify(copy, capsys)
    assert code == 1
    assert "store-reads.json is not the file the certification recorded" in out
    assert f"store-reads.json: the bytes of {altered} are not those its digest names" in out
    # the altered artifact no longer opens with the session key of the recorded 202
    assert "ERIS-CRYPT-004 is passed in certification.json, failed re-derived" in out


def test_an_altered_store_file_is_named_with_its_digest_recorded_anew(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Who alters the file and records its new digest in certification.json is still found out: each file's bytes
    are named by their own digest, and the artifact no longer opens with the recorded session key."""
    altered = _alter_a_delivery(copy)
    path = copy / "certification.json"
    document = json.loads(path.read_text())
    document["recording"]["store_reads"]["digest"] = file_digest(copy / "store-reads.json")
    path.write_text(json.dumps(document))
    code, out, _ = _verify(copy, capsys)
    assert code == 1
    assert "store-reads.json is not the file" not in out
    assert f"the bytes of {altered} are not those its digest names" in out
    assert "ERIS-CRYPT-004 is passed in certification.json, failed re-derived" in out


def test_a_missing_store_record_is_one_line_and_exit_2(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (copy / "store-reads.json").unlink()
    code, _, err = _verify(copy, capsys)
    assert code == 2
    assert err.startswith("eris: ") and "store-reads.json is missing" in err and err.count("\n") == 1


def test_the_orders_name_the_month_of_the_run_not_of_the_re_check(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A re-check in a later month orders for the run's month, which certification.json's `started` says: moved two
    months back, the orders name another month and find no recorded answer."""
    path = copy / "certification.json"
    document = json.loads(path.read_text())
    started = datetime.fromisoformat(document["started"])
    document["started"] = (started - timedelta(days=62)).isoformat()
    path.write_text(json.dumps(document))
    rederived = copy.parent / "rederived"
    assert main(["verify", str(copy), "--report-dir", str(rederived)]) == 1
    assert re.search(
        r"ERIS-REPORT-02[012] is passed in certification\.json, failed re-derived", capsys.readouterr().out
    )
    messages = [
        entry.get("message", "") for entry in json.loads((rederived / "certification.json").read_text())["requirements"]
    ]
    assert any("was answered 599 'eris verify: no recorded answer" in message for message in messages)
