"""Conformance of POST /v1/reports against any implementation: orders end to end (the 202 answer, the
sealed session key, the delivery to the suite's HTTP receiver, the artifact, the report file, with and
without compression, both formats, both known reports), runAt in the future, and every status code the
suite can provoke (400, 401, 403, 404; 429 only when the gateway happens to limit).

What the contract leaves open never fails a test: the content of connectionString (the suite gives the
URL its receiver takes the POST of the artifact on), the compression algorithm (every common one is
tried), the column layout of the reports (nothing about columns is assumed), the headers of a delivery
(none is read), repeated deliveries (the first is used), the error body of any status but 400.

The end-to-end orders are placed once per module and examined stage by stage, each stage a test citing
its own requirements: a defect fails the stage it belongs to, and the later stages of that order are
skipped with a pointer to it (a skip never hides a defect: the stage before it failed).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from conformance.strategies import report_order
from conformance.suite._writes import owner_nip_of
from conformance.suite.reports_support import (
    KEY_BYTES,
    NONCE_BYTES,
    SESSION_KEY_BYTES,
    TAG_BYTES,
    assert_problem_details_400,
    decode_base64,
    decompressions,
    explain_artifact,
    explain_sealed_key,
    forged_tokens,
    looks_plain,
    open_artifact,
    open_session_key,
    read_report,
    utc_text,
)
from conformance.traffic import exchange_of_response
from profiles import load_contract
from profiles.limits import LIMITS
from reports.client import retry_after_seconds
from reports.keys import generate_key_pair, public_key_pem

REPORTS = "/v1/reports"
KNOWN_REPORTS = frozenset(load_contract().operations)  # the reportIds of the contract; no installation adds one
RUN_AT_DELAY = 4.0
"""Seconds ahead of now that the runAt test orders for: long enough to see that nothing arrives early."""
CLOCK_TOLERANCE = 1.0
"""Seconds the target's clock may be ahead of the suite's: a delivery this much before runAt still counts
as on time (the clocks of two machines are never equal; an ignored runAt delivers at once, far earlier)."""
NOT_A_CLIENT_FAULT_STATUS = {401: "the token is valid", 403: "the token holds the right", 404: "the report exists"}


# -- what the orders need ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_token(target: Any) -> str:
    if not target.token:
        pytest.skip("the target description gives no token ([target] token): POST /v1/reports needs one")
    return target.token


@pytest.fixture(scope="module")
def company_tax_no(api: Any, contract: Any) -> str:
    """A NIP of the organisation that owns the data, found in the target's data."""
    found = owner_nip_of(api, contract)
    if found is None:
        pytest.skip("no CompanyTaxNo found: no Contractor owned by a NIP and no Employer with a NIP")
    return found


@pytest.fixture(scope="module")
def period() -> tuple[str, str]:
    """Year and Month of the orders: the last closed month."""
    last_month = datetime.now(UTC).replace(day=1) - timedelta(days=1)
    return str(last_month.year), str(last_month.month)


@pytest.fixture(scope="module")
def refusal_key() -> rsa.RSAPrivateKey:
    """One key for the orders that must be refused: nothing is ever encrypted for them, so one key serves
    them all (the orders that are carried out each get a fresh key)."""
    return generate_key_pair()


def order_body(
    public_pem: str,
    connection_string: str,
    company: str,
    period: tuple[str, str],
    *,
    report_id: str | None = "cost-calculation",
    format_: str = "parquet",
    compression: bool | None = None,
    run_at: datetime | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "format": format_,
        "publicKeyPem": public_pem,
        "runAt": utc_text(run_at or datetime.now(UTC)),
        "storage": {"type": "http", "connectionString": connection_string},
        "parameters": {"CompanyTaxNo": company, "Year": period[0], "Month": period[1]},
    }
    if report_id is not None:
        body["reportId"] = report_id
    if compression is not None:
        body["compression"] = compression
    return body


@pytest.fixture
def valid_order(refusal_key: rsa.RSAPrivateKey, receiver: Any, company_tax_no: str, period: tuple[str, str]):
    """A complete, valid order (its key shared by the refusal tests), so that a test changes one thing."""
    name = f"refused-{uuid.uuid4().hex[:12]}"
    return order_body(public_key_pem(refusal_key), receiver.delivery_url(name), company_tax_no, period)


