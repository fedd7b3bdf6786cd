"""Every write body the strategies draw is accepted by the reference implementation (`eris serve`):
200 for the writes of parties, fixed-asset documents and document references, 202 for report
orders. One server (seed data, no rate limit, a local delivery root) serves the whole module;
updates address resources of the seed data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from budgets import COSTLY
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_fixtures import (
    CONTRACT,
    NIP_SYSTEM,
    VALIDATOR,
    RunningServer,
    contractor_body,
    ns,
    profile_url,
    running,
    seed_of,
    seeded_settings,
)

from conformance.generation.strategies import (
    KEY_SIZES,
    public_key_pem,
    storage_types,
    valid_write,
    write_operation,
    write_operations,
)
from conformance.generation.strategies.primitives import tokens
from reference_impl.app import APPLICATION_KEYS
from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.tokens import REPORT_RIGHT, mint_token

EMPLOYER_OWNER = [{"type": "Party", "identifier": {"system": NIP_SYSTEM, "value": OWN_ORGANIZATION_NIP}}]

WRITES = {operation.operation_id: operation for operation in write_operations(CONTRACT)}
EXAMPLES = settings(COSTLY, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
UNUSED_PORT_URL = "http://127.0.0.1:9/deliveries"
"""Nothing listens on the discard port: the order is accepted, its delivery retried in the background."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    root = tmp_path_factory.mktemp("deliveries")
    with running(seeded_settings(local_root=str(root))) as started:
        yield started


def _answer(server: RunningServer, operation_id: str, body: dict[str, Any], params: dict[str, str] | None = None):
    operation = WRITES[operation_id]
    return server.client.request(operation.method, operation.path, json=body, params=params)


def _assert_accepted(response, operation_id: str) -> None:
    expected = WRITES[operation_id].success_status
    assert response.status_code == expected, (response.status_code, response.text[:2000])


CREATES = {
    name: valid_write(CONTRACT, name) for name in ("createParty", "createFixedAssetDocument", "createDocumentReference")
}


def _identifier_in(resource: dict[str, Any], system: str) -> str:
    return next(f"{system}|{i['value']}" for i in resource["identifier"] if i.get("system") == system)


@pytest.mark.parametrize("operation_id", sorted(CREATES))
@EXAMPLES
@given(data=st.data())
def test_every_drawn_create_is_accepted(server, operation_id, data):
    body = data.draw(CREATES[operation_id])
    _assert_accepted(_answer(server, operation_id, body), operation_id)


class _Owned:
    """Contractors addressed by identifier and owner. A PATCH may give the party another owner; the next
    one addresses it by that owner, and a party left with no owner to address it by is not used again
    (a new contractor, owned by the seed's company, takes its place)."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server
        contractor = profile_url("Contractor")
        self.targets = [
            (_identifier_in(party, ns("contractor")), _owner_key(party))
            for party in seed_of("Party")
            if contractor in party.get("meta", {}).get("profile", []) and _owner_key(party)
        ]

    def next(self) -> tuple[str, str]:
        if not self.targets:
            created = self.server.client.post("/v1/parties", json=contractor_body(owner=EMPLOYER_OWNER))
            assert created.status_code == 200, created.text
            return _identifier_in(created.json(), ns("contractor")), _owner_key(created.json())
        return self.targets.pop(0)

    def updated(self, identifier: str, party: dict[str, Any]) -> None:
        owner = _owner_key(party)
        if owner is not None:
            self.targets.append((identifier, owner))


def _owner_key(party: dict[str, Any]) -> str | None:
    """The `owner` query value that finds a party: an identifier of its first owner reference that has one."""
    for reference in party.get("owner", []):
        identifier = reference.get("identifier") or {}
        if isinstance(identifier.get("system"), str) and isinstance(identifier.get("value"), str):
            return f"{identifier['system']}|{identifier['value']}"
    return None


@pytest.fixture(scope="module")
def contractors(server: RunningServer) -> _Owned:
    return _Owned(server)


@EXAMPLES
@given(body=valid_write(CONTRACT, "updateParty"))
def test_every_drawn_party_update_is_accepted(server, contractors, body):
    identifier, owner = contractors.next()
    response = _answer(server, "updateParty", body, {"identifier": identifier, "owner": owner})
    _assert_accepted(response, "updateParty")
    contractors.updated(identifier, response.json())


FIXED_ASSET_DOCUMENTS = [_identifier_in(d, ns("fixed-asset-document")) for d in seed_of("FixedAssetDocument")]


@EXAMPLES
@given(body=valid_write(CONTRACT, "updateFixedAssetDocument"), identifier=st.sampled_from(FIXED_ASSET_DOCUMENTS))
def test_every_drawn_fixed_asset_document_update_is_accepted(server, body, identifier):
    _assert_accepted(
        _answer(server, "updateFixedAssetDocument", body, {"identifier": identifier}), "updateFixedAssetDocument"
    )


WAREHOUSE = profile_url("WarehouseDocument")
WAREHOUSE_DOCUMENTS = [
    {"system": ns("document-reference"), "value": _identifier_in(d, ns("document-reference")).split("|", 1)[1]}
    for d in seed_of("DocumentReference")
    if WAREHOUSE in d.get("meta", {}).get("profile", [])
]


@EXAMPLES
@given(body=valid_write(CONTRACT, "updateDocumentReference", target=st.sampled_from(WAREHOUSE_DOCUMENTS)))
def test_every_drawn_warehouse_document_update_is_accepted(server, body):
    _assert_accepted(_answer(server, "updateDocumentReference", body), "updateDocumentReference")


def _folders() -> st.SearchStrategy[str]:
    """Folders below the server's local delivery root."""
    return st.lists(tokens(), max_size=2).map("/".join)


