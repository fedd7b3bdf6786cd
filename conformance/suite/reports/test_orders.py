"""Conformance of POST /v1/reports against any implementation: orders end to end (the 202 answer, the
sealed session key, the delivery to the suite's HTTP receiver, the artifact, the report file, with and
without compression, both formats, both known reports), runAt in the future, and both PEM headers. The
status codes are in test_errors.py.

What the contract leaves open never fails a test: the content of connectionString (the suite gives the
URL its receiver takes the POST of the artifact on), the compression algorithm (every common one is
tried), the column layout of the reports (nothing about columns is assumed), the headers of a delivery
(none is read), repeated deliveries (the first is used), the error body of any status but 400.

The end-to-end orders are placed once per module and examined stage by stage, each stage a test citing
its own requirements: a defect fails the stage it belongs to, and the later stages of that order are
skipped with a pointer to it (a skip never hides a defect: the stage before it failed).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.configuration.target import Target
from conformance.generation.key_pairs import KeyPairs
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import Api, Findings, SuiteReceiver
from conformance.suite.support.compression import decompressions
from conformance.suite.support.orders import CLOCK_TOLERANCE, KNOWN_REPORTS, REPORTS, RunAtOrder, answered, order_body
from conformance.suite.support.reports import (
    KEY_BYTES,
    NONCE_BYTES,
    SESSION_KEY_BYTES,
    TAG_BYTES,
    decode_base64,
    explain_artifact,
    explain_sealed_key,
    looks_plain,
    open_artifact,
    open_session_key,
    read_report,
)
from profiles.limits import LIMITS
from reports.keys import public_key_pem

# -- orders end to end, examined stage by stage ------------------------------------------------------------


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


@pytest.fixture(scope="module")
def book(
    api: Api,
    receiver: SuiteReceiver,
    target: Target,
    report_token: str,
    company_tax_no: str,
    period: tuple[str, str],
    key_pairs: KeyPairs,
) -> OrderBook:
    return OrderBook(api, receiver, target, report_token, company_tax_no, period, key_pairs)


@pytest.mark.requirement(
    "ERIS-ERR-301",
    "ERIS-REPORT-010",
    "ERIS-REPORT-001",
    "ERIS-REPORT-002",
    "ERIS-REPORT-003",
    "ERIS-REPORT-004",
    "ERIS-REPORT-005",
    "ERIS-REPORT-007",
    "ERIS-REPORT-008",
    "ERIS-REPORT-009",
    "ERIS-AUTH-001",
)
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_valid_order_is_answered_202(book: OrderBook, case: OrderCase, findings: Findings) -> None:
    """A valid order (the token of the target description, a fresh RSA-4096 key as BEGIN PUBLIC KEY, http
    storage, CompanyTaxNo/Year/Month) gets 202 whose body holds executionId (a string) and
    encryptedSessionKey (base64). A refusal fails "202: order accepted", a wrong answer the 202's fields."""
    try:
        book.accepted(case)
    except StageFailure as failure:
        findings.add(failure.requirement, str(failure))
        findings.check()


@pytest.mark.requirement("ERIS-CRYPT-001", "ERIS-CRYPT-003", "ERIS-CRYPT-005", "ERIS-CRYPT-007")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_session_key_opens_with_rsa_oaep_sha256(book: OrderBook, case: OrderCase) -> None:
    """encryptedSessionKey opens with the private half of the order's own key (each order has a new one)
    by RSA-OAEP, SHA-256 for the hash and MGF1, no label, into 44 bytes."""
    book.session(case)


@pytest.mark.requirement("ERIS-REPORT-013", "ERIS-REPORT-011", "ERIS-REPORT-004")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_artifact_is_posted_to_the_http_storage(book: OrderBook, case: OrderCase) -> None:
    """With runAt now (or in the past) the artifact is POSTed to the connectionString within the target's
    delivery timeout; the receiver confirms with 200. A repeated delivery is allowed (the first is used)."""
    book.delivery(case)


@pytest.mark.requirement("ERIS-CRYPT-002", "ERIS-CRYPT-004", "ERIS-CRYPT-006")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_artifact_is_ciphertext_then_tag(book: OrderBook, case: OrderCase) -> None:
    """The artifact opens with one-shot AES-256-GCM under the session key's AES key and nonce, which
    verifies the 16-byte tag at its end; it is exactly the plaintext's length plus 16, and neither the key
    nor the nonce is in it."""
    book.plaintext(case)