def _answer(response: httpx.Response) -> str:
    return f"{response.status_code} {response.text[:300]!r}"


def assert_refused_as_client_fault(response: httpx.Response, what: str) -> None:
    """The fair check where the contract does not name the status of a fault of the order.

    The order must be refused at once with a client-error status: a 202 accepts an order the contract
    rules out, a 5xx blames the service for the client's fault (the Errors part keeps 5xx for failures
    on the service side). Within 4xx the status is open, except the codes whose condition the Errors
    part fixes and which would be false here: 401 (the token is valid), 403 (it holds the right), 404
    (the report exists); 429 is waited out by the client. 400 is the nearest row ("malformed body"), so
    the shape of a 400 is checked on its own (test_a_400_for_a_fault_of_the_order_is_problem_details).
    """
    status = response.status_code
    assert 400 <= status < 500, f"{what}: POST /v1/reports answered {_answer(response)}, not a client error (4xx)"
    assert status not in NOT_A_CLIENT_FAULT_STATUS, (
        f"{what}: POST /v1/reports answered {status}, whose condition is false here "
        f"({NOT_A_CLIENT_FAULT_STATUS[status]}): {response.text[:300]!r}"
    )


# -- orders end to end, examined stage by stage ------------------------------------------------------------


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

    def __init__(self, api: Any, receiver: Any, target: Any, token: str, company: str, period: tuple[str, str]):
        self.api, self.receiver, self.target, self.token = api, receiver, target, token
        self.company, self.period = company, period
        self.orders: dict[str, PlacedOrder] = {}

    def place(self, case: OrderCase) -> PlacedOrder:
        if case.id not in self.orders:
            key = generate_key_pair()
            name = f"{case.id}-{uuid.uuid4().hex[:12]}"
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
            assert response.status_code == 202, f"a valid order of {case.report_id} was answered {_answer(response)}"
            try:
                body = response.json()
            except ValueError:
                raise AssertionError(f"the 202 answer is not JSON: {response.text[:300]!r}") from None
            assert isinstance(body, dict), f"the 202 answer is not a JSON object: {body!r:.300}"
            assert set(body) == {"executionId", "encryptedSessionKey"}, (
                f"the 202 answer has the fields {sorted(body)}, not exactly executionId and encryptedSessionKey"
            )
            assert isinstance(body["executionId"], str) and body["executionId"], (
                f"executionId is {body['executionId']!r}, not a non-empty string"
            )
            try:
                sealed = decode_base64(body["encryptedSessionKey"])
            except ValueError as error:
                raise AssertionError(f"encryptedSessionKey is {error}") from None
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
def book(api: Any, receiver: Any, target: Any, report_token: str, company_tax_no: str, period: tuple[str, str]):
    return OrderBook(api, receiver, target, report_token, company_tax_no, period)


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
def test_a_valid_order_is_answered_202(book: OrderBook, case: OrderCase) -> None:
    """A valid order (the token of the target description, a fresh RSA-4096 key as BEGIN PUBLIC KEY, http
    storage, CompanyTaxNo/Year/Month) gets 202 whose body is exactly executionId (a string) and
    encryptedSessionKey (base64)."""
    book.accepted(case)


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
def test_the_report_is_a_file_of_the_ordered_format(book: OrderBook, case: OrderCase) -> None:
    """The decrypted report is a readable file of the ordered format with rows (no column is assumed).

    With compression true the data were compressed before encryption: the decrypted data are not a plain
    file of the format, and a known algorithm (gzip, zstd, zlib, bzip2, xz, lz4, snappy framed, zip,
    lzma, raw deflate, brotli: the algorithm is not shown) opens them into one. Without compression (false,
    or left out: the default is false) they are the plain file.
    """
    plaintext = book.need(case, "plaintext", "test_the_artifact_is_ciphertext_then_tag")
    where = f"{case.report_id} for CompanyTaxNo {book.company}, {book.period[0]}-{int(book.period[1]):02d}"
    if case.compressed:
        assert not looks_plain(plaintext, case.format), (
            f"compression was asked, but the decrypted data are a plain {case.format} file: they were not "
            "compressed before encryption"
        )
        opened = list(decompressions(plaintext))
        assert opened, (
            f"compression was asked, but no known algorithm opens the decrypted data ({len(plaintext)} bytes, "
            f"starting {plaintext[:12].hex()})"
        )
        faults = []
        for candidate in opened:
            try:
                report = read_report(candidate.data, case.format)
                break
            except ValueError as error:
                faults.append(f"{candidate.algorithm}: {error}")
        else:
            raise AssertionError(f"the decompressed data are not a {case.format} file: {'; '.join(faults)}")
    else:
        try:
            report = read_report(plaintext, case.format)
        except ValueError as error:
            opened = [candidate.algorithm for candidate in decompressions(plaintext)]
            hint = f" (it opens with {opened[0]}: compressed although compression was not asked)" if opened else ""
            raise AssertionError(f"the decrypted report is not a {case.format} file: {error}{hint}") from None
    assert report.rows > 0, f"the report of {where} has no rows ({report.description})"