DELIVERABLE = st.one_of(
    _folders().map(lambda folder: {"type": "local", "connectionString": folder}),
    st.just({"type": "http", "connectionString": UNUSED_PORT_URL}),
)
ORDERS = valid_write(
    CONTRACT,
    "orderReport",
    storage=DELIVERABLE,
    # the company of the seed data; years a calendar holds (the service refuses Year 0 or 10000: the test below)
    parameters={"CompanyTaxNo": st.just(OWN_ORGANIZATION_NIP), "Year": st.integers(1, 9999).map(str)},
)


def _bearer(server: RunningServer) -> dict[str, str]:
    keys = server.app[APPLICATION_KEYS]
    token = mint_token(keys.private_key, subject="strategies", rights=[REPORT_RIGHT], key_id=keys.key_id)
    return {"Authorization": f"Bearer {token}"}


@EXAMPLES
@given(order=ORDERS)
def test_every_drawn_report_order_is_accepted(server, order):
    response = server.client.post("/v1/reports", json=order, headers=_bearer(server))
    _assert_accepted(response, "orderReport")


def test_the_storage_types_the_orders_use_are_codes_of_the_schema():
    assert {"local", "http"} <= set(storage_types())
    assert write_operation(CONTRACT, "orderReport").success_status == 202


def test_every_write_of_openapi_is_tested_here():
    tested = {"updateParty", "updateFixedAssetDocument", "updateDocumentReference", "orderReport", *CREATES}
    assert tested == set(WRITES)


def test_a_party_update_claiming_contractor_with_another_category_is_accepted(server, contractors):
    identifier, owner = contractors.next()
    body = {"meta": {"profile": [profile_url("Contractor")]}, "category": [{}]}
    response = _answer(server, "updateParty", body, {"identifier": identifier, "owner": owner})
    contractors.targets.append((identifier, owner))
    _assert_accepted(response, "updateParty")


@pytest.mark.parametrize("year", ["0", "10000"])
def test_a_report_order_for_a_year_outside_the_calendar_is_refused_not_a_server_error(server, year):
    order = {
        "reportId": "cost-calculation",
        "format": "csv",
        "publicKeyPem": public_key_pem(KEY_SIZES[0]),
        "runAt": "2090-01-01T00:00:00Z",
        "storage": {"type": "http", "connectionString": UNUSED_PORT_URL},
        "parameters": {"CompanyTaxNo": OWN_ORGANIZATION_NIP, "Year": year, "Month": "1"},
    }
    assert not [i for i in VALIDATOR.validate(order, resource_type="ReportOrder") if i.is_error]
    response = server.client.post("/v1/reports", json=order, headers=_bearer(server))
    assert response.status_code == 400, response.text
    assert response.json()["parameter"] == "parameters.Year"