@pytest.mark.requirement("ERIS-REPORT-001", "ERIS-REPORT-012", "ERIS-REPORT-009", "ERIS-REPORT-007")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_report_is_a_file_of_the_ordered_format(book: OrderBook, case: OrderCase, findings: Findings) -> None:
    """The decrypted report is a readable file of the ordered format with rows (no column is assumed).

    With compression true the data were compressed before encryption: the decrypted data are not a plain
    file of the format, and a known algorithm (gzip, zstd, zlib, bzip2, xz, lz4, snappy framed, zip,
    lzma, raw deflate, brotli: the algorithm is not shown) opens them into one. Without compression (false,
    or left out: the default is false) they are the plain file.
    """
    plaintext = book.need(case, "plaintext", "test_the_artifact_is_ciphertext_then_tag")
    where = f"{case.report_id} for CompanyTaxNo {book.company}, {book.period[0]}-{int(book.period[1]):02d}"
    # each defect against its own requirement: compression (ERIS-REPORT-012), its default of false
    # (ERIS-REPORT-009), the file of the format ordered (ERIS-REPORT-001)
    report = None
    if case.compressed:
        opened = list(decompressions(plaintext))
        if looks_plain(plaintext, case.format):
            findings.add(
                "ERIS-REPORT-012",
                f"compression was asked, but the decrypted data are a plain {case.format} file: they were not "
                "compressed before encryption",
            )
        elif not opened:
            findings.add(
                "ERIS-REPORT-012",
                f"compression was asked, but no known algorithm opens the decrypted data ({len(plaintext)} bytes, "
                f"starting {plaintext[:12].hex()})",
            )
        faults = []
        for candidate in opened:
            try:
                report = read_report(candidate.data, case.format)
                break
            except ValueError as error:
                faults.append(f"{candidate.algorithm}: {error}")
        else:
            if opened:
                findings.add(
                    "ERIS-REPORT-001", f"the decompressed data are not a {case.format} file: {'; '.join(faults)}"
                )
    else:
        try:
            report = read_report(plaintext, case.format)
        except ValueError as error:
            algorithms = [candidate.algorithm for candidate in decompressions(plaintext)]
            if algorithms:
                broken = "ERIS-REPORT-009" if case.compression is None else "ERIS-REPORT-012"
                asked = "left out (default false)" if case.compression is None else "false"
                findings.add(broken, f"compression was {asked}, but the decrypted data open with {algorithms[0]}")
            else:
                findings.add("ERIS-REPORT-001", f"the decrypted report is not a {case.format} file: {error}")
    if report is not None and report.rows <= 0:
        findings.add("ERIS-REPORT-001", f"the report of {where} has no rows ({report.description})")
    findings.check()


@pytest.mark.requirement("ERIS-CRYPT-001", "ERIS-REPORT-014")
def test_each_order_has_its_own_execution_id_and_session_key(book: OrderBook, findings: Findings) -> None:
    """The orders above have pairwise different executionIds (an order id, and the idempotency key of its
    delivery) and different random AES keys and nonces (a repeated nonce would break AES-GCM)."""
    accepted = [
        (case, book.need(case, "accepted", "test_a_valid_order_is_answered_202"))
        for case in CASES
        if book.place(case).response.status_code == 202
    ]
    if len(accepted) < 2:
        pytest.skip("fewer than two orders were accepted")
    ids = Counter(found["executionId"] for _, found in accepted)
    if max(ids.values()) > 1:
        findings.add("ERIS-REPORT-014", f"executionIds repeat across orders: {[i for i, n in ids.items() if n > 1]}")
    sessions = [book.need(case, "session", "test_the_session_key_opens_with_rsa_oaep_sha256") for case, _ in accepted]
    if len({session[:KEY_BYTES] for session in sessions}) != len(sessions):
        findings.add("ERIS-CRYPT-001", "two orders got the same AES key")
    if len({session[KEY_BYTES:] for session in sessions}) != len(sessions):
        findings.add("ERIS-CRYPT-001", "two orders got the same nonce")
    findings.check()


# -- runAt, the PEM headers -------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-REPORT-011", "ERIS-REPORT-004")
def test_a_run_at_in_the_future_is_delivered_after_it_not_before(
    api: Api, receiver: SuiteReceiver, target: Target, run_at_order: RunAtOrder
) -> None:
    """An order for runAt a few seconds ahead is not delivered before runAt, and is delivered after it
    (within the delivery timeout). The target's clock may be CLOCK_TOLERANCE (1 s) ahead of the suite's.
    The order was placed by an earlier report test (conftest.py, `run_at_order`): its wait has passed meanwhile,
    and the time the artifact arrived tells whether it came early."""
    order = run_at_order
    for exchange in order.exchanges:
        api.traffic.record(exchange)
    if order.error is not None:
        raise order.error
    assert order.response is not None
    body, run_at = order.body, order.run_at
    assert order.response.status_code == 202, (
        f"a valid order for runAt {body['runAt']} was answered {answered(order.response)}"
    )
    early = run_at.timestamp() - CLOCK_TOLERANCE
    deadline = run_at.timestamp() + target.delivery_timeout
    delivery = receiver.wait_for_delivery(order.name, timeout=max(0.0, deadline - time.time()))
    assert delivery.received_at >= early, (
        f"the artifact arrived {run_at.timestamp() - delivery.received_at:.1f} s before runAt {body['runAt']}"
    )


@pytest.mark.requirement("ERIS-REPORT-002", "ERIS-CRYPT-003")
def test_a_public_key_with_the_rsa_public_key_header_is_accepted(
    api: Api, receiver: SuiteReceiver, report_token: str, company_tax_no: str, period: tuple[str, str], report_key
) -> None:
    """publicKeyPem may also be a PKCS#1 key (BEGIN RSA PUBLIC KEY): the order is accepted and its session
    key is sealed for that key."""
    pkcs1 = (
        report_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.PKCS1)
        .decode("ascii")
    )
    assert pkcs1.startswith("-----BEGIN RSA PUBLIC KEY-----")
    name = f"pkcs1-{made_up_hex(12)}"
    body = order_body(pkcs1, receiver.delivery_url(name), company_tax_no, period, format_="csv")
    response = api.post(REPORTS, json=body, token=report_token)
    assert response.status_code == 202, f"an order with a BEGIN RSA PUBLIC KEY key was answered {answered(response)}"
    try:
        sealed = decode_base64(response.json().get("encryptedSessionKey"))
    except ValueError as error:
        raise AssertionError(f"the 202 answer has no base64 encryptedSessionKey: {error}") from None
    try:
        session = open_session_key(report_key, sealed)
    except ValueError:
        raise AssertionError(f"the session key does not open: {explain_sealed_key(report_key, sealed)}") from None
    assert len(session) == SESSION_KEY_BYTES
