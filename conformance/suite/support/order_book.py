"""The end-to-end orders of test_orders.py, placed once and examined stage by stage: each order case (report,
format, compression, runAt), the order placed with a fresh RSA-4096 key, and the book that keeps what every stage
found, so that a later stage builds on it or is skipped when an earlier one failed (`StageFailure` names the
requirement a stage failed against)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.configuration.target import Target
from conformance.generation.key_pairs import KeyPairs
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import Api, SuiteReceiver
from conformance.suite.support.orders import KNOWN_REPORTS, REPORTS, answered, order_body
from conformance.suite.support.reports import (
    KEY_BYTES,
    NONCE_BYTES,
    SESSION_KEY_BYTES,
    TAG_BYTES,
    decode_base64,
    explain_artifact,
    explain_sealed_key,
    open_artifact,
    open_session_key,
)
from profiles.limits import LIMITS
from reports.keys import public_key_pem

__all__ = ["CASES", "OrderBook", "OrderCase", "PlacedOrder", "StageFailure"]


class StageFailure(AssertionError):
    """A stage that failed against one requirement: the test of the stage reports it under that one."""

    def __init__(self, requirement: str, message: str) -> None:
        super().__init__(message)
        self.requirement = requirement


@dataclass(frozen=True)
class OrderCase:
    id: str
    report_id: str
    format: str
    compression: bool | None
    """None: the field is left out, so the default (the Limits' compression default) applies."""
    run_at_offset: float = 0.0
    """Seconds from now; negative: a runAt in the past, which the contract runs at once too."""

    @property
    def compressed(self) -> bool:
        return LIMITS.compression_default if self.compression is None else self.compression


CASES = [
    OrderCase("cost-calculation-parquet", "cost-calculation", "parquet", False),
    OrderCase("cost-calculation-parquet-compressed", "cost-calculation", "parquet", True),
    OrderCase("cost-calculation-csv", "cost-calculation", "csv", False),
    OrderCase("cost-calculation-csv-compressed", "cost-calculation", "csv", True),
    OrderCase(
        "product-level-parquet-default-compression-past-runAt",
        "product-level-cost-calculation",
        "parquet",
        None,
        -86400.0,
    ),
]


@dataclass
class PlacedOrder:
    case: OrderCase
    key: rsa.RSAPrivateKey
    name: str
    body: dict[str, Any]
    response: httpx.Response
    due: float
    """When the delivery may be expected from: runAt, or the moment of the order if runAt was past."""
    results: dict[str, Any] = field(default_factory=dict)


class OrderBook:
    """Places each end-to-end order once (a fresh RSA-4096 key for each) and keeps what every stage
    found, so that a later stage can build on it or be skipped when an earlier one failed."""

    def __init__(
        self,
        api: Api,
        receiver: SuiteReceiver,
        target: Target,
        token: str,
        company: str,
        period: tuple[str, str],
        keys: KeyPairs,
    ):
        self.api, self.receiver, self.target, self.token = api, receiver, target, token
        self.company, self.period, self.keys = company, period, keys
        self.orders: dict[str, PlacedOrder] = {}

    def place(self, case: OrderCase) -> PlacedOrder:
        if case.id not in self.orders:
            key = self.keys.take()
            name = f"{case.id}-{made_up_hex(12)}"
            run_at = datetime.now(UTC) + timedelta(seconds=case.run_at_offset)
            body = order_body(
                public_key_pem(key),
                self.receiver.delivery_url(name),
                self.company,
                self.period,
                report_id=case.report_id,
                format_=case.format,
                compression=case.compression,
                run_at=run_at,
            )
            response = self.api.post(REPORTS, json=body, token=self.token)
            due = max(time.time(), run_at.timestamp())
            self.orders[case.id] = PlacedOrder(case, key, name, body, response, due)
        return self.orders[case.id]

    def _stage(self, case: OrderCase, stage: str, compute: Any) -> Any:
        """The result of `stage`, computed once; an AssertionError (the stage's defect) is kept, and a
        later stage that needs it is skipped pointing at the stage's test."""
        order = self.place(case)
        if stage not in order.results:
            try:
                order.results[stage] = compute(order)
            except AssertionError as error:
                order.results[stage] = error
        found = order.results[stage]
        if isinstance(found, AssertionError):
            raise found
        return found

    def need(self, case: OrderCase, stage: str, test: str) -> Any:
        try:
            return getattr(self, stage)(case)
        except AssertionError as error:
            first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
            pytest.skip(f"cannot check: {test}[{case.id}] failed ({first_line})")

    def accepted(self, case: OrderCase) -> dict[str, Any]:
        def compute(order: PlacedOrder) -> dict[str, Any]:
            response = order.response
            if response.status_code == 404 and case.report_id in KNOWN_REPORTS:
                pytest.skip(
                    f"the target answered 404 to an order of {case.report_id}: the Errors part allows it when the "
                    f"installation has no producer of that report ({response.text[:200]!r})"
                )
            if response.status_code != 202:  # "202 | order accepted"
                raise StageFailure(
                    "ERIS-ERR-301", f"a valid order of {case.report_id} was answered {answered(response)}"
                )
            try:
                body = response.json()
            except ValueError:
                raise StageFailure("ERIS-REPORT-010", f"the 202 answer is not JSON: {response.text[:300]!r}") from None
            if not isinstance(body, dict):
                raise StageFailure("ERIS-REPORT-010", f"the 202 answer is not a JSON object: {body!r:.300}")
            # "Response fields (202): executionId ... and encryptedSessionKey": both are required; the contract
            # names them without forbidding others, so more members pass
            missing = sorted({"executionId", "encryptedSessionKey"} - set(body))
            if missing:
                raise StageFailure("ERIS-REPORT-010", f"the 202 answer lacks {missing} (it has {sorted(body)})")
            if not (isinstance(body["executionId"], str) and body["executionId"]):
                raise StageFailure("ERIS-REPORT-010", f"executionId is {body['executionId']!r}, not a non-empty string")
            try:
                sealed = decode_base64(body["encryptedSessionKey"])
            except ValueError as error:
                raise StageFailure("ERIS-REPORT-010", f"encryptedSessionKey is {error}") from None
            return {"executionId": body["executionId"], "sealed": sealed}

        return self._stage(case, "accepted", compute)

    def session(self, case: OrderCase) -> bytes:
        accepted = self.need(case, "accepted", "test_a_valid_order_is_answered_202")

        def compute(order: PlacedOrder) -> bytes:
            try:
                session = open_session_key(order.key, accepted["sealed"])
            except ValueError:
                raise AssertionError(
                    "encryptedSessionKey does not open with RSA-OAEP (SHA-256 for the hash and MGF1, no label) and "
                    f"the private key of the order's publicKeyPem: {explain_sealed_key(order.key, accepted['sealed'])}"
                ) from None
            assert len(session) == SESSION_KEY_BYTES, (
                f"the session key has {len(session)} bytes, not {SESSION_KEY_BYTES} (a {KEY_BYTES}-byte AES-256 key "
                f"then a {NONCE_BYTES}-byte nonce)"
            )
            return session

        return self._stage(case, "session", compute)

    def delivery(self, case: OrderCase) -> Any:
        self.need(case, "accepted", "test_a_valid_order_is_answered_202")

        def compute(order: PlacedOrder) -> Any:
            timeout = max(0.0, order.due + self.target.delivery_timeout - time.time())
            try:
                return self.receiver.wait_for_delivery(order.name, timeout=timeout)
            except TimeoutError as error:
                raise AssertionError(
                    f"the artifact was not POSTed to the order's storage connectionString within "
                    f"{self.target.delivery_timeout:g} s of runAt: {error}"
                ) from None

        return self._stage(case, "delivery", compute)

    def plaintext(self, case: OrderCase) -> bytes:
        session = self.need(case, "session", "test_the_session_key_opens_with_rsa_oaep_sha256")
        delivery = self.need(case, "delivery", "test_the_artifact_is_posted_to_the_http_storage")

        def compute(order: PlacedOrder) -> bytes:
            artifact = delivery.path.read_bytes()
            try:
                plaintext = open_artifact(session, artifact)
            except InvalidTag:
                raise AssertionError(
                    f"the artifact ({len(artifact)} bytes) does not open with AES-256-GCM as ciphertext then the "
                    f"{TAG_BYTES}-byte tag under the session key and nonce: {explain_artifact(session, artifact)}"
                ) from None
            assert len(artifact) == len(plaintext) + TAG_BYTES
            key, nonce = session[:KEY_BYTES], session[KEY_BYTES:]
            assert key not in artifact, "the artifact embeds the AES key"
            assert nonce not in artifact, "the artifact embeds the nonce"
            return plaintext

        return self._stage(case, "plaintext", compute)
