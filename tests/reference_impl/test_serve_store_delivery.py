"""The reference implementation delivers orders to real stores: Azurite (blob) and Samba (smb). The artifact opens
with the contract's steps; a store that is down when the order runs gets the artifact once it is back, exactly once;
the credentials of a connectionString appear in no log line and no state of the order."""

from __future__ import annotations

import logging
import time
import uuid

import pytest
from azure.storage.blob import BlobServiceClient
from cryptography.hazmat.primitives.asymmetric import rsa
from serve_fixtures import running, seeded_settings
from serve_reports_fixtures import FAST_RETRIES, accepted, open_independently, order, order_state, post, wait_for_state
from store_fixtures import provided

from conformance.stores import Azurite, Samba
from conformance.stores.azurite import ACCOUNT_KEY

pytestmark = [pytest.mark.system, pytest.mark.slow]  # every test here starts a real store


@pytest.fixture(scope="module")
def integrator_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def blob_order(azurite: Azurite, container: str, key, folder: str = "finance/2024") -> dict:
    connection = f"{azurite.connection_string}Container={container};Folder={folder}"
    return order(key, storage={"type": "blob", "connectionString": connection}, format="csv")


def container_of(azurite: Azurite) -> str:
    name = f"r-{uuid.uuid4().hex[:12]}"
    BlobServiceClient.from_connection_string(azurite.connection_string).create_container(name)
    return name


def blobs(azurite: Azurite, container: str) -> dict[str, bytes]:
    client = BlobServiceClient.from_connection_string(azurite.connection_string).get_container_client(container)
    return {blob.name: client.download_blob(blob.name).readall() for blob in client.list_blobs()}


def test_an_order_into_blob_storage_arrives_and_opens(azurite, integrator_key, caplog):
    container = container_of(azurite)
    with caplog.at_level(logging.DEBUG), running() as server:
        execution_id, sealed = accepted(post(server, blob_order(azurite, container, integrator_key)))
        wait_for_state(server, execution_id, "delivered")
    stored = blobs(azurite, container)
    assert list(stored) == [f"finance/2024/{execution_id}.csv.enc"]
    assert open_independently(integrator_key, sealed, stored[f"finance/2024/{execution_id}.csv.enc"]).count(b"\n") > 1
    assert ACCOUNT_KEY not in caplog.text


def test_an_order_into_an_smb_share_arrives_and_opens(samba, integrator_key, caplog):
    folder = f"s-{uuid.uuid4().hex[:8]}/2024"
    storage = {"type": "smb", "connectionString": samba.url(folder)}
    with caplog.at_level(logging.DEBUG), running() as server:
        execution_id, sealed = accepted(post(server, order(integrator_key, storage=storage)))
        wait_for_state(server, execution_id, "delivered")
    written = samba.folder / folder
    assert [p.name for p in written.iterdir()] == [f"{execution_id}.parquet.enc"]
    open_independently(integrator_key, sealed, (written / f"{execution_id}.parquet.enc").read_bytes())
    assert samba.password not in caplog.text


def test_a_blob_store_down_at_run_time_gets_the_artifact_once_when_back(integrator_key, caplog):
    with provided(Azurite()) as azurite, running(seeded_settings(report_backoff=FAST_RETRIES)) as server:
        container = container_of(azurite)
        azurite.stop()
        with caplog.at_level(logging.INFO):
            execution_id, sealed = accepted(post(server, blob_order(azurite, container, integrator_key)))
            row = _wait_for_attempts(server, execution_id, 2)
        assert row.state == "generated" and "blob" in row.last_error and ACCOUNT_KEY not in row.last_error
        azurite.start()
        wait_for_state(server, execution_id, "delivered")
        stored = blobs(azurite, container)
        assert list(stored) == [f"finance/2024/{execution_id}.csv.enc"]
        open_independently(integrator_key, sealed, stored[f"finance/2024/{execution_id}.csv.enc"])
    assert "retried in" in caplog.text and ACCOUNT_KEY not in caplog.text


def test_an_smb_share_down_at_run_time_gets_the_artifact_once_when_back(integrator_key, caplog):
    with provided(Samba()) as samba, running(seeded_settings(report_backoff=FAST_RETRIES)) as server:
        samba.stop()
        storage = {"type": "smb", "connectionString": samba.url("late")}
        with caplog.at_level(logging.INFO):
            execution_id, sealed = accepted(post(server, order(integrator_key, storage=storage)))
            row = _wait_for_attempts(server, execution_id, 2)
        assert row.state == "generated" and "smb://" in row.last_error and samba.password not in row.last_error
        samba.start()
        wait_for_state(server, execution_id, "delivered")
        written = samba.folder / "late"
        assert [p.name for p in written.iterdir()] == [f"{execution_id}.parquet.enc"]
        open_independently(integrator_key, sealed, (written / f"{execution_id}.parquet.enc").read_bytes())
    assert "retried in" in caplog.text and samba.password not in caplog.text


def _wait_for_attempts(server, execution_id: str, attempts: int, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = order_state(server, execution_id)
        if row is not None and row.attempts >= attempts:
            return row
        time.sleep(0.05)
    pytest.fail(f"order {execution_id} made fewer than {attempts} attempts: {order_state(server, execution_id)}")