@pytest.mark.requirement("ERIS-CRYPT-001", "ERIS-REPORT-014")
def test_each_order_has_its_own_execution_id_and_session_key(book: OrderBook) -> None:
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
    assert max(ids.values()) == 1, f"executionIds repeat across orders: {[i for i, n in ids.items() if n > 1]}"
    sessions = [book.need(case, "session", "test_the_session_key_opens_with_rsa_oaep_sha256") for case, _ in accepted]
    assert len({session[:KEY_BYTES] for session in sessions}) == len(sessions), "two orders got the same AES key"
    assert len({session[KEY_BYTES:] for session in sessions}) == len(sessions), "two orders got the same nonce"


# -- runAt, the PEM headers -------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-REPORT-011", "ERIS-REPORT-004")
def test_a_run_at_in_the_future_is_delivered_after_it_not_before(
    api: Any, receiver: Any, target: Any, report_token: str, company_tax_no: str, period: tuple[str, str], report_key
) -> None:
    """An order for runAt a few seconds ahead is not delivered before runAt, and is delivered after it
    (within the delivery timeout). The target's clock may be CLOCK_TOLERANCE (1 s) ahead of the suite's."""
    name = f"later-{uuid.uuid4().hex[:12]}"
    pem = public_key_pem(report_key)
    run_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=RUN_AT_DELAY + 1)
    body = order_body(pem, receiver.delivery_url(name), company_tax_no, period, format_="csv", run_at=run_at)
    response = api.post(REPORTS, json=body, token=report_token)
    assert response.status_code == 202, f"a valid order for runAt {body['runAt']} was answered {_answer(response)}"
    early = run_at.timestamp() - CLOCK_TOLERANCE
    try:
        delivery = receiver.wait_for_delivery(name, timeout=max(0.0, early - time.time()))
    except TimeoutError:
        pass
    else:
        raise AssertionError(
            f"the artifact arrived {run_at.timestamp() - delivery.received_at:.1f} s before runAt {body['runAt']}"
        )
    deadline = run_at.timestamp() + target.delivery_timeout
    delivery = receiver.wait_for_delivery(name, timeout=max(0.0, deadline - time.time()))
    assert delivery.received_at >= early, (
        f"the artifact arrived {run_at.timestamp() - delivery.received_at:.1f} s before runAt {body['runAt']}"
    )


@pytest.mark.requirement("ERIS-REPORT-002", "ERIS-CRYPT-003")
def test_a_public_key_with_the_rsa_public_key_header_is_accepted(
    api: Any, receiver: Any, report_token: str, company_tax_no: str, period: tuple[str, str], report_key
) -> None:
    """publicKeyPem may also be a PKCS#1 key (BEGIN RSA PUBLIC KEY): the order is accepted and its session
    key is sealed for that key."""
    pkcs1 = (
        report_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.PKCS1)
        .decode("ascii")
    )
    assert pkcs1.startswith("-----BEGIN RSA PUBLIC KEY-----")
    name = f"pkcs1-{uuid.uuid4().hex[:12]}"
    body = order_body(pkcs1, receiver.delivery_url(name), company_tax_no, period, format_="csv")
    response = api.post(REPORTS, json=body, token=report_token)
    assert response.status_code == 202, f"an order with a BEGIN RSA PUBLIC KEY key was answered {_answer(response)}"
    try:
        sealed = decode_base64(response.json().get("encryptedSessionKey"))
    except ValueError as error:
        raise AssertionError(f"the 202 answer has no base64 encryptedSessionKey: {error}") from None
    try:
        session = open_session_key(report_key, sealed)
    except ValueError:
        raise AssertionError(f"the session key does not open: {explain_sealed_key(report_key, sealed)}") from None
    assert len(session) == SESSION_KEY_BYTES


