"""The integrator's commands as a user runs them: `eris keygen`, `eris decrypt`, `eris report`, `eris receive`."""

from __future__ import annotations

import base64
import gzip
import io
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from serve_fixtures import running

from conformance.cli import main
from conformance.run.embedded import target_description
from reference_impl.app import APPLICATION_KEYS
from reference_impl.report_orders import REPORTS
from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.state import SERVICE
from reference_impl.tokens import REPORT_RIGHT, mint_token
from reports.compression import GzipWriter
from reports.crypto import ArtifactEncryptor, SessionKey, seal_session_key
from reports.keys import generate_key_pair, write_key_pair

PLAINTEXT = b"company_tax_no,year,month\n7251801126,2024,10\n" * 100


@pytest.fixture(scope="module")
def server():
    with running() as started:
        yield started


def _token(server, rights=(REPORT_RIGHT,)) -> str:
    keys = server.app[APPLICATION_KEYS]
    return mint_token(keys.private_key, subject="integrator", rights=list(rights), key_id=keys.key_id)


def test_keygen_writes_a_4096_bit_pair_and_never_overwrites(tmp_path, capsys):
    private, public = tmp_path / "k.pem", tmp_path / "k.pub.pem"
    assert main(["keygen", "--private-key", str(private), "--public-key", str(public)]) == 0
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert "PRIVATE KEY" in private.read_text()
    assert private.stat().st_mode & 0o077 == 0
    from reports.keys import load_private_key

    assert load_private_key(private).key_size == 4096
    before = private.read_bytes()
    assert main(["keygen", "--private-key", str(private), "--public-key", str(tmp_path / "other.pem")]) == 2
    assert "exists" in capsys.readouterr().err
    assert private.read_bytes() == before


@pytest.fixture(scope="module")
def order_keys(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    key = generate_key_pair(2048)
    write_key_pair(key, folder / "order.pem", folder / "order.pub.pem")
    return key, folder / "order.pem"


def _artifact(tmp_path: Path, key, *, compress: bool = False) -> tuple[Path, str]:
    session = SessionKey.generate()
    sink = io.BytesIO()
    encryptor = ArtifactEncryptor(sink, session)
    writer = GzipWriter(encryptor) if compress else encryptor
    writer.write(PLAINTEXT)
    writer.close()
    path = tmp_path / ("report.csv.gz.enc" if compress else "report.csv.enc")
    path.write_bytes(sink.getvalue())
    return path, base64.b64encode(seal_session_key(key.public_key(), session)).decode()


def test_decrypt_writes_the_report_beside_the_artifact(tmp_path, order_keys, capsys):
    key, key_file = order_keys
    artifact, sealed = _artifact(tmp_path, key)
    assert main(["decrypt", str(artifact), "--private-key", str(key_file), "--session-key", sealed]) == 0
    assert (tmp_path / "report.csv").read_bytes() == PLAINTEXT
    assert "tag verified" in capsys.readouterr().out


def test_decrypt_decompresses_when_asked_and_reads_the_key_from_a_file(tmp_path, order_keys):
    key, key_file = order_keys
    artifact, sealed = _artifact(tmp_path, key, compress=True)
    (tmp_path / "sealed.txt").write_text(sealed + "\n")
    arguments = [
        "decrypt",
        str(artifact),
        "--private-key",
        str(key_file),
        "--session-key",
        f"@{tmp_path / 'sealed.txt'}",
    ]
    assert main([*arguments, "--decompress"]) == 0
    assert (tmp_path / "report.csv").read_bytes() == PLAINTEXT
    assert main([*arguments, "--out", str(tmp_path / "still.gz")]) == 0
    assert gzip.decompress((tmp_path / "still.gz").read_bytes()) == PLAINTEXT


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:],
        lambda data: data[:-1],
        lambda data: os.urandom(12) + data,
    ],
    ids=["flipped-bit", "truncated-tag", "prepended-nonce"],
)
def test_decrypt_rejects_a_tampered_artifact_and_writes_nothing(tmp_path, order_keys, capsys, damage):
    key, key_file = order_keys
    artifact, sealed = _artifact(tmp_path, key)
    artifact.write_bytes(damage(artifact.read_bytes()))
    assert main(["decrypt", str(artifact), "--private-key", str(key_file), "--session-key", sealed]) == 1
    error = capsys.readouterr().err
    assert "rejected" in error and "tag does not match" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == [artifact.name]


