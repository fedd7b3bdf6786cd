"""An accepted report order delivered: the encrypted artifact at an HTTP receiver and in a local folder, at runAt."""

from __future__ import annotations

import gzip
import io
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from serve_fixtures import assert_problem, running, seeded_settings
from serve_reports_fixtures import accepted, open_independently, order, order_state, post, wait_for_state

from reference_impl.seed import OWN_ORGANIZATION_NIP
from reports.delivery import EXECUTION_ID_HEADER
from reports.receiver import Receiver


@pytest.fixture(scope="module")
def server():
    with running() as running_server:
        yield running_server


@pytest.fixture
def receiver(tmp_path: Path):
    with Receiver(tmp_path / "received") as started:
        yield started


@pytest.mark.parametrize("report_id", ["cost-calculation", "product-level-cost-calculation"])
@pytest.mark.parametrize("format_", ["parquet", "csv"])
@pytest.mark.parametrize("compression", [False, True], ids=["plain", "gzip"])
def test_the_artifact_arrives_at_the_receiver_and_opens_with_the_primitives(
    server, receiver, integrator_key, report_id, format_, compression
):
    url = receiver.delivery_url(f"{report_id}-{format_}-{compression}")
    body = order(integrator_key, url, reportId=report_id, format=format_, compression=compression)
    execution_id, sealed = accepted(post(server, body))
    delivery = receiver.wait_for_delivery(url.rsplit("/", 1)[1], timeout=30)
    assert delivery.headers["content-type"] == "application/octet-stream"
    assert delivery.headers[EXECUTION_ID_HEADER.lower()] == execution_id
    artifact = delivery.path.read_bytes()
    plaintext = open_independently(integrator_key, sealed, artifact)
    assert delivery.size == len(artifact) == len(plaintext) + 16
    if compression:
        assert plaintext[:2] == b"\x1f\x8b"  # gzip's magic number
        plaintext = gzip.decompress(plaintext)
    if format_ == "parquet":
        table = pq.read_table(io.BytesIO(plaintext))
    else:
        as_text = pa_csv.ConvertOptions(column_types={"company_tax_no": pa.string()})
        table = pa_csv.read_csv(io.BytesIO(plaintext), convert_options=as_text)
    assert table.num_rows > 0
    assert set(table.column("company_tax_no").to_pylist()) == {OWN_ORGANIZATION_NIP}
    assert set(table.column("year").to_pylist()) == {2024} and set(table.column("month").to_pylist()) == {10}


def test_the_artifact_is_ciphertext_and_tag_only(server, receiver, integrator_key):
    url = receiver.delivery_url("layout")
    _, sealed = accepted(post(server, order(integrator_key, url, format="csv")))
    artifact = receiver.wait_for_delivery("layout", timeout=30).path.read_bytes()
    plaintext = open_independently(integrator_key, sealed, artifact)
    assert len(artifact) == len(plaintext) + 16
    assert plaintext.split(b"\n", 1)[0].replace(b'"', b"").startswith(b"company_tax_no,year,month")
    assert session_key_bytes_absent(artifact, integrator_key, sealed)


def session_key_bytes_absent(artifact: bytes, key: rsa.RSAPrivateKey, sealed: bytes) -> bool:
    """Neither the AES key nor the nonce is embedded in the artifact."""
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    session = key.decrypt(sealed, oaep)
    return session[:32] not in artifact and session[32:] not in artifact


def test_local_delivery_writes_below_the_root_and_refuses_paths_outside(tmp_path, integrator_key):
    root = tmp_path / "root"
    with running(seeded_settings(local_root=str(root))) as server:
        storage = {"type": "local", "connectionString": "finance/2024"}
        execution_id, sealed = accepted(post(server, order(integrator_key, storage=storage, format="csv")))
        wait_for_state(server, execution_id, "delivered")
        written = root / "finance" / "2024" / f"{execution_id}.csv.enc"
        assert sorted(p.name for p in written.parent.iterdir()) == [written.name]
        assert open_independently(integrator_key, sealed, written.read_bytes()).count(b"\n") > 1
        (root / "escape").symlink_to(tmp_path)
        for outside in ("../elsewhere", "/etc", "finance/../../elsewhere", "escape/inside"):
            storage = {"type": "local", "connectionString": outside}
            assert_problem(post(server, order(integrator_key, storage=storage)), 400, "storage.connectionString")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]


def test_local_storage_without_a_root_is_400(server, integrator_key):
    storage = {"type": "local", "connectionString": "reports"}
    assert "root" in assert_problem(post(server, order(integrator_key, storage=storage)), 400)["detail"]


def test_a_run_at_in_the_future_is_not_delivered_early(server, receiver, integrator_key):
    run_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=3)
    body = order(integrator_key, receiver.delivery_url("later"), runAt=run_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    execution_id, _ = accepted(post(server, body))
    with pytest.raises(TimeoutError):
        receiver.wait_for_delivery("later", timeout=max(0.1, run_at.timestamp() - time.time() - 0.5))
    assert order_state(server, execution_id).state == "scheduled"
    delivery = receiver.wait_for_delivery("later", timeout=30)
    assert delivery.received_at >= run_at.timestamp()


def test_a_run_at_in_the_past_runs_at_once(server, receiver, integrator_key):
    accepted(post(server, order(integrator_key, receiver.delivery_url("past"), runAt="2020-01-01T00:00:00Z")))
    receiver.wait_for_delivery("past", timeout=30)


def test_each_order_gets_its_own_session_key(server, integrator_key):
    sealed_keys = [accepted(post(server, order(integrator_key)))[1] for _ in range(3)]
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    assert len({integrator_key.decrypt(s, oaep) for s in sealed_keys}) == 3
