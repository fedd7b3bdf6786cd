"""Hostile and careless input to `eris serve` and `eris receive`: every pathological JSON body and query string is
a 4xx naming what is wrong, never a 500, and nothing of it is stored (so no later read fails). The strict intake
is profiles/strict_json.py; its limits are in docs/serve.md ("What it refuses, and its limits")."""

from __future__ import annotations

import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from serve_fixtures import ALL, EMPLOYER_NIP, assert_problem, contractor_body, ns, running

from conformance.suite.support.hostile import HOSTILE_BODIES
from conformance.suite.support.hostile import WRITES as ROBUSTNESS_WRITES
from reference_impl.app import APPLICATION_KEYS
from reference_impl.tokens import REPORT_RIGHT, mint_token
from reports.receiver import Receiver

WRITES = [*ROBUSTNESS_WRITES, ("POST", "/v1/reports")]


@pytest.fixture(scope="module")
def server():
    with running() as running_server:
        yield running_server


def _auth(server: Any) -> dict[str, str]:
    keys = server.app[APPLICATION_KEYS]
    token = mint_token(keys.private_key, subject="integrator", rights=[REPORT_RIGHT], key_id=keys.key_id)
    return {"Authorization": f"Bearer {token}"}


def _send(server: Any, method: str, path: str, content: bytes) -> httpx.Response:
    headers = {"Content-Type": "application/json", **(_auth(server) if path == "/v1/reports" else {})}
    params = {"identifier": f"{ns('contractor')}|1", "owner": EMPLOYER_NIP} if method == "PATCH" else None
    return server.client.request(method, path, content=content, headers=headers, params=params)


def _every_party_reads(server: Any) -> None:
    response = server.client.get("/v1/parties", params=ALL)
    assert response.status_code == 200, response.text[:300]
    json.loads(response.text, parse_constant=lambda name: pytest.fail(f"served {name}"))


@pytest.mark.parametrize("body", sorted(HOSTILE_BODIES))
@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
def test_a_pathological_json_body_is_a_400_naming_what_is_wrong(server, method, path, body):
    text, named = HOSTILE_BODIES[body]
    response = _send(server, method, path, text.encode("utf-8"))
    assert named in assert_problem(response, 400)["detail"]


def test_a_party_patched_with_a_deeply_nested_value_is_refused_and_every_read_still_answers(server):
    """The persistent denial of service: a 971-deep attribute value was stored, and every read including the
    party answered 500 from then on."""
    body = contractor_body("Głęboka Sp. z o.o.", attribute=[{"code": "crm-id", "value": "DEEP"}])
    text = json.dumps(body).replace('"DEEP"', "[" * 971 + '"x"' + "]" * 971)  # json.dumps recurses too deep
    response = _send(server, "PATCH", "/v1/parties", text.encode())
    assert_problem(response, 400)
    _every_party_reads(server)
    by_identifier = server.client.get("/v1/parties", params={"identifier": f"{ns('contractor')}|1"})
    assert by_identifier.status_code == 200


@pytest.mark.parametrize("name", ["count", "offset"])
def test_a_page_number_of_thousands_of_digits_is_a_400_naming_it(server, name):
    response = server.client.get("/v1/parties", params={name: "9" * 1000})
    problem = assert_problem(response, 400)
    assert name in problem["detail"]


def test_a_filter_repeated_hundreds_of_times_is_a_400_naming_it(server):
    response = server.client.get("/v1/parties", params=[("attribute", "a|b")] * 300)
    assert "attribute" in assert_problem(response, 400)["detail"]


def test_an_order_without_content_type_is_the_400_of_the_errors_part(server):
    """The contract's table for POST /v1/reports gives 400 Problem Details for a malformed request (not 415)."""
    response = server.client.post("/v1/reports", content=b"{}", headers=_auth(server))
    assert assert_problem(response, 400)["status"] == 400


