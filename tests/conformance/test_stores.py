"""The store servers the suite and the tests start (conformance/stores): on a free loopback port, stopped by process
id with nothing left behind, restartable on the same port with their data, and a clear refusal where one is missing."""

from __future__ import annotations

import json
import os
import re

import pytest
from store_fixtures import provided

from conformance.run.embedded import EmbeddedReference
from conformance.stores import Azurite, Samba, StoreUnavailable
from conformance.stores.places import Stores
from conformance.stores.process import port_answers
from conformance.stores.shared import RUNNING_VARIABLE, running_stores, shared_stores

pytestmark = [pytest.mark.system, pytest.mark.slow]  # every test here starts a real store


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie still answers kill(pid, 0): it is gone once its state is Z or it has no status
    try:
        return "State:\tZ" in open(f"/proc/{pid}/status").read()
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("kind", [Azurite, Samba], ids=["azurite", "samba"])
def test_a_store_stops_by_its_pid_and_leaves_nothing(kind):
    store = kind()
    with provided(store):
        pid, port, folder = store.pid, store.port, store._process.folder
        assert pid and port_answers("127.0.0.1", port) and folder.is_dir()
        store.stop()
        assert _gone(pid) and not port_answers("127.0.0.1", port)
        store.start()  # the same port again, for outage tests
        assert store.pid != pid and port_answers("127.0.0.1", port)
        second = store.pid
    assert _gone(second) and not folder.exists() and not port_answers("127.0.0.1", port)


def test_a_share_keeps_its_files_across_a_restart(samba):
    (samba.folder / "kept.txt").write_text("still here")
    samba.stop()
    samba.start()
    assert (samba.folder / "kept.txt").read_text() == "still here"


@pytest.mark.parametrize(("kind", "variable"), [(Azurite, "ERIS_AZURITE"), (Samba, "ERIS_SMBD")])
def test_a_store_named_wrongly_is_refused_saying_which_variable(kind, variable, monkeypatch, tmp_path):
    monkeypatch.setenv(variable, str(tmp_path / "missing"))
    store = kind()
    with pytest.raises(StoreUnavailable, match=f"\\${variable} names .*missing"):
        store.start()
    store.close()


def test_the_embedded_reference_is_certified_for_every_storage_type(tmp_path, azurite, samba, capsys):
    """The suite's store tests against the reference: the stores started by the suite, each type its requirement."""
    from conformance.cli import main

    out = tmp_path / "certification"
    assert main(["certify", "--report-dir", str(out), "-k", "test_stores", "--quiet"]) == 3  # a selection: incomplete
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert {"blob-storage", "local-storage", "smb-storage"} <= set(document["summary"]["features"])
    status = {entry["id"]: entry["status"] for entry in document["requirements"]}
    assert [status[f"ERIS-REPORT-02{n}"] for n in range(3)] == ["passed"] * 3


def test_a_target_not_declaring_a_store_gets_its_requirement_not_applicable(tmp_path):
    """A storage type the description does not declare is not offered: not applicable, never failed or skipped."""
    from conformance.cli import main

    with EmbeddedReference() as reference:
        description = reference.description.read_text("utf-8")
        described = tmp_path / "target.toml"
        described.write_text(re.sub(r"(?m)^storage = .*$", 'storage = ["local"]', description), encoding="utf-8")
        out = tmp_path / "certification"
        main(["certify", "--config", str(described), "--report-dir", str(out), "-k", "test_stores", "--quiet"])
    document = json.loads((out / "certification.json").read_text("utf-8"))
    status = {entry["id"]: entry["status"] for entry in document["requirements"]}
    assert (status["ERIS-REPORT-020"], status["ERIS-REPORT-021"]) == ("not-applicable", "not-applicable")
    assert status["ERIS-REPORT-022"] == "passed"


def test_runs_use_the_stores_running_for_many_and_start_none(monkeypatch):
    with shared_stores() as environment:
        assert set(json.loads(environment[RUNNING_VARIABLE])) == {"blob", "smb"}
        monkeypatch.setenv(RUNNING_VARIABLE, environment[RUNNING_VARIABLE])
        named = running_stores()
        stores = Stores({})
        try:
            places = {kind: stores.place(kind) for kind in ("blob", "smb")}
            assert stores._started == [], "a store was started although one was running"
            assert f":{named['smb']['port']}/" in places["smb"].connection_string
            assert named["blob"]["connection_string"].rstrip(";") in places["blob"].connection_string
            assert places["blob"].files() == {} and places["smb"].files() == {}
        finally:
            stores.close()
    monkeypatch.setenv(RUNNING_VARIABLE, "not json")
    assert running_stores() == {}
