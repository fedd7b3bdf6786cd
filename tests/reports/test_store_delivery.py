"""Delivery to blob and smb against real servers (Azurite, Samba): whole, atomic, idempotent by name, failures
retryable and without credentials in their messages; connectionStrings eris cannot use refused up front."""

from __future__ import annotations

import asyncio
import base64
import os
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from azure.storage.blob import BlobServiceClient, ContainerSasPermissions, generate_container_sas

from conformance.stores.azurite import ACCOUNT, ACCOUNT_KEY
from reports.address_policy import HttpPolicy, networks
from reports.blob_delivery import BlobTarget, parse_blob_location
from reports.delivery import delivery_target
from reports.delivery_base import DeliveryFailed, StorageRefused
from reports.smb_delivery import SmbTarget, parse_smb_location


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    path = tmp_path / "artifact"
    path.write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    return path


@pytest.fixture
def container(azurite) -> str:
    name = f"c-{uuid.uuid4().hex[:16]}"
    BlobServiceClient.from_connection_string(azurite.connection_string).create_container(name)
    return name


def blobs(azurite, container: str) -> dict[str, bytes]:
    client = BlobServiceClient.from_connection_string(azurite.connection_string).get_container_client(container)
    return {blob.name: client.download_blob(blob.name).readall() for blob in client.list_blobs()}


def deliver(target, artifact: Path, name: str = "e1.parquet.enc") -> None:
    asyncio.run(target.deliver(artifact, execution_id=name.split(".")[0], file_name=name))


# -- blob --------------------------------------------------------------------------------------------------


def test_a_blob_delivery_is_whole_and_made_again_replaces_it(azurite, container, artifact):
    location = parse_blob_location(f"{azurite.connection_string}Container={container};Folder=finance/2024/")
    target = BlobTarget(location, block_bytes=256 * 1024)  # 13 blocks
    deliver(target, artifact)
    deliver(target, artifact)
    assert blobs(azurite, container) == {"finance/2024/e1.parquet.enc": artifact.read_bytes()}


def test_a_container_sas_url_is_a_blob_connection_string(azurite, container, artifact):
    sas = generate_container_sas(
        ACCOUNT,
        container,
        account_key=ACCOUNT_KEY,
        permission=ContainerSasPermissions(write=True, create=True),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )
    deliver(delivery_target("blob", f"{azurite.endpoint}/{container}?{sas}", local_root=None), artifact)
    assert blobs(azurite, container) == {"e1.parquet.enc": artifact.read_bytes()}


def test_a_blob_is_never_seen_partly_written(azurite, container, tmp_path):
    big = tmp_path / "big"
    big.write_bytes(os.urandom(24 * 1024 * 1024))
    location = parse_blob_location(f"{azurite.connection_string}Container={container}")
    client = BlobServiceClient.from_connection_string(azurite.connection_string).get_container_client(container)
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.extend(blob.size for blob in client.list_blobs())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        deliver(BlobTarget(location, block_bytes=512 * 1024), big)
    finally:
        done.set()
        watcher.join()
    seen.extend(blob.size for blob in client.list_blobs())
    assert seen and set(seen) == {big.stat().st_size}


def test_blob_failures_are_retryable_and_keep_the_key_out_of_the_message(azurite, container, artifact):
    wrong_key = base64.b64encode(os.urandom(64)).decode()
    wrong = azurite.connection_string.replace(ACCOUNT_KEY, wrong_key) + f"Container={container}"
    with pytest.raises(DeliveryFailed) as refused:
        deliver(BlobTarget(parse_blob_location(wrong)), artifact)
    assert refused.value.retryable and wrong_key not in str(refused.value) and "403" in str(refused.value)
    missing = parse_blob_location(f"{azurite.connection_string}Container=no-such-container")
    with pytest.raises(DeliveryFailed, match=r"404.*ContainerNotFound") as absent:
        deliver(BlobTarget(missing), artifact)
    assert absent.value.retryable


def test_a_blob_store_that_is_down_fails_retryably(azurite, artifact):
    down = azurite.connection_string.replace(str(azurite.port), "9") + "Container=reports"
    with pytest.raises(DeliveryFailed) as failed:
        deliver(BlobTarget(parse_blob_location(down), connect_timeout=2), artifact)
    assert failed.value.retryable and ACCOUNT_KEY not in str(failed.value)