def test_decrypt_with_another_orders_key_is_rejected(tmp_path, order_keys, capsys):
    key, _ = order_keys
    artifact, sealed = _artifact(tmp_path, key)
    other = tmp_path / "other.pem"
    write_key_pair(generate_key_pair(2048), other, tmp_path / "other.pub.pem")
    assert main(["decrypt", str(artifact), "--private-key", str(other), "--session-key", sealed]) == 1
    assert "sealed for another key" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--session-key", "not base64!"], "not base64"),
        (["--session-key", "@/no/such/file"], "No such file"),
    ],
)
def test_decrypt_names_bad_input(tmp_path, order_keys, capsys, arguments, message):
    key, key_file = order_keys
    artifact, _ = _artifact(tmp_path, key)
    assert main(["decrypt", str(artifact), "--private-key", str(key_file), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_decrypt_of_a_missing_artifact_or_a_non_key_is_a_clear_error(tmp_path, order_keys, capsys):
    key, key_file = order_keys
    assert main(["decrypt", str(tmp_path / "none.enc"), "--private-key", str(key_file), "--session-key", "AA=="]) == 2
    assert "no such file" in capsys.readouterr().err
    artifact, sealed = _artifact(tmp_path, key)
    not_a_key = tmp_path / "not-a-key.pem"
    not_a_key.write_text("hello")
    assert main(["decrypt", str(artifact), "--private-key", str(not_a_key), "--session-key", sealed]) == 2
    assert "not an unencrypted PEM private key" in capsys.readouterr().err


def test_report_orders_receives_decrypts_and_saves_a_parquet_file(server, tmp_path, capsys):
    out = tmp_path / "october.parquet"
    arguments = ["report", "--target", server.url, "--token", _token(server), "--company", OWN_ORGANIZATION_NIP]
    assert main([*arguments, "--year", "2024", "--month", "10", "--out", str(out)]) == 0
    table = pq.read_table(out)
    assert table.num_rows > 0 and set(table.column("month").to_pylist()) == {10}
    captured = capsys.readouterr()
    assert "waiting for the delivery" in captured.err and f"saved {out}" in captured.out


def test_report_reads_the_target_description_and_asks_for_compression(server, tmp_path):
    service = server.app[SERVICE]
    described = tmp_path / "target.toml"
    described.write_text(target_description(server.url, service.contract, server.app[APPLICATION_KEYS], []))
    out = tmp_path / "products.csv"
    arguments = ["report", "--config", str(described), "--report-id", "product-level-cost-calculation"]
    arguments += ["--company", OWN_ORGANIZATION_NIP, "--year", "2024", "--month", "3", "--format", "csv"]
    assert main([*arguments, "--compression", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[0].replace('"', "").startswith("company_tax_no,year,month,product_code")


def test_report_says_why_an_order_is_refused(server, tmp_path, capsys):
    arguments = ["report", "--target", server.url, "--company", "5260250274", "--year", "2024", "--month", "1"]
    assert main([*arguments, "--token", _token(server), "--out", str(tmp_path / "x.parquet")]) == 1
    assert "400" in capsys.readouterr().err
    assert main([*arguments, "--token", _token(server, rights=()), "--out", str(tmp_path / "x.parquet")]) == 1
    assert "403" in capsys.readouterr().err
    assert main([*arguments, "--month", "13"]) == 2
    assert not list(tmp_path.iterdir())


def test_report_into_blob_storage_fetches_decrypts_and_saves(server, azurite, tmp_path, capsys):
    from azure.storage.blob import BlobServiceClient

    container = f"report-cli-{uuid.uuid4().hex[:8]}"
    BlobServiceClient.from_connection_string(azurite.connection_string).create_container(container)
    out = tmp_path / "blob.parquet"
    arguments = ["report", "--target", server.url, "--token", _token(server), "--company", OWN_ORGANIZATION_NIP]
    arguments += ["--year", "2024", "--month", "10", "--out", str(out), "--storage", "blob"]
    connection = f"{azurite.connection_string}Container={container};Folder=monthly"
    assert main([*arguments, "--connection-string", connection]) == 0
    assert pq.read_table(out).num_rows > 0
    captured = capsys.readouterr()
    assert f"saved {out}" in captured.out and "AccountKey" not in captured.err


def test_report_into_an_smb_share_takes_the_connection_string_from_the_environment(
    server, samba, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "smb.csv"
    monkeypatch.setenv("ERIS_CONNECTION_STRING", samba.url(f"cli-{uuid.uuid4().hex[:8]}"))
    arguments = ["report", "--target", server.url, "--token", _token(server), "--company", OWN_ORGANIZATION_NIP]
    arguments += ["--year", "2024", "--month", "3", "--format", "csv", "--out", str(out), "--storage", "smb"]
    assert main(arguments) == 0
    assert out.read_text().count("\n") > 1
    assert samba.password not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("storage", "connection", "message"),
    [
        ("blob", None, "needs --connection-string"),
        ("blob", "AccountName=a;AccountKey=a2V5", "Container"),
        ("smb", "smb://host/share", "user:password@"),
        ("smb", "@/nonexistent/connection", "No such file"),
    ],
)
def test_report_into_a_store_names_a_bad_connection_string_before_ordering(
    server, tmp_path, capsys, monkeypatch, storage, connection, message
):
    monkeypatch.delenv("ERIS_CONNECTION_STRING", raising=False)
    arguments = ["report", "--target", server.url, "--token", _token(server), "--company", OWN_ORGANIZATION_NIP]
    arguments += ["--year", "2024", "--month", "1", "--storage", storage, "--out", str(tmp_path / "x.parquet")]
    arguments += ["--connection-string", connection] if connection else []
    orders = server.app[REPORTS].queue.db
    before = orders.execute("SELECT count(*) FROM report_order").fetchone()[0]
    assert main(arguments) == 2
    assert message in capsys.readouterr().err
    assert orders.execute("SELECT count(*) FROM report_order").fetchone()[0] == before


def test_report_without_a_target_says_how_to_name_one(capsys):
    assert main(["report", "--company", OWN_ORGANIZATION_NIP, "--year", "2024", "--month", "1"]) == 2
    assert "--target" in capsys.readouterr().err


def test_receive_prints_each_delivery_until_interrupted(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "receive", "--port", "0", "--dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        # a shell running the tests in the background ignores SIGINT, and the child would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        banner = process.stdout.readline()
        url = banner.split(" artifacts at ", 1)[1].split("/reports/", 1)[0]
        assert httpx.post(f"{url}/reports/first", content=b"\x00" * 1000).status_code == 200
        line = process.stdout.readline()
        assert "delivery first: 1,000 bytes" in line
        assert (tmp_path / "first").read_bytes() == b"\x00" * 1000
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_decrypt_removes_the_unverified_plaintext_a_killed_run_left_and_keeps_a_running_ones(tmp_path, order_keys):
    key, key_file = order_keys
    artifact, sealed = _artifact(tmp_path, key)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)  # a process that has ended: the one that was killed
    abandoned = tmp_path / f".report.csv.{dead_pid}.x1y2z3.part"
    abandoned.write_bytes(b"plaintext whose tag was never verified")
    running_one = tmp_path / f".report.csv.{os.getpid()}.a1b2c3.part"  # this process is alive
    running_one.write_bytes(b"another decryption, still running")
    assert main(["decrypt", str(artifact), "--private-key", str(key_file), "--session-key", sealed]) == 0
    assert not abandoned.exists() and running_one.exists()
    assert (tmp_path / "report.csv").read_bytes() == PLAINTEXT


def test_a_terminated_decrypt_leaves_no_plaintext_behind(tmp_path, order_keys):
    key, key_file = order_keys
    session = SessionKey.generate()
    artifact = tmp_path / "big.csv.enc"
    with artifact.open("wb") as sink:
        encryptor = ArtifactEncryptor(sink, session)
        for _ in range(400):  # 400 MiB: a few tenths of a second to decrypt, long enough to be stopped in the middle
            encryptor.write(bytes(1 << 20))
        encryptor.close()
    sealed = base64.b64encode(seal_session_key(key.public_key(), session)).decode()
    command = [sys.executable, "-m", "conformance.cli", "decrypt", str(artifact), "--private-key", str(key_file)]
    process = subprocess.Popen([*command, "--session-key", sealed], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob(".big.csv.*.part")) and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 128 + signal.SIGTERM  # stopped in the middle, not finished first
    assert not list(tmp_path.glob("*.part")) and not (tmp_path / "big.csv").exists()
