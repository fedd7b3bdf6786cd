"""POST /v1/reports of the reference implementation end to end: every status code of the contract's
Errors part, the encrypted delivery to a real HTTP receiver and to a local folder, runAt, retries,
and a restart between order and runAt. Artifacts are opened with `cryptography`'s primitives
called directly, not with the code that made them."""

from __future__ import annotations

import asyncio
import base64
import gzip
import io
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from serve_fixtures import RunningServer, assert_problem, running, seeded_settings

from reference_impl.app import APPLICATION_KEYS
from reference_impl.outbox import Backoff
from reference_impl.report_orders import REPORTS
from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, mint_token
from reports.delivery import EXECUTION_ID_HEADER
from reports.receiver import Receiver

STANDARD_400_TYPE = "https://tools.ietf.org/html/rfc9110#section-15.5.1"
FAST_RETRIES = Backoff(base=0.1, cap=0.3, jitter=0.0)


@pytest.fixture(scope="module")
def integrator_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=4096)


def public_pem(
    key: rsa.RSAPrivateKey, form: serialization.PublicFormat = serialization.PublicFormat.SubjectPublicKeyInfo
) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM, form).decode()


def instant(seconds_from_now: float = 0.0) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds_from_now)).strftime("%Y-%m-%dT%H:%M:%SZ")


def order(key: rsa.RSAPrivateKey, url: str = "http://127.0.0.1:9/unused", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "reportId": "cost-calculation",
        "format": "parquet",
        "publicKeyPem": public_pem(key),
        "runAt": instant(),
        "storage": {"type": "http", "connectionString": url},
        "parameters": {"CompanyTaxNo": OWN_ORGANIZATION_NIP, "Year": "2024", "Month": "10"},
    }
    body.update(changes)
    return {name: value for name, value in body.items() if value is not None}


def auth(server: RunningServer, rights: tuple[str, ...] = (REPORT_RIGHT,)) -> dict[str, str]:
    keys = server.app[APPLICATION_KEYS]
    token = mint_token(keys.private_key, subject="integrator", rights=list(rights), key_id=keys.key_id)
    return {"Authorization": f"Bearer {token}"}


def post(server: RunningServer, body: Any, **kwargs: Any):
    kwargs.setdefault("headers", auth(server))
    return server.client.post("/v1/reports", json=body, **kwargs)


def accepted(response) -> tuple[str, bytes]:
    assert response.status_code == 202, response.text
    body = response.json()
    assert set(body) == {"executionId", "encryptedSessionKey"}
    return body["executionId"], base64.b64decode(body["encryptedSessionKey"], validate=True)


def open_independently(key: rsa.RSAPrivateKey, sealed: bytes, artifact: bytes) -> bytes:
    """The contract's decryption steps with the primitives themselves."""
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    session = key.decrypt(sealed, oaep)
    assert len(session) == 44
    return AESGCM(session[:32]).decrypt(session[32:], artifact, None)  # raises InvalidTag on a bad tag


@pytest.fixture(scope="module")
def server():
    with running() as running_server:
        yield running_server


@pytest.fixture
def receiver(tmp_path: Path):
    with Receiver(tmp_path / "received") as started:
        yield started


# -- status codes ---------------------------------------------------------------------------------------


def test_no_token_or_a_token_of_an_unknown_key_is_401(server, integrator_key):
    assert_problem(server.client.post("/v1/reports", json=order(integrator_key)), 401)
    stranger = ApplicationKeys.generate()
    forged = mint_token(stranger.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=stranger.key_id)
    assert_problem(post(server, order(integrator_key), headers={"Authorization": f"Bearer {forged}"}), 401)


def test_a_token_without_the_report_right_is_403(server, integrator_key):
    assert_problem(post(server, order(integrator_key), headers=auth(server, rights=())), 403)


@pytest.mark.parametrize(
    "content",
    ['{"reportId": "cost-calculation",', "[]", '"an order"', "\xff\xfe"],
    ids=["cut-short", "array", "string", "not-utf8"],
)
def test_a_malformed_body_is_400_with_the_standard_type(server, content):
    response = server.client.post(
        "/v1/reports",
        content=content.encode("latin-1"),
        headers={**auth(server), "Content-Type": "application/json"},
    )
    assert assert_problem(response, 400)["type"] == STANDARD_400_TYPE