def test_a_contractor_created_without_owner_is_owned_by_the_own_organisation_and_can_be_patched():
    with running() as server:
        body = contractor_body("Bez Właściciela Sp. z o.o.")
        created = server.client.post("/v1/parties", json=body)
        assert created.status_code == 200, created.text
        party = created.json()
        owner_system, _, owner_value = EMPLOYER_NIP.partition("|")
        assert [o["identifier"] for o in party["owner"]] == [{"system": owner_system, "value": owner_value}]
        key = next(i for i in party["identifier"] if i["system"] == ns("contractor"))
        renamed = contractor_body("Po Zmianie Sp. z o.o.")
        changed = server.client.patch(
            "/v1/parties",
            json=renamed,
            params={"identifier": f"{key['system']}|{key['value']}", "owner": EMPLOYER_NIP},
        )
        assert changed.status_code == 200, changed.text


# -- fuzzing: generated pathological JSON and query strings --------------------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(st.characters(codec=None, categories=("Cs", "Lu", "Ll", "Nd", "Po", "Zs")), max_size=8),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)


def _nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


@given(
    target=st.sampled_from(WRITES),
    value=_VALUES,
    depth=st.sampled_from([0, 1, 10, 70, 300]),
)
def test_fuzzed_json_bodies_never_reach_a_5xx_and_every_read_still_answers(server, target, value, depth):
    method, path = target
    body = {**contractor_body("Fuzz Sp. z o.o."), "comment": _nested(value, depth)}
    text = json.dumps(body, ensure_ascii=True)  # NaN, Infinity and lone surrogates written as Python does
    response = _send(server, method, path, text.encode("utf-8"))
    assert response.status_code < 500, f"{method} {path} answered {response.status_code}: {response.text[:300]}"
    _every_party_reads(server)


_PARAMETERS = st.sampled_from(["count", "offset", "identifier", "owner", "attribute", "profile", "type", "status"])


@given(
    path=st.sampled_from(["/v1/parties", "/v1/locations", "/v1/fixed-asset-documents", "/v1/value-sets"]),
    query=st.lists(st.tuples(_PARAMETERS, st.text(max_size=30) | st.integers().map(str)), max_size=30),
)
def test_fuzzed_query_strings_never_reach_a_5xx(server, path, query):
    response = server.client.get(path, params=query)
    assert response.status_code < 500, f"GET {response.request.url} answered {response.status_code}"


# -- the receiver -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory):
    with Receiver(Path(tmp_path_factory.mktemp("received"))) as started:
        yield started


@pytest.mark.parametrize("body", sorted(HOSTILE_BODIES))
def test_the_receiver_answers_a_pathological_notification_400_and_records_nothing(receiver, body):
    text, named = HOSTILE_BODIES[body]
    before = len(receiver.notifications())
    response = httpx.post(
        receiver.notification_url, content=text.encode(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400 and named in response.text
    assert len(receiver.notifications()) == before


# -- headers and the gateway --------------------------------------------------------------------------------


def test_two_authorization_headers_are_refused_not_guessed_between(server):
    headers = [("Authorization", "Bearer one"), ("Authorization", "Bearer two"), ("Content-Type", "application/json")]
    response = server.client.post("/v1/reports", content=b"{}", headers=headers)
    assert "more than one Authorization" in assert_problem(response, 400)["detail"]


def test_a_flood_of_refused_tokens_is_rate_limited_before_anything_is_verified():
    from serve_fixtures import seeded_settings

    with running(seeded_settings(rate_per_second=1, rate_burst=3)) as limited:
        statuses = [
            limited.client.post("/v1/reports", json={}, headers={"Authorization": "Bearer forged"}).status_code
            for _ in range(6)
        ]
        assert statuses[:3] == [401, 401, 401] and 429 in statuses[3:], statuses


# -- slow and vanishing clients ------------------------------------------------------------------------------


def _partial_post(url: str, *, close: bool) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)))
    connection.sendall(
        b'POST /v1/parties HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":'
    )
    if close:
        time.sleep(0.1)
        connection.close()
    return connection


def test_a_client_that_disconnects_mid_body_is_no_error_of_the_service(server, caplog):
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            _partial_post(server.url, close=True)
        time.sleep(0.5)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    _every_party_reads(server)


def test_a_body_trickled_past_the_time_limit_is_a_408(server, monkeypatch):
    from reference_impl import writes

    monkeypatch.setattr(writes, "BODY_READ_SECONDS", 0.5)
    connection = _partial_post(server.url, close=False)
    try:
        connection.settimeout(10)
        answer = connection.recv(4096).decode("latin-1")
    finally:
        connection.close()
    assert answer.startswith("HTTP/1.1 408"), answer[:200]
