"""Fixtures of the report tests: the token, the company and month ordered for, a valid order to change, and the
order of the runAt test, placed early."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.configuration.target import Target
from conformance.generation.key_pairs import KeyPairs
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import TOKEN_EXERCISE, Api, SuiteReceiver, not_exercised
from conformance.stores.places import STORES_OF_RUN, PlaceSource, Stores
from conformance.suite.support.orders import REPORTS, RUN_AT_DELAY, RUN_STARTED, RunAtOrder, order_body
from conformance.suite.support.writes import owner_nip_exercise, owner_nip_of
from profiles import Contract
from reports.keys import public_key_pem


@pytest.fixture(scope="module")
def report_token(target: Target) -> str:
    if not target.token:
        not_exercised(
            "the target description gives no token ([target] token): POST /v1/reports needs one",
            exercise=TOKEN_EXERCISE,
        )
    return target.token


@pytest.fixture(scope="module")
def company_tax_no(api: Api, contract: Contract) -> str:
    """A NIP of the organisation that owns the data, found in the target's data."""
    found = owner_nip_of(api, contract)
    if found is None:
        not_exercised(
            "no CompanyTaxNo found at GET /v1/parties: no Contractor owned by a NIP and no Employer with a NIP",
            exercise=owner_nip_exercise(contract),
        )
    return found


@pytest.fixture(scope="module")
def period(pytestconfig: pytest.Config) -> tuple[str, str]:
    """Year and Month of the orders: the last closed month (of the run a re-check repeats)."""
    now = pytestconfig.stash.get(RUN_STARTED, None) or datetime.now(UTC)
    last_month = now.replace(day=1) - timedelta(days=1)
    return str(last_month.year), str(last_month.month)


@pytest.fixture(scope="module")
def refusal_key(key_pairs: KeyPairs) -> rsa.RSAPrivateKey:
    """One key for the orders that must be refused: nothing is ever encrypted for them, so one key serves
    them all (the orders that are carried out each get a fresh key)."""
    return key_pairs.take()


@pytest.fixture
def valid_order(
    refusal_key: rsa.RSAPrivateKey, receiver: SuiteReceiver, company_tax_no: str, period: tuple[str, str]
) -> dict[str, Any]:
    """A complete, valid order (its key shared by the refusal tests), so that a test changes one thing."""
    name = f"refused-{made_up_hex(12)}"
    return order_body(public_key_pem(refusal_key), receiver.delivery_url(name), company_tax_no, period)


@pytest.fixture(scope="session")
def stores(request: pytest.FixtureRequest, target: Target) -> Iterator[PlaceSource]:
    """The stores the target delivers into besides http, each provided on first use (started by the suite, or
    reached as [storage.<type>] says), closed at the end of the run; or those a plugin of the run provides."""
    provided = request.config.stash.get(STORES_OF_RUN, None) or Stores(target.stores, host=target.receiver.host)
    yield provided
    provided.close()


@pytest.fixture(autouse=True)
def stores_started_early(request: pytest.FixtureRequest, target: Target) -> None:
    """The stores the store tests will use start when the first report test does, beside the tests before them
    (Azurite takes half a second to answer). Not under pytest-xdist: the store tests may run in another worker."""
    if _STORES_PREPARED in request.config.stash or hasattr(request.config, "workerinput"):
        return
    request.config.stash[_STORES_PREPARED] = True
    if any("stores" in getattr(item, "fixturenames", ()) for item in request.session.items):
        request.getfixturevalue("stores").prepare(sorted(target.storage))


_STORES_PREPARED = pytest.StashKey[bool]()


# -- the order of the runAt test, placed early ---------------------------------------------------------------


_RUN_AT_ORDER = pytest.StashKey[RunAtOrder]()
_ORDER_NEEDS = frozenset({"api", "receiver", "report_token", "company_tax_no", "period", "key_pairs"})


@pytest.fixture
def run_at_order(
    request: pytest.FixtureRequest,
    api: Api,
    receiver: SuiteReceiver,
    report_token: str,
    company_tax_no: str,
    period: tuple[str, str],
    key_pairs: KeyPairs,
) -> RunAtOrder:
    """The order of the runAt test, placed once per run: by the first report test that has what an order needs
    (`run_at_order_placed_early`), else now."""
    placed = request.config.stash.get(_RUN_AT_ORDER, None)
    if placed is None:
        placed = request.config.stash[_RUN_AT_ORDER] = _place_run_at_order(
            api, receiver, report_token, company_tax_no, period, key_pairs.take()
        )
    return placed


@pytest.fixture(autouse=True)
def run_at_order_placed_early(request: pytest.FixtureRequest) -> None:
    """The runAt test must wait seconds for runAt to pass; its order is placed by the first test here whose own
    fixtures already hold everything an order needs (so that nothing is read, skipped or found on its behalf), and
    the wait passes while the other report tests run. Under pytest-xdist that test is in the receiver's group, the
    runAt test's worker. Nothing is placed when the runAt test is not selected."""
    if _RUN_AT_ORDER in request.config.stash or not set(request.fixturenames) >= _ORDER_NEEDS:
        return
    if any("run_at_order" in getattr(item, "fixturenames", ()) for item in request.session.items):
        request.getfixturevalue("run_at_order")


def _place_run_at_order(
    api: Api, receiver: SuiteReceiver, token: str, company: str, period: tuple[str, str], key: rsa.RSAPrivateKey
) -> RunAtOrder:
    name = f"later-{made_up_hex(12)}"
    run_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=RUN_AT_DELAY + 1)
    body = order_body(public_key_pem(key), receiver.delivery_url(name), company, period, format_="csv", run_at=run_at)
    earlier = api.traffic.take()  # the exchanges of the test placing it stay that test's
    response, error = None, None
    try:
        response = api.post(REPORTS, json=body, token=token)
    except httpx.HTTPError as failure:
        error = failure
    exchanges = api.traffic.take()
    for exchange in earlier:
        api.traffic.record(exchange)
    return RunAtOrder(name, body, run_at, response, error, exchanges)