def test_a_missing_public_key_is_400_with_the_standard_type(server, integrator_key):
    body = assert_problem(post(server, order(integrator_key, publicKeyPem=None)), 400)
    assert body["type"] == STANDARD_400_TYPE
    assert "publicKeyPem" in body["detail"]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"reportId": None}, "no reportId"),
        ({"reportId": None, "groupId": "monthly"}, "only groupId"),
        ({"reportId": "balance-sheet"}, "balance-sheet"),
    ],
    ids=["missing", "group-only", "unknown"],
)
def test_report_type_not_found_is_404(server, integrator_key, changes, why):
    detail = assert_problem(post(server, order(integrator_key, **changes)), 404)["detail"]
    assert "report type not found" in detail and why in detail


def test_a_body_with_only_group_id_is_404(server):
    assert "report type not found" in assert_problem(post(server, {"groupId": "monthly"}), 404)["detail"]


@pytest.mark.parametrize("month", ["0", "13", "-1", "twelve"])
def test_a_month_outside_1_to_12_is_400_naming_it(server, integrator_key, month):
    parameters = {"CompanyTaxNo": OWN_ORGANIZATION_NIP, "Year": "2024", "Month": month}
    body = assert_problem(post(server, order(integrator_key, parameters=parameters)), 400)
    assert "Month" in body["detail"]


def test_missing_parameters_and_an_unknown_company_are_400(server, integrator_key):
    assert "Year" in assert_problem(post(server, order(integrator_key, parameters={"Month": "1"})), 400)["detail"]
    unknown = {"CompanyTaxNo": "5260250274", "Year": "2024", "Month": "1"}
    body = assert_problem(post(server, order(integrator_key, parameters=unknown)), 400, "parameters.CompanyTaxNo")
    assert "5260250274" in body["detail"]


def test_a_certificate_or_a_key_too_small_for_oaep_is_400(server, integrator_key):
    certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    assert "certificate" in assert_problem(post(server, order(integrator_key, publicKeyPem=certificate)), 400)["detail"]
    tiny = rsa.RSAPublicNumbers(65537, (1 << 767) | 0x2F).public_key()  # 768 bits: cannot seal 44 bytes with OAEP-256
    tiny_pem = tiny.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    assert "too small" in assert_problem(post(server, order(integrator_key, publicKeyPem=tiny_pem)), 400)["detail"]


def test_both_pem_headers_are_accepted(server, integrator_key):
    accepted(post(server, order(integrator_key)))
    pkcs1 = public_pem(integrator_key, serialization.PublicFormat.PKCS1)
    assert pkcs1.startswith("-----BEGIN RSA PUBLIC KEY-----")
    accepted(post(server, order(integrator_key, publicKeyPem=pkcs1)))


