"""Every status code of POST /v1/reports the suite can provoke (400, 401, 403, 404; 429 only when the gateway
happens to limit), the refusal of order faults whose status the Errors part does not name, and orders drawn from
the contract data, each with one fault whose answer the contract fixes."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from conformance.client.bounded_http import BoundedClient
from conformance.client.traffic import exchange_of_response
from conformance.configuration.target import Target
from conformance.generation.made_up import made_up_hex
from conformance.generation.strategies import report_order
from conformance.harness.plugin import Api, Findings, PropertyBudget, SuiteReceiver, not_exercised
from conformance.suite.support.order_faults import (
    DRAWN_ORDER_FAULTS,
    FIELD_FAULTS,
    MONTH_FAULTS,
    ORDER_FAULTS,
    PARAMETER_FAULTS,
    assert_refused,
    with_fault,
)
from conformance.suite.support.orders import REPORTS, answered, assert_refused_as_client_fault
from conformance.suite.support.reports import assert_problem_details_400
from conformance.suite.support.tokens import forged_tokens
from profiles import Contract
from reports.client import retry_after_seconds
from reports.keys import public_key_pem

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
def test_a_malformed_body_is_400_problem_details(api: Api, report_token: str, content: bytes) -> None:
    """A body that is not a JSON object (cut short, not JSON, empty, an array, a string) is a malformed
    body: 400, Problem Details whose type is the standard reference URI of status 400."""
    headers = {"Content-Type": "application/json"}
    response = api.request("POST", REPORTS, content=content, headers=headers, token=report_token)
    assert_problem_details_400(response, f"the body {content[:40]!r}")


ERRORS_PART_STATUSES = {202, 400, 401, 403, 404, 429}
"""The statuses the Errors part lists for POST /v1/reports, besides 500 and every 5xx."""


@pytest.mark.requirement("ERIS-ERR-300")
@pytest.mark.parametrize("content_type", [None, "text/plain"], ids=["no-content-type", "text-plain"])
def test_an_order_not_sent_as_json_gets_a_status_of_the_errors_part(
    api: Api, report_token: str, valid_order: dict, content_type: str | None
) -> None:
    """ "Content-Type: application/json (required)" ... "Status codes are in the Errors part": an order sent
    without it may be accepted or refused as malformed (400), but its status is one the Errors part lists."""
    headers = {"Content-Type": content_type} if content_type else {}
    content = json.dumps(valid_order).encode()
    response = api.request("POST", REPORTS, content=content, headers=headers, token=report_token)
    status = response.status_code
    assert status in ERRORS_PART_STATUSES or status >= 500, (
        f"an order sent with Content-Type {content_type!r} was answered {answered(response)}: not a status of the "
        f"Errors part ({', '.join(map(str, sorted(ERRORS_PART_STATUSES)))}, 500, 5xx)"
    )


@pytest.mark.requirement("ERIS-ERR-001", "ERIS-REPORT-002")
def test_a_missing_public_key_is_400_problem_details(api: Api, report_token: str, valid_order: dict) -> None:
    """An otherwise valid order without publicKeyPem: 400, Problem Details with the standard type."""
    del valid_order["publicKeyPem"]
    assert_problem_details_400(api.post(REPORTS, json=valid_order, token=report_token), "an order without publicKeyPem")


# -- 401, 403 ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bad_authorizations(target: Target) -> dict[str, dict[str, str]]:
    tokens = forged_tokens(target.token, time.time())
    found = {"missing": {}, "basic-scheme": {"Authorization": "Basic ZXJpczplcmlz"}}
    found.update({name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()})
    return found


BAD_AUTHORIZATIONS = ["missing", "basic-scheme", "unknown-key", "unsigned", "altered-signature", "not-a-token"]


@pytest.mark.requirement("ERIS-AUTH-001", "ERIS-AUTH-002", "ERIS-ERR-303")
@pytest.mark.parametrize("kind", BAD_AUTHORIZATIONS)
def test_a_missing_or_invalid_token_is_401(
    api: Api, valid_order: dict, bad_authorizations: dict, kind: str, findings: Findings
) -> None:
    """A valid order without a valid Bearer token gets 401: no Authorization header, another scheme, the
    configured token's header and claims signed by a key the target does not know, the same unsigned
    (alg none), the configured token with its signature altered, and text that is no token. The error
    body is not checked (its shape is not shown)."""
    if kind not in bad_authorizations:
        not_exercised(
            "the configured token is not a JWT, so its signature cannot be altered",
            exercise="a JWT as [target] token in the target description, or --token",
        )
    response = api.post(REPORTS, json=valid_order, headers=bad_authorizations[kind])
    if response.status_code != 401:
        # accepted: the token is not required (missing) or not verified; refused otherwise: the wrong status
        accepted = 200 <= response.status_code < 300
        broken = ("ERIS-AUTH-001" if kind == "missing" else "ERIS-AUTH-002") if accepted else "ERIS-ERR-303"
        findings.add(broken, f"an order with a {kind} token was answered {answered(response)}")
    findings.check()


@pytest.mark.requirement("ERIS-AUTH-003", "ERIS-ERR-304")
def test_a_token_without_the_report_right_is_403(
    api: Api, target: Target, valid_order: dict, findings: Findings
) -> None:
    """A valid order with a valid token that lacks the exploitation right of the report function: 403."""
    if not target.token_without_report_right:
        not_exercised(
            "the target description gives no token_without_report_right: the 403 cannot be provoked",
            exercise="[target] token_without_report_right in the target description (a valid token without the "
            "retrospective-report right)",
        )
    response = api.post(REPORTS, json=valid_order, token=target.token_without_report_right)
    if response.status_code != 403:
        broken = "ERIS-AUTH-003" if 200 <= response.status_code < 300 else "ERIS-ERR-304"
        findings.add(broken, f"an order with a token without the right was answered {answered(response)}")
    findings.check()


# -- 404 --------------------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-REPORT-006", "ERIS-REPORT-007", "ERIS-ERR-305")
@pytest.mark.parametrize("change", ["missing", "group-id-instead", "unknown"])
def test_a_report_that_is_not_chosen_is_404(
    api: Api, report_token: str, valid_order: dict, change: str, findings: Findings
) -> None:
    """An otherwise valid order without reportId, with groupId in its place, or with a reportId no
    installation knows: 404."""
    if change == "unknown":
        valid_order["reportId"] = f"eris-no-such-report-{made_up_hex(8)}"
    else:
        del valid_order["reportId"]
    if change == "group-id-instead":
        valid_order["groupId"] = "cost-calculation"
    response = api.post(REPORTS, json=valid_order, token=report_token)
    if response.status_code != 404:
        # the case's own row says 404 (ERIS-REPORT-006 missing, -007 unknown); a refusal with another status
        # breaks the Errors row too (ERIS-ERR-305), the contract stating it twice
        what = f"an order with reportId {change} was answered {answered(response)}"
        findings.add("ERIS-REPORT-007" if change == "unknown" else "ERIS-REPORT-006", what)
        if not 200 <= response.status_code < 300:
            findings.add("ERIS-ERR-305", what)
    findings.check()


@pytest.mark.requirement("ERIS-REPORT-006", "ERIS-ERR-305")
def test_a_body_of_only_group_id_is_404_or_400(api: Api, report_token: str) -> None:
    """A body holding only groupId. The contract says "a request with only groupId gets 404", but such a
    body also lacks publicKeyPem, for which the Errors part says 400, and which check comes first is not
    shown: both are accepted; a 400 must be the row's Problem Details. (An otherwise complete order with
    groupId instead of reportId must be 404: the test above.)"""
    response = api.post(REPORTS, json={"groupId": "cost-calculation"}, token=report_token)
    assert response.status_code in (404, 400), f"a body of only groupId was answered {answered(response)}"
    if response.status_code == 400:
        assert_problem_details_400(response, "a body of only groupId")


@pytest.mark.requirement("ERIS-ERR-306")
def test_an_unknown_report_id_says_report_type_not_found(api: Api, report_token: str, valid_order: dict) -> None:
    """The 404 of an unknown reportId carries the message "report type not found" (anywhere in the body,
    case aside: the error body shape of a 404 is not shown)."""
    valid_order["reportId"] = f"eris-no-such-report-{made_up_hex(8)}"
    response = api.post(REPORTS, json=valid_order, token=report_token)
    assert response.status_code == 404, f"an unknown reportId was answered {answered(response)}"
    assert "report type not found" in response.text.lower(), (
        f"the 404 does not say 'report type not found': {response.text[:300]!r}"
    )


# -- faults of the order whose status the Errors part does not name -----------------------------------------


@pytest.mark.requirement("ERIS-REPORT-008", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", MONTH_FAULTS.values(), ids=MONTH_FAULTS.keys())
def test_a_month_outside_1_to_12_is_refused(
    api: Api, report_token: str, valid_order: dict, fault: tuple, findings: Findings
) -> None:
    """Month is 1 to 12 (Limits). The Errors part names no status for a Month outside it, so the decision
    is this: the order must be refused at once (a 202 accepts an order the Limits rule out) with a 4xx (a
    5xx is kept for failures on the service side) other than 401, 403 and 404, whose conditions are false
    here. 400, the nearest row ("malformed body"), is the expected answer; 422 or 409, say, pass too.
    (Whether a 400 is the row's Problem Details: test_a_400_for_a_fault_of_the_order_is_problem_details.)"""
    assert_refused(api, report_token, valid_order, fault, findings)


@pytest.mark.requirement("ERIS-REPORT-008", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", PARAMETER_FAULTS.values(), ids=PARAMETER_FAULTS.keys())
def test_a_missing_cost_calculation_parameter_is_refused(
    api: Api, report_token: str, valid_order: dict, fault: tuple, findings: Findings
) -> None:
    """CompanyTaxNo, Year and Month are required for the cost-calculation reports; without one the order
    is refused with a 4xx as for a Month outside 1..12 (the status is not named)."""
    assert_refused(api, report_token, valid_order, fault, findings)


@pytest.mark.requirement("ERIS-REPORT-001", "ERIS-REPORT-004", "ERIS-REPORT-005", "ERIS-ERR-308")
@pytest.mark.parametrize("fault", FIELD_FAULTS.values(), ids=FIELD_FAULTS.keys())
def test_an_order_with_a_required_field_missing_or_invalid_is_refused(
    api: Api, report_token: str, valid_order: dict, fault: tuple, findings: Findings
) -> None:
    """format (parquet or csv), runAt (an ISO 8601 date-time) and storage (type from blob, http, local,
    smb; connectionString) are required: an order missing one, or with a value outside them, is refused
    with a 4xx as for a Month outside 1..12 (the Errors part names only a missing publicKeyPem)."""
    assert_refused(api, report_token, valid_order, fault, findings)


@pytest.mark.requirement("ERIS-ERR-001")
@pytest.mark.parametrize("fault", ORDER_FAULTS.values(), ids=ORDER_FAULTS.keys())
def test_a_400_for_a_fault_of_the_order_is_problem_details(
    api: Api, report_token: str, valid_order: dict, fault: tuple
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
def test_a_429_carries_retry_after(api: Api, target: Target, report_token: str, valid_order: dict) -> None:
    """The quota is not shown, so the gateway is provoked with a burst of orders that are refused at
    once (an unknown reportId; with the token without the report right when one is configured, so
    that a gateway limiting per client slows no other test), at most BURST of them, IN_FLIGHT at a
    time. If the gateway limits one, the 429 must carry a Retry-After (delta-seconds or an HTTP date),
    and the test then waits as it says. A gateway not reached by the burst is a skip, not a failure."""
    valid_order["reportId"] = f"eris-no-such-report-{made_up_hex(8)}"
    headers = {"Authorization": f"Bearer {target.token_without_report_right or report_token}"}
    limited = threading.Event()
    halted = threading.Event()
    own = threading.local()  # a client per thread: httpx does not promise that one client serves threads at once
    clients: list[httpx.Client] = []
    # one TLS context for all of them, as each client would make it: loading the CA bundle once per client costs
    # tens of milliseconds of CPU each, and slowed the burst more than the target did
    tls = httpx.create_ssl_context()

    def order() -> tuple[float, httpx.Response | None]:
        if limited.is_set() or halted.is_set():
            return 0.0, None  # the rest of the burst is not sent
        if not hasattr(own, "client"):
            own.client = BoundedClient(
                base_url=api.client.base_url,
                request_timeout=api.client.request_timeout,
                max_answer_size=api.client.max_answer_size,
                verify=tls,
            )
            clients.append(own.client)
        started = time.time()
        try:
            response = own.client.post(REPORTS, json=valid_order, headers=headers)
        except httpx.HTTPError:
            halted.set()  # one order without an answer ends the burst: the others would wait as long
            raise
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
        not_exercised(
            f"the gateway limit was not reached by {RATE_LIMIT_BURST} orders (its quota is not shown)",
            exercise=f"a gateway limit that {RATE_LIMIT_BURST} orders in a few seconds reach: a test installation "
            "with a lower quota",
        )
    started, response = refused[0]
    api.traffic.record(exchange_of_response(response, started))
    # the burst went round the Api: its back-off is told, so that the next request of any test waits, whether the
    # header is there or not (a missing one fails this requirement, not the tests refused next)
    waited = api.refused(response)
    value = response.headers.get("Retry-After")
    assert value is not None, (
        f"a 429 of POST /v1/reports has no Retry-After header (the suite backs off {waited:g} s by default, "
        "doubling with each 429 in a row)"
    )
    assert retry_after_seconds(value) is not None, f"the Retry-After {value!r} is neither seconds nor a date"


# -- property: orders drawn from the contract data, each with one fault whose answer the contract fixes -----


@pytest.mark.requirement("ERIS-ERR-001", "ERIS-REPORT-006", "ERIS-REPORT-008")
def test_orders_with_one_fault_get_the_answer_the_contract_fixes(
    api: Api,
    contract: Contract,
    report_token: str,
    refusal_key: rsa.RSAPrivateKey,
    receiver: SuiteReceiver,
    company_tax_no: str,
    period: tuple[str, str],
    findings: Findings,
    property_budget: PropertyBudget,
) -> None:
    """Valid orders drawn from the contract data (any report of the contract, format, compression, runAt in
    the past), each given one fault: without publicKeyPem, 400 Problem Details; without reportId, or with
    groupId in its place, 404; a Month outside 1..12, refused as the client's fault."""
    orders = report_order(
        contract,
        public_key_pem=public_key_pem(refusal_key),
        storage=st.just({"type": "http", "connectionString": receiver.delivery_url(f"never-{made_up_hex(32)}")}),
        parameters={"CompanyTaxNo": st.just(company_tax_no), "Year": st.just(period[0])},
    )
    sent: Counter[str] = Counter()

    @seed(property_budget.seed)
    @settings(
        max_examples=property_budget.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(order=orders, fault=st.sampled_from(sorted(DRAWN_ORDER_FAULTS)), data=st.data())
    def property_of(order: dict[str, Any], fault: str, data: Any) -> None:
        requirement, change = DRAWN_ORDER_FAULTS[fault]
        change(order, data.draw)
        sent[fault] += 1
        response = api.post(REPORTS, json=order, token=report_token)
        try:
            if fault == "publicKeyPem missing":
                assert_problem_details_400(response, f"an order with {fault}")
            elif requirement == "ERIS-REPORT-006":
                assert response.status_code == 404, f"an order with {fault} answered {answered(response)}, not 404"
            else:
                assert_refused_as_client_fault(response, f"an order with {fault} ({order['parameters']['Month']})")
        except AssertionError as error:
            curl = exchange_of_response(response, 0.0).curl(token_from_environment=True)
            findings.add(requirement, f"{' '.join(str(error).split())}\n    reproduce: {curl}")

    property_of()
    assert sent, "no order was drawn"
    findings.check()
