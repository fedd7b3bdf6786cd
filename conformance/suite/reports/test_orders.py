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

import pytest
from cryptography.hazmat.primitives import serialization

from conformance.configuration.target import Target
from conformance.generation.key_pairs import KeyPairs
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import Api, Findings, SuiteReceiver
from conformance.suite.support.compression import decompressions
from conformance.suite.support.order_book import CASES, OrderBook, OrderCase, StageFailure
from conformance.suite.support.orders import CLOCK_TOLERANCE, REPORTS, RunAtOrder, answered, order_body
from conformance.suite.support.reports import (
    KEY_BYTES,
    SESSION_KEY_BYTES,
    decode_base64,
    explain_sealed_key,
    looks_plain,
    open_session_key,
    read_report,
)

# -- orders end to end, examined stage by stage ------------------------------------------------------------


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
