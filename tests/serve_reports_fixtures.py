"""Shared by the tests of POST /v1/reports: order bodies, tokens, the 202, opening artifacts, order states, retries."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from serve_fixtures import RunningServer

from reference_impl.app import APPLICATION_KEYS
from reference_impl.outbox import Backoff
from reference_impl.report_orders import REPORTS
from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.tokens import REPORT_RIGHT, mint_token

FAST_RETRIES = Backoff(base=0.1, cap=0.3, jitter=0.0)


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


def order_state(server: RunningServer, execution_id: str):
    return server.app[REPORTS].queue.get(execution_id)


def wait_for_state(server: RunningServer, execution_id: str, state: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = order_state(server, execution_id)
        if row is not None and row.state == state:
            return row
        time.sleep(0.05)
    raise AssertionError(f"order {execution_id} is {order_state(server, execution_id)}, not {state}")
