"""Orders of POST /v1/reports as the suite places them, and the fair check of a refusal whose status the contract
does not name."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from conformance.client.traffic import Exchange
from conformance.suite.support.reports import utc_text
from profiles import load_contract

REPORTS = "/v1/reports"
KNOWN_REPORTS = frozenset(load_contract().operations)  # the reportIds of the contract; no installation adds one
RUN_AT_DELAY = 4.0
"""Seconds ahead of now that the runAt test orders for: long enough to see that nothing arrives early."""
CLOCK_TOLERANCE = 1.0
"""Seconds the target's clock may be ahead of the suite's: a delivery this much before runAt still counts
as on time (the clocks of two machines are never equal; an ignored runAt delivers at once, far earlier)."""
RUN_STARTED = pytest.StashKey[datetime]()
"""When the run being re-checked started (a plugin of `eris verify` sets it): the orders name the month that run
ordered for, not the month of the re-check, so that they are the orders traffic.har answers."""
NOT_A_CLIENT_FAULT_STATUS = {401: "the token is valid", 403: "the token holds the right", 404: "the report exists"}


@dataclass
class RunAtOrder:
    """An order for runAt RUN_AT_DELAY s ahead (at least; whole seconds), as placed (the `run_at_order` fixture)."""

    name: str
    body: dict[str, Any]
    run_at: datetime
    response: httpx.Response | None
    error: httpx.HTTPError | None
    """Why nothing was answered, raised in the runAt test rather than in the test that happened to place it."""
    exchanges: list[Exchange]
    """What placing it sent, recorded by the runAt test as its own."""


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
    storage_type: str = "http",
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "format": format_,
        "publicKeyPem": public_pem,
        "runAt": utc_text(run_at or datetime.now(UTC)),
        "storage": {"type": storage_type, "connectionString": connection_string},
        "parameters": {"CompanyTaxNo": company, "Year": period[0], "Month": period[1]},
    }
    if report_id is not None:
        body["reportId"] = report_id
    if compression is not None:
        body["compression"] = compression
    return body


def answered(response: httpx.Response) -> str:
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
    assert 400 <= status < 500, f"{what}: POST /v1/reports answered {answered(response)}, not a client error (4xx)"
    assert status not in NOT_A_CLIENT_FAULT_STATUS, (
        f"{what}: POST /v1/reports answered {status}, whose condition is false here "
        f"({NOT_A_CLIENT_FAULT_STATUS[status]}): {response.text[:300]!r}"
    )