@pytest.mark.parametrize(
    ("storage_type", "connection_string"),
    [
        ("blob", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=a2V5"),
        ("blob", "https://integrator.blob.example/reports"),
        ("smb", "smb://integrator.example/reports"),
        ("smb", "\\\\integrator.example\\reports"),
    ],
)
def test_a_blob_or_smb_storage_eris_cannot_use_is_400_naming_the_connection_string(
    server, integrator_key, storage_type, connection_string
):
    storage = {"type": storage_type, "connectionString": connection_string}
    problem = assert_problem(post(server, order(integrator_key, storage=storage)), 400, "storage.connectionString")
    assert "a2V5" not in problem["detail"]


def test_an_http_storage_that_is_not_a_url_is_400(server, integrator_key):
    storage = {"type": "http", "connectionString": "receiver.example.com/reports"}
    assert_problem(post(server, order(integrator_key, storage=storage)), 400, "storage.connectionString")


def test_a_failing_key_source_is_500():
    def broken(size: int) -> bytes:
        raise OSError("no entropy")

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with running(seeded_settings(random_bytes=broken)) as server:
        assert "cryptographic" in assert_problem(post(server, order(key)), 500)["detail"]


def test_the_gateway_limit_is_429_with_retry_after():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with running(seeded_settings(rate_per_second=0.5, rate_burst=2)) as server:
        headers = auth(server)
        answers = [post(server, order(key), headers=headers) for _ in range(4)]
    statuses = [a.status_code for a in answers]
    assert statuses[:2] == [202, 202] and 429 in statuses[2:]
    limited = next(a for a in answers if a.status_code == 429)
    assert int(limited.headers["Retry-After"]) >= 1


def test_orders_have_a_quota_of_their_own_below_the_gateway_limit():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    settings = seeded_settings(rate_per_second=1000, rate_burst=1000, order_rate_per_second=0.5, order_burst=2)
    with running(settings) as server:
        headers = auth(server)
        answers = [post(server, order(key), headers=headers) for _ in range(4)]
        read = server.client.get("/v1/parties", headers=headers)
    statuses = [a.status_code for a in answers]
    assert statuses[:2] == [202, 202] and 429 in statuses[2:], statuses
    assert int(next(a for a in answers if a.status_code == 429).headers["Retry-After"]) >= 1
    assert read.status_code == 200  # reads are under the gateway's own limit only


# -- delivery -------------------------------------------------------------------------------------------


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


def _order_state(server: RunningServer, execution_id: str):
    return server.app[REPORTS].queue.get(execution_id)


def _wait_for_state(server: RunningServer, execution_id: str, state: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = _order_state(server, execution_id)
        if row is not None and row.state == state:
            return row
        time.sleep(0.05)
    raise AssertionError(f"order {execution_id} is {_order_state(server, execution_id)}, not {state}")


def test_local_delivery_writes_below_the_root_and_refuses_paths_outside(tmp_path, integrator_key):
    root = tmp_path / "root"
    with running(seeded_settings(local_root=str(root))) as server:
        storage = {"type": "local", "connectionString": "finance/2024"}
        execution_id, sealed = accepted(post(server, order(integrator_key, storage=storage, format="csv")))
        _wait_for_state(server, execution_id, "delivered")
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
    assert _order_state(server, execution_id).state == "scheduled"
    delivery = receiver.wait_for_delivery("later", timeout=30)
    assert delivery.received_at >= run_at.timestamp()


def test_a_run_at_in_the_past_runs_at_once(server, receiver, integrator_key):
    accepted(post(server, order(integrator_key, receiver.delivery_url("past"), runAt="2020-01-01T00:00:00Z")))
    receiver.wait_for_delivery("past", timeout=30)


def test_a_receiver_answering_500_gets_the_artifact_when_it_recovers(tmp_path, integrator_key):
    with running(seeded_settings(report_backoff=FAST_RETRIES)) as server, Receiver(tmp_path) as receiver:
        receiver.fail_next(2, status=500)
        execution_id, sealed = accepted(post(server, order(integrator_key, receiver.delivery_url("flaky"))))
        delivery = receiver.wait_for_delivery("flaky", timeout=30)
        assert [e.status for e in receiver.exchanges()] == [500, 500, 200]
        open_independently(integrator_key, sealed, delivery.path.read_bytes())
        row = _wait_for_state(server, execution_id, "delivered")
        assert row.attempts == 3 and row.artifact is None


def test_a_receiver_that_is_down_gets_the_artifact_once_it_is_up(tmp_path, integrator_key):
    with Receiver(tmp_path / "first") as probe:
        port = int(probe.url.rsplit(":", 1)[1])
    url = f"http://127.0.0.1:{port}/reports/late"
    with running(seeded_settings(report_backoff=FAST_RETRIES)) as server:
        execution_id, sealed = accepted(post(server, order(integrator_key, url)))
        time.sleep(1.0)
        row = _order_state(server, execution_id)
        assert row.state == "generated" and row.attempts >= 2 and "127.0.0.1" in row.last_error
        with Receiver(tmp_path / "second", port=port) as receiver:
            delivery = receiver.wait_for_delivery("late", timeout=30)
            open_independently(integrator_key, sealed, delivery.path.read_bytes())


def test_an_undelivered_order_is_given_up_after_the_deadline(integrator_key):
    settings = seeded_settings(report_backoff=FAST_RETRIES, report_delivery_deadline=0.5)
    with running(settings) as server:
        execution_id, _ = accepted(post(server, order(integrator_key, "http://127.0.0.1:9/nobody")))
        row = _wait_for_state(server, execution_id, "failed")
        assert row.last_error.startswith("delivery failed") and row.artifact is None and row.session_key is None
        assert list(Path(server.app[REPORTS].worker.spool).iterdir()) == []


def test_an_order_accepted_before_a_restart_is_delivered_after_it(tmp_path, integrator_key):
    database = str(tmp_path / "eris.db")
    with Receiver(tmp_path / "received") as receiver:
        run_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        body = order(integrator_key, receiver.delivery_url("restart"), runAt=run_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        with running(seeded_settings(db=database)) as before:
            execution_id, sealed = accepted(post(before, body))
        assert receiver.deliveries() == []
        with running(seeded_settings(db=database)) as after:
            delivery = receiver.wait_for_delivery("restart", timeout=30)
            assert delivery.headers[EXECUTION_ID_HEADER.lower()] == execution_id
            assert delivery.received_at >= run_at.timestamp()
            open_independently(integrator_key, sealed, delivery.path.read_bytes())
            assert _wait_for_state(after, execution_id, "delivered").session_key is None


def test_each_order_gets_its_own_session_key(server, integrator_key):
    sealed_keys = [accepted(post(server, order(integrator_key)))[1] for _ in range(3)]
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    assert len({integrator_key.decrypt(s, oaep) for s in sealed_keys}) == 3


def test_a_receiver_that_never_answers_delays_no_other_order(tmp_path, integrator_key):
    """Each order is delivered on its own: one receiver that accepts the connection and then says nothing holds its
    own order (until the attempt's time limit), not the order to a receiver that answers."""
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: held.append(silent.accept()[0]), daemon=True)
    accepting.start()
    settings = seeded_settings(report_backoff=FAST_RETRIES, report_attempt_timeout=60)
    try:
        with running(settings) as server, Receiver(tmp_path) as receiver:
            stuck_url = f"http://127.0.0.1:{silent.getsockname()[1]}/reports/stuck"
            stuck, _ = accepted(post(server, order(integrator_key, stuck_url)))
            accepting.join(timeout=30)
            assert held, "the silent receiver was never contacted"
            started = time.monotonic()
            accepted(post(server, order(integrator_key, receiver.delivery_url("prompt"))))
            receiver.wait_for_delivery("prompt", timeout=30)
            assert time.monotonic() - started < 15
            assert _order_state(server, stuck).state == "generated"  # still waiting on its silent receiver
    finally:
        for connection in held:
            connection.close()
        silent.close()


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("http://169.254.169.254/latest/meta-data/", "never go to"),
        ("http://[fe80::1]:8080/x", "never go to"),
        ("http://user:secret@127.0.0.1:9/x", "credentials"),
        ("http://127.0.0.1:99999/x", "absolute http(s) URL"),
    ],
    ids=["metadata-address", "ipv6-link-local", "credentials", "port-out-of-range"],
)
def test_an_http_storage_the_service_must_not_call_is_refused_at_the_order(server, integrator_key, url, named):
    problem = assert_problem(post(server, order(integrator_key, url)), 400)
    assert named in problem["detail"]


def test_an_order_may_not_make_the_service_call_its_own_api(server, integrator_key):
    own = f"{server.url}/v1/parties"
    assert "own address" in assert_problem(post(server, order(integrator_key, own)), 400)["detail"]


def test_an_allow_list_refuses_every_other_address_at_the_order_and_at_resolution(integrator_key, tmp_path):
    settings = seeded_settings(delivery_allowed=("10.0.0.0/8",))
    with running(settings) as server:
        refused = post(server, order(integrator_key, "http://127.0.0.1:9/x"))
        assert "outside the addresses" in assert_problem(refused, 400)["detail"]
    # a host name is checked each time it is resolved (a name re-pointed after the order is caught too)
    from reports.address_policy import AddressRefused, HttpPolicy, PolicyResolver, networks

    resolver = PolicyResolver(HttpPolicy(allowed=networks(["10.0.0.0/8"])))
    with pytest.raises(AddressRefused, match="refused addresses"):
        asyncio.run(resolver.resolve("localhost", 9))
    allowing = PolicyResolver(HttpPolicy(allowed=networks(["127.0.0.0/8"])))
    assert {entry["host"] for entry in asyncio.run(allowing.resolve("localhost", 9))} == {"127.0.0.1"}