# -- 400 --------------------------------------------------------------------------------------------------

MALFORMED_BODIES = {
    "cut-short": b'{"reportId": "cost-calculation", "format": "csv",',
    "not-json": b"reportId=cost-calculation&format=csv",
    "empty": b"",
    "array": b"[]",
    "string": b'"an order"',
}


@pytest.mark.requirement("ERIS-ERR-001")
@pytest.mark.parametrize("content", MALFORMED_BODIES.values(), ids=MALFORMED_BODIES.keys())
def test_a_malformed_body_is_400_problem_details(api: Any, report_token: str, content: bytes) -> None:
    """A body that is not a JSON object (cut short, not JSON, empty, an array, a string) is a malformed
    body: 400, Problem Details whose type is the standard reference URI of status 400."""
    headers = {"Content-Type": "application/json"}
    response = api.request("POST", REPORTS, content=content, headers=headers, token=report_token)
    assert_problem_details_400(response, f"the body {content[:40]!r}")


@pytest.mark.requirement("ERIS-ERR-001", "ERIS-REPORT-002")
def test_a_missing_public_key_is_400_problem_details(api: Any, report_token: str, valid_order: dict) -> None:
    """An otherwise valid order without publicKeyPem: 400, Problem Details with the standard type."""
    del valid_order["publicKeyPem"]
    assert_problem_details_400(api.post(REPORTS, json=valid_order, token=report_token), "an order without publicKeyPem")


# -- 401, 403 ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bad_authorizations(target: Any) -> dict[str, dict[str, str]]:
    tokens = forged_tokens(target.token, time.time())
    found = {"missing": {}, "basic-scheme": {"Authorization": "Basic ZXJpczplcmlz"}}
    found.update({name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()})
    return found


BAD_AUTHORIZATIONS = ["missing", "basic-scheme", "unknown-key", "unsigned", "altered-signature", "not-a-token"]


@pytest.mark.requirement("ERIS-AUTH-001", "ERIS-AUTH-002", "ERIS-ERR-303")
@pytest.mark.parametrize("kind", BAD_AUTHORIZATIONS)
def test_a_missing_or_invalid_token_is_401(api: Any, valid_order: dict, bad_authorizations: dict, kind: str) -> None:
    """A valid order without a valid Bearer token gets 401: no Authorization header, another scheme, the
    configured token's header and claims signed by a key the target does not know, the same unsigned
    (alg none), the configured token with its signature altered, and text that is no token. The error
    body is not checked (its shape is not shown)."""
    if kind not in bad_authorizations:
        pytest.skip("the configured token is not a JWT, so its signature cannot be altered")
    response = api.post(REPORTS, json=valid_order, headers=bad_authorizations[kind])
    assert response.status_code == 401, f"an order with a {kind} token was answered {_answer(response)}"


@pytest.mark.requirement("ERIS-AUTH-003", "ERIS-ERR-304")
def test_a_token_without_the_report_right_is_403(api: Any, target: Any, valid_order: dict) -> None:
    """A valid order with a valid token that lacks the exploitation right of the report function: 403."""
    if not target.token_without_report_right:
        pytest.skip("the target description gives no token_without_report_right: the 403 cannot be provoked")
    response = api.post(REPORTS, json=valid_order, token=target.token_without_report_right)
    assert response.status_code == 403, f"an order with a token without the right was answered {_answer(response)}"