@pytest.mark.parametrize(
    ("connection_string", "named"),
    [
        ("AccountName=a;AccountKey=a2V5", "Container"),
        ("BlobEndpoint=http://127.0.0.1:1/a;Container=reports", "credential"),
        ("AccountKey=a2V5;Container=reports", "AccountName"),
        ("BlobEndpoint=ftp://host/a;AccountKey=a2V5;Container=reports", "BlobEndpoint"),
        ("AccountName=a;AccountKey=a2V5;Container=Bad_Name", "container name"),
        ("AccountName=a;AccountKey=not*base64;Container=reports", "AccountKey"),
        ("AccountName=a;AccountKey=a2V5;Container=reports;Folder=../up", "Folder"),
        ("https://host.example/reports", "shared access signature"),
        ("https://host.example/?sig=x", "container"),
        ("not a connection string", "Key=Value"),
    ],
)
def test_an_unusable_blob_connection_string_is_refused_naming_the_fault(connection_string, named):
    with pytest.raises(StorageRefused, match=named) as refused:
        delivery_target("blob", connection_string, local_root=None)
    assert "a2V5" not in str(refused.value)


def test_a_blob_endpoint_the_policy_refuses_is_refused_at_the_order():
    denied = "BlobEndpoint=http://169.254.169.254/a;AccountName=a;AccountKey=a2V5;Container=reports"
    with pytest.raises(StorageRefused, match="never go"):
        delivery_target("blob", denied, local_root=None)
    allowed_only = HttpPolicy(allowed=networks(["10.0.0.0/8"]))
    outside = "BlobEndpoint=http://127.0.0.1:10000/a;AccountName=a;AccountKey=a2V5;Container=reports"
    with pytest.raises(StorageRefused, match="outside"):
        delivery_target("blob", outside, local_root=None, http_policy=allowed_only)


# -- smb ---------------------------------------------------------------------------------------------------


def test_an_smb_delivery_is_whole_renamed_into_place_and_made_again_replaces_it(samba, artifact):
    folder = f"f-{uuid.uuid4().hex[:8]}/2024"
    target = delivery_target("smb", samba.url(folder), local_root=None)
    deliver(target, artifact)
    deliver(target, artifact)
    written = samba.folder / folder
    assert sorted(p.name for p in written.iterdir()) == ["e1.parquet.enc"]
    assert (written / "e1.parquet.enc").read_bytes() == artifact.read_bytes()


def test_an_smb_file_is_never_seen_partly_written(samba, tmp_path):
    big = tmp_path / "big"
    big.write_bytes(os.urandom(24 * 1024 * 1024))
    folder = samba.folder / f"w-{uuid.uuid4().hex[:8]}"
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if (final := folder / "e1.parquet.enc").exists():
                seen.append(final.stat().st_size)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        deliver(delivery_target("smb", samba.url(folder.name), local_root=None), big)
    finally:
        done.set()
        watcher.join()
    seen.append((folder / "e1.parquet.enc").stat().st_size)
    assert set(seen) == {big.stat().st_size}
    assert [p.name for p in folder.iterdir()] == ["e1.parquet.enc"]


def test_smb_failures_are_retryable_and_keep_the_password_out_of_the_message(samba, artifact):
    wrong = samba.url("x").replace(samba.password, "Wrong-Pass-123")
    with pytest.raises(DeliveryFailed) as refused:
        deliver(delivery_target("smb", wrong, local_root=None), artifact)
    assert refused.value.retryable and "Wrong-Pass-123" not in str(refused.value)
    down = samba.url("x").replace(f":{samba.port}/", ":9/")
    with pytest.raises(DeliveryFailed) as failed:
        deliver(SmbTarget(parse_smb_location(down), connect_timeout=2), artifact)
    assert failed.value.retryable and samba.password not in str(failed.value)


def test_the_smb_connection_string_takes_a_domain_and_escaped_characters():
    location = parse_smb_location("smb://CORP%3Bjan:p%40ss%3Aw%2Frd@files.example:4450/reports/a%20b/2024")
    assert (location.domain, location.username, location.password) == ("CORP", "jan", "p@ss:w/rd")
    assert (location.host, location.port, location.share, str(location.folder)) == (
        "files.example",
        4450,
        "reports",
        "a b/2024",
    )
    assert location.account == "CORP\\jan" and "p@ss" not in repr(location)


@pytest.mark.parametrize(
    ("connection_string", "named"),
    [
        ("\\\\host\\share", "URL of the form"),
        ("smb://host/share", "user:password@"),
        ("smb://u:p@host", "no share"),
        ("smb://u:p@host/share/../up", "path segment"),
        ("smb://u:p@host/share/a:b", "path segment"),
        ("smb://u:p@host:99999/share", "port"),
        ("smb://u:p@host/share?x=1", "query"),
        ("smb://u:p@169.254.169.254/share", "never go"),
    ],
)
def test_an_unusable_smb_connection_string_is_refused_naming_the_fault(connection_string, named):
    with pytest.raises(StorageRefused, match=named) as refused:
        delivery_target("smb", connection_string, local_root=None)
    assert ":p@" not in str(refused.value)
