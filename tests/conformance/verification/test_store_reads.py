"""What a run records of its store reads (store-reads.json) and how `eris verify` answers the store tests from it:
the credentials of a connectionString redacted, a real local store's reads recorded and played back in order, an
altered file named by its digest, a store the run could not have missing again."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from conformance.client.redaction import redacted_connection_strings
from conformance.generation.made_up import running_test, set_names_seed
from conformance.stores import StoreUnavailable
from conformance.stores.places import Stores
from conformance.stores.record import STORE_RECORD_VARIABLE, store_reads
from conformance.verification.recorded import match_key
from conformance.verification.replayed_stores import ReplayedStores, read_store_reads


@pytest.fixture
def recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The record's folder, as eris certify names it to the processes of a run; a names seed as in a run (the
    replay draws the same folder again, in the same running test)."""
    folder = tmp_path / "record"
    folder.mkdir()
    monkeypatch.setenv(STORE_RECORD_VARIABLE, str(folder))
    set_names_seed("seed")
    yield folder
    set_names_seed(None)


def test_store_credentials_are_redacted_and_stay_so() -> None:
    blob = b'{"connectionString":"AccountName=a;AccountKey=K3y+/w==;BlobEndpoint=http://h/a;Folder=f"}'
    smb = b"smb://eris:p%40ss@127.0.0.1:445/reports/eris-1"
    sas = b"https://a.blob.core.windows.net/c?sv=2024&sig=s1gn%2F&se=1"
    assert (
        redacted_connection_strings(blob)
        == b'{"connectionString":"AccountName=a;AccountKey=redacted;BlobEndpoint=http://h/a;Folder=f"}'
    )
    assert redacted_connection_strings(smb) == b"smb://eris:redacted@127.0.0.1:445/reports/eris-1"
    assert redacted_connection_strings(sas) == b"https://a.blob.core.windows.net/c?sv=2024&sig=redacted&se=1"
    assert redacted_connection_strings(b"smb://127.0.0.1:445/reports/f") == b"smb://127.0.0.1:445/reports/f"
    # the replay matches a re-check's order naming the redacted form with the run's, recorded redacted
    assert match_key("POST", "/v1/reports", smb) == match_key("POST", "/v1/reports", redacted_connection_strings(smb))


def _recorded_local_run(tmp_path: Path, recording: Path) -> tuple[Path, str]:
    """A place of a real local store read three times (the second read like the first), then the record written as
    eris certify writes it; its path, and the folder of the place."""
    root = tmp_path / "local"
    root.mkdir()
    stores = Stores({"local": {"path": str(root)}})
    place = stores.place("local")
    assert place.files() == {}
    (root / place.connection_string).mkdir()
    (root / place.connection_string / "artifact.enc").write_bytes(b"\x00ciphertext")
    assert place.files() == {"artifact.enc": b"\x00ciphertext"}
    assert place.files() == {"artifact.enc": b"\x00ciphertext"}
    stores.close()
    document = store_reads(recording)
    assert document is not None
    path = tmp_path / "store-reads.json"
    path.write_text(json.dumps(document))
    return path, place.connection_string


def test_a_local_store_s_reads_are_played_back_in_order(tmp_path: Path, recording: Path) -> None:
    path, folder = _recorded_local_run(tmp_path, recording)
    (entry,) = json.loads(path.read_text())["stores"]
    assert (entry["test"], entry["type"], entry["folder"]) == (running_test(), "local", folder)
    assert len(entry["reads"]) == 2  # the read like the one before it is not kept
    set_names_seed("seed")  # the re-check draws the names again
    recorded = read_store_reads(path)
    assert recorded.altered == []
    place = ReplayedStores(recorded).place("local")
    assert place.connection_string == folder and place.where.endswith(f"/{folder}/")
    assert [place.files(), place.files(), place.files()] == [{}, *[{"artifact.enc": b"\x00ciphertext"}] * 2]
    with pytest.raises(StoreUnavailable, match="no blob place of this test"):
        ReplayedStores(recorded).place("blob")


def test_an_altered_store_file_is_named_by_its_digest(tmp_path: Path, recording: Path) -> None:
    path, folder = _recorded_local_run(tmp_path, recording)
    document = json.loads(path.read_text())
    (digest,) = document["files"]
    document["files"][digest] = base64.b64encode(b"\x00altered").decode()
    path.write_text(json.dumps(document))
    recorded = read_store_reads(path)
    (said,) = recorded.altered
    assert (
        said
        == f"store-reads.json: the bytes of local {tmp_path}/local/{folder}/artifact.enc are not those its digest names"
    )
    set_names_seed("seed")
    place = ReplayedStores(recorded).place("local")
    place.files()
    assert place.files() == {"artifact.enc": b"\x00altered"}  # served as recorded: the test judges what is there


def test_a_store_the_run_could_not_have_is_missing_again(tmp_path: Path, recording: Path) -> None:
    stores = Stores({"local": {"path": str(tmp_path / "absent")}})
    with pytest.raises(StoreUnavailable) as raised:
        stores.place("local")
    path = tmp_path / "store-reads.json"
    path.write_text(json.dumps(store_reads(recording)))
    with pytest.raises(StoreUnavailable) as replayed:
        ReplayedStores(read_store_reads(path)).place("local")
    assert str(replayed.value) == str(raised.value)


def test_a_run_without_the_record_variable_records_nothing(
    tmp_path: Path, recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(STORE_RECORD_VARIABLE)
    (tmp_path / "local").mkdir()
    Stores({"local": {"path": str(tmp_path / "local")}}).place("local").files()
    assert store_reads(recording) is None