# -- 404 --------------------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-REPORT-006", "ERIS-REPORT-007", "ERIS-ERR-305")
@pytest.mark.parametrize("change", ["missing", "group-id-instead", "unknown"])
def test_a_report_that_is_not_chosen_is_404(api: Any, report_token: str, valid_order: dict, change: str) -> None:
    """An otherwise valid order without reportId, with groupId in its place, or with a reportId no
    installation knows: 404."""
    if change == "unknown":
        valid_order["reportId"] = f"eris-no-such-report-{uuid.uuid4().hex[:8]}"
    else:
        del valid_order["reportId"]
    if change == "group-id-instead":
        valid_order["groupId"] = "cost-calculation"
    response = api.post(REPORTS, json=valid_order, token=report_token)
    assert response.status_code == 404, f"an order with reportId {change} was answered {_answer(response)}"


@pytest.mark.requirement("ERIS-REPORT-006", "ERIS-ERR-305")
def test_a_body_of_only_group_id_is_404_or_400(api: Any, report_token: str) -> None:
    """A body holding only groupId. The contract says "a request with only groupId gets 404", but such a
    body also lacks publicKeyPem, for which the Errors part says 400, and which check comes first is not
    shown: both are accepted; a 400 must be the row's Problem Details. (An otherwise complete order with
    groupId instead of reportId must be 404: the test above.)"""
    response = api.post(REPORTS, json={"groupId": "cost-calculation"}, token=report_token)
    assert response.status_code in (404, 400), f"a body of only groupId was answered {_answer(response)}"
    if response.status_code == 400:
        assert_problem_details_400(response, "a body of only groupId")


@pytest.mark.requirement("ERIS-ERR-306")
def test_an_unknown_report_id_says_report_type_not_found(api: Any, report_token: str, valid_order: dict) -> None:
    """The 404 of an unknown reportId carries the message "report type not found" (anywhere in the body,
    case aside: the error body shape of a 404 is not shown)."""
    valid_order["reportId"] = f"eris-no-such-report-{uuid.uuid4().hex[:8]}"
    response = api.post(REPORTS, json=valid_order, token=report_token)
    assert response.status_code == 404, f"an unknown reportId was answered {_answer(response)}"
    assert "report type not found" in response.text.lower(), (
        f"the 404 does not say 'report type not found': {response.text[:300]!r}"
    )


# -- faults of the order whose status the Errors part does not name -----------------------------------------

MONTH_FAULTS = {
    f"Month-{month}": ("parameters.Month", str(month)) for month in (LIMITS.month.minimum - 1, LIMITS.month.maximum + 1)
}
PARAMETER_FAULTS = {f"{name}-missing": (f"parameters.{name}", None) for name in ("CompanyTaxNo", "Year", "Month")}
FIELD_FAULTS = {
    "format-missing": ("format", None),
    "format-xml": ("format", "xml"),
    "runAt-missing": ("runAt", None),
    "runAt-not-a-date": ("runAt", "next Monday"),
    "storage-missing": ("storage", None),
    "storage-type-ftp": ("storage.type", "ftp"),
    "storage-connectionString-missing": ("storage.connectionString", None),
}
ORDER_FAULTS = {**MONTH_FAULTS, **PARAMETER_FAULTS, **FIELD_FAULTS}


def with_fault(order: dict[str, Any], fault: tuple[str, str | None]) -> tuple[dict[str, Any], str]:
    """The order with the field at the dotted path removed (value None) or replaced; and a description."""
    path, value = fault
    holder = order
    *parents, name = path.split(".")
    for parent in parents:
        holder = holder[parent]
    if value is None:
        del holder[name]
    else:
        holder[name] = value
    return order, f"an order with {path} {'missing' if value is None else repr(value)}"


def _refused(api: Any, token: str, order: dict[str, Any], fault: tuple[str, str | None]) -> None:
    faulty, what = with_fault(order, fault)
    assert_refused_as_client_fault(api.post(REPORTS, json=faulty, token=token), what)


