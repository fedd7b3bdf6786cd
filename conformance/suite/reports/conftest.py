"""Fixtures of the report tests: the token, the company and month ordered for, and a valid order to change."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.suite.support.orders import order_body
from conformance.suite.support.writes import owner_nip_of
from reports.keys import generate_key_pair, public_key_pem


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


@pytest.fixture
def valid_order(refusal_key: rsa.RSAPrivateKey, receiver: Any, company_tax_no: str, period: tuple[str, str]):
    """A complete, valid order (its key shared by the refusal tests), so that a test changes one thing."""
    name = f"refused-{uuid.uuid4().hex[:12]}"
    return order_body(public_key_pem(refusal_key), receiver.delivery_url(name), company_tax_no, period)


@pytest.fixture(scope="session")
def stores(target: Any):
    """The stores the target delivers into besides http, each provided on first use (started by the suite, or
    reached as [storage.<type>] says), closed at the end of the run."""
    from conformance.stores.places import Stores

    provided = Stores(target.stores, host=target.receiver.host)
    yield provided
    provided.close()