@pytest.mark.requirement("ERIS-REPORT-008", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", MONTH_FAULTS.values(), ids=MONTH_FAULTS.keys())
def test_a_month_outside_1_to_12_is_refused(api: Any, report_token: str, valid_order: dict, fault: tuple) -> None:
    """Month is 1 to 12 (Limits). The Errors part names no status for a Month outside it, so the decision
    is this: the order must be refused at once (a 202 accepts an order the Limits rule out) with a 4xx (a
    5xx is kept for failures on the service side) other than 401, 403 and 404, whose conditions are false
    here. 400, the nearest row ("malformed body"), is the expected answer; 422 or 409, say, pass too.
    (Whether a 400 is the row's Problem Details: test_a_400_for_a_fault_of_the_order_is_problem_details.)"""
    _refused(api, report_token, valid_order, fault)


@pytest.mark.requirement("ERIS-REPORT-008", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", PARAMETER_FAULTS.values(), ids=PARAMETER_FAULTS.keys())
def test_a_missing_cost_calculation_parameter_is_refused(
    api: Any, report_token: str, valid_order: dict, fault: tuple
) -> None:
    """CompanyTaxNo, Year and Month are required for the cost-calculation reports; without one the order
    is refused with a 4xx as for a Month outside 1..12 (the status is not named)."""
    _refused(api, report_token, valid_order, fault)


@pytest.mark.requirement("ERIS-REPORT-001", "ERIS-REPORT-004", "ERIS-REPORT-005", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", FIELD_FAULTS.values(), ids=FIELD_FAULTS.keys())
def test_an_order_with_a_required_field_missing_or_invalid_is_refused(
    api: Any, report_token: str, valid_order: dict, fault: tuple
) -> None:
    """format (parquet or csv), runAt (an ISO 8601 date-time) and storage (type from blob, http, local,
    smb; connectionString) are required: an order missing one, or with a value outside them, is refused
    with a 4xx as for a Month outside 1..12 (the Errors part names only a missing publicKeyPem)."""
    _refused(api, report_token, valid_order, fault)


@pytest.mark.requirement("ERIS-ERR-001")
@pytest.mark.parametrize("fault", ORDER_FAULTS.values(), ids=ORDER_FAULTS.keys())
def test_a_400_for_a_fault_of_the_order_is_problem_details(
    api: Any, report_token: str, valid_order: dict, fault: tuple
) -> None:
    """When the target answers one of the faulty orders above with 400, the 400 is the Errors row's:
    Problem Details whose type is the standard reference URI of status 400. Another status is judged by
    the tests above, and its body shape is not shown."""
    faulty, what = with_fault(valid_order, fault)
    response = api.post(REPORTS, json=faulty, token=report_token)
    if response.status_code != 400:
        pytest.skip(f"{what} was answered {response.status_code}, not 400: its body shape is not shown")
    assert_problem_details_400(response, what)


RATE_LIMIT_BURST = 1500
"""Orders sent at most to reach the gateway limit: a few seconds of requests, not more."""
RATE_LIMIT_IN_FLIGHT = 64
"""Orders of the burst in flight at once: one at a time, a target answering in 40 ms is asked 25 times a second
at most, below any quota worth the name, and the burst lasts a minute."""

# -- 429 --------------------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-ERR-307")
def test_a_429_carries_retry_after(api: Any, target: Any, report_token: str, valid_order: dict) -> None:
    """The quota is not shown, so the gateway is provoked with a burst of orders that are refused at
    once (an unknown reportId; with the token without the report right when one is configured, so
    that a gateway limiting per client slows no other test), at most BURST of them, IN_FLIGHT at a
    time. If the gateway limits one, the 429 must carry a Retry-After (delta-seconds or an HTTP date),
    and the test then waits as it says. A gateway not reached by the burst is a skip, not a failure."""
    valid_order["reportId"] = f"eris-no-such-report-{uuid.uuid4().hex[:8]}"
    headers = {"Authorization": f"Bearer {target.token_without_report_right or report_token}"}
    limited = threading.Event()
    own = threading.local()  # a client per thread: httpx does not promise that one client serves threads at once
    clients: list[httpx.Client] = []

    def order() -> tuple[float, httpx.Response | None]:
        if limited.is_set():
            return 0.0, None  # the rest of the burst is not sent
        if not hasattr(own, "client"):
            own.client = httpx.Client(base_url=api.client.base_url, timeout=api.client.timeout)
            clients.append(own.client)
        started = time.time()
        response = own.client.post(REPORTS, json=valid_order, headers=headers)
        if response.status_code == 429:
            limited.set()
        return started, response

    try:
        with ThreadPoolExecutor(RATE_LIMIT_IN_FLIGHT) as pool:
            answers = [answer.result() for answer in [pool.submit(order) for _ in range(RATE_LIMIT_BURST)]]
    finally:
        for client in clients:
            client.close()
    refused = [
        (started, response) for started, response in answers if response is not None and response.status_code == 429
    ]
    if not refused:
        pytest.skip(f"the gateway limit was not reached by {RATE_LIMIT_BURST} orders (its quota is not shown)")
    started, response = refused[0]
    api.traffic.record(exchange_of_response(response, started))
    value = response.headers.get("Retry-After")
    assert value is not None, "a 429 of POST /v1/reports has no Retry-After header"
    wait = retry_after_seconds(value)
    assert wait is not None, f"the Retry-After {value!r} is neither seconds nor a date"
    time.sleep(min(wait, 30.0))


# -- property: orders drawn from the contract data, each with one fault whose answer the contract fixes -----

_MONTHS_OUTSIDE = st.integers(max_value=LIMITS.month.minimum - 1) | st.integers(min_value=LIMITS.month.maximum + 1)
_ORDER_FAULTS = {
    # fault -> (requirement, change of a valid order)
    "publicKeyPem missing": ("ERIS-ERR-001", lambda order, draw: order.pop("publicKeyPem")),
    "reportId missing": ("ERIS-REPORT-006", lambda order, draw: order.pop("reportId")),
    "groupId instead of reportId": (
        "ERIS-REPORT-006",
        lambda order, draw: order.__setitem__("groupId", order.pop("reportId")),
    ),
    f"Month outside {LIMITS.month}": (
        "ERIS-REPORT-008",
        lambda order, draw: order["parameters"].__setitem__("Month", str(draw(_MONTHS_OUTSIDE))),
    ),
}


@pytest.mark.requirement("ERIS-ERR-001", "ERIS-REPORT-006", "ERIS-REPORT-008")
def test_orders_with_one_fault_get_the_answer_the_contract_fixes(
    api: Any,
    contract: Any,
    report_token: str,
    refusal_key: rsa.RSAPrivateKey,
    receiver: Any,
    company_tax_no: str,
    period: tuple[str, str],
    findings: Any,
    property_budget: Any,
) -> None:
    """Valid orders drawn from the contract data (any report of the contract, format, compression, runAt in
    the past), each given one fault: without publicKeyPem, 400 Problem Details; without reportId, or with
    groupId in its place, 404; a Month outside 1..12, refused as the client's fault."""
    orders = report_order(
        contract,
        public_key_pem=public_key_pem(refusal_key),
        storage=st.just({"type": "http", "connectionString": receiver.delivery_url(f"never-{uuid.uuid4().hex}")}),
        parameters={"CompanyTaxNo": st.just(company_tax_no), "Year": st.just(period[0])},
    )
    sent = Counter()

    @seed(property_budget.seed)
    @settings(
        max_examples=property_budget.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(order=orders, fault=st.sampled_from(sorted(_ORDER_FAULTS)), data=st.data())
    def property_of(order: dict[str, Any], fault: str, data: Any) -> None:
        requirement, change = _ORDER_FAULTS[fault]
        change(order, data.draw)
        sent[fault] += 1
        response = api.post(REPORTS, json=order, token=report_token)
        try:
            if fault == "publicKeyPem missing":
                assert_problem_details_400(response, f"an order with {fault}")
            elif requirement == "ERIS-REPORT-006":
                assert response.status_code == 404, f"an order with {fault} answered {_answer(response)}, not 404"
            else:
                assert_refused_as_client_fault(response, f"an order with {fault} ({order['parameters']['Month']})")
        except AssertionError as error:
            curl = exchange_of_response(response, 0.0).curl(token_from_environment=True)
            findings.add(requirement, f"{' '.join(str(error).split())}\n    reproduce: {curl}")

    property_of()
    assert sent, "no order was drawn"
    findings.check()
