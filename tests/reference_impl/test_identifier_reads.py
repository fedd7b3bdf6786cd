"""Identifier reads of the common shape take their own path (reference_impl.identifier_reads) and keep their answers
until the next write (reference_impl.answer_cache). What they answer must be what the general path answers, byte for
byte and error for error, and never what the store held before a write."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from serve_fixtures import (
    ALL,
    EMPLOYER_NIP,
    NIP_SYSTEM,
    RunningServer,
    assert_envelope,
    contractor_body,
    ns,
    running,
    seed_of,
    seeded_settings,
)
from yarl import URL

from conformance.deviations import extensions
from reference_impl.answer_cache import ENTRY_OVERHEAD, AnswerCache
from reference_impl.identifier_reads import IdentifierReads, identifier_read_types
from reference_impl.search import READ_PATHS, load_operations
from reference_impl.state import SERVICE
from reference_impl.store import Store

NAME = 'Zakład „Żółć” 東京 \U0001f527 \u2028 "cudzysłów" \\ ukośnik'
"""Characters a JSON writer may escape or not (tests/reference_impl/test_serve_stored_answers.py)."""
OWNER = [{"type": "Party", "identifier": {"system": NIP_SYSTEM, "value": EMPLOYER_NIP.split("|")[1]}}]


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with running() as own:
        response = own.client.post("/v1/parties", json=contractor_body(NAME))
        assert response.status_code == 200, response.text
        yield own


def _answer(server: RunningServer, target: str) -> tuple[int, str, bytes, list[str]]:
    response = server.client.get(target)
    names = sorted(name for name in response.headers if name not in ("date", "server"))
    return response.status_code, response.headers.get("content-type", ""), response.content, names


def _by_general_path(server: RunningServer, target: str) -> tuple[int, str, bytes, list[str]]:
    service = server.app[SERVICE]
    own, service.identifier_reads = service.identifier_reads, None  # no request is under way: the loop is idle
    try:
        return _answer(server, target)
    finally:
        service.identifier_reads = own


def _identifier(resource: dict[str, Any]) -> tuple[str, str]:
    first = resource["identifier"][0]
    return first["system"], first["value"]


def _party_queries() -> list[str]:
    system, value = _identifier(seed_of("Party")[0])
    pair = quote(f"{system}|{value}", safe="")
    return [
        f"identifier={pair}",
        f"identifier={system}|{value}",  # the bar as sent by hand, not encoded
        f"identifier={quote(value, safe='')}",  # no system: the value in any system
        f"identifier=%7C{quote(value, safe='')}",  # an empty system
        "identifier=urn%3Anothing%7Cnothing",
        "identifier=",
        "identifier=a+b",
        f"identifier={quote(NAME, safe='')}",
        f"identifier={pair}&count=1",
        f"identifier={pair}&count=0",
        f"identifier={pair}&offset=1",
        f"count=1000&identifier={pair}&offset=0",
        f"identifier={pair}&count=0005",
        f"identifier={pair}&count=1001",
        f"identifier={pair}&count=-1",
        f"identifier={pair}&count=abc",
        f"identifier={pair}&count=%D9%A3",  # an Arabic-Indic digit: isdigit() holds, and it is no number here
        f"identifier={pair}&offset=1000000000001",
        f"identifier={pair}&offset={'0' * 30}1",
        f"identifier={pair}&count=1&count=2",
        f"identifier={pair}&identifier={pair}",
        f"identifier={pair}&identifier=urn%3Anothing%7Cnothing",
        f"identifier=urn%3Anothing%7Cnothing&identifier={pair}",
        f"identifier={pair}&status=urn%3Anothing%7Cactive",
        f"identifier={pair}&owner={quote(EMPLOYER_NIP, safe='')}",
        f"identifier={pair}&unknown=1",
        f"identifier={pair}&",
        f"&identifier={pair}",
        f"identifier={pair}%26count%3D0",  # the ampersand is the value's, not a separator
        f"identifier={'x' * 3000}",
        f"identifier={pair}&count=",
        "count=1",
        "",
    ]


@pytest.mark.parametrize("query", _party_queries())
def test_a_party_read_answers_what_the_general_path_answers(server: RunningServer, query: str) -> None:
    target = f"/v1/parties?{query}"
    first, again = _answer(server, target), _answer(server, target)  # read, then (if it may be kept) kept
    general = _by_general_path(server, target)
    assert first == general
    assert again == general


@pytest.mark.parametrize("path", sorted(READ_PATHS))
def test_an_identifier_read_of_any_list_answers_what_the_general_path_answers(server: RunningServer, path: str) -> None:
    required = {"/v1/party-roles": "role=employee&", "/v1/party-relationships": "type=employer-employee&"}
    listed = server.client.get(f"{path}?{required.get(path, '')}count=1000")
    items = assert_envelope(listed, None) if listed.status_code == 200 else []
    with_identifier = [item for item in items if item.get("identifier")]
    system, value = _identifier(with_identifier[-1]) if with_identifier else ("urn:nothing", "nothing")
    for query in (f"identifier={quote(f'{system}|{value}', safe='')}", f"identifier={quote(value)}&count=1&offset=0"):
        target = f"{path}?{query}"
        first, again = _answer(server, target), _answer(server, target)
        assert first == again == _by_general_path(server, target), target


def test_the_reads_taking_the_identifier_path_are_those_filtering_by_identifier_without_required_parameters() -> None:
    assert sorted(identifier_read_types(load_operations())) == [
        "/v1/asset-components",
        "/v1/capabilities",
        "/v1/cost-centers",
        "/v1/document-references",
        "/v1/fixed-asset-documents",
        "/v1/fixed-assets",
        "/v1/locations",
        "/v1/parties",
    ]


# -- writes --------------------------------------------------------------------------------------------------------


@pytest.fixture
def own_server() -> Iterator[RunningServer]:
    with running() as own:
        yield own


def _read(server: RunningServer, identifier: str, **params: str) -> list[dict[str, Any]]:
    return assert_envelope(server.client.get("/v1/parties", params={"identifier": identifier, **params}), "Party")


def test_a_party_created_after_a_read_of_its_identifier_is_read(own_server: RunningServer) -> None:
    identifier = f"{ns('contractor')}|987654"
    assert _read(own_server, identifier) == [] == _read(own_server, identifier)  # nothing, and kept so
    body = contractor_body("Nowa S.A.", owner=OWNER)
    body["identifier"] = [{"system": ns("contractor"), "value": "987654"}]
    created = own_server.client.post("/v1/parties", json=body)
    assert created.status_code == 200, created.text
    assert _read(own_server, identifier) == [created.json()]
    assert _read(own_server, identifier, count="1") == [created.json()]


def test_a_party_changed_after_a_read_is_read_as_changed(own_server: RunningServer) -> None:
    created = own_server.client.post("/v1/parties", json=contractor_body("Przed Zmianą S.A.", owner=OWNER)).json()
    [value] = [i["value"] for i in created["identifier"] if i["system"] == ns("contractor")]
    identifier = f"{ns('contractor')}|{value}"
    assert _read(own_server, identifier) == [created]
    for name in ("Po Zmianie S.A.", "Po Drugiej Zmianie S.A."):
        changed = own_server.client.patch(
            "/v1/parties",
            params={"identifier": identifier, "owner": EMPLOYER_NIP},
            json=contractor_body(name, owner=OWNER),
        )
        assert changed.status_code == 200, changed.text
        [read] = _read(own_server, identifier)
        assert read == changed.json() and read["name"]["coding"][0]["display"] == name


def test_a_refused_write_leaves_the_answers_as_they_were(own_server: RunningServer) -> None:
    identifier = f"{ns('contractor')}|K-000003"
    before = own_server.client.get("/v1/parties", params={"identifier": identifier}).content
    refused = own_server.client.patch(
        "/v1/parties",
        params={"identifier": identifier, "owner": EMPLOYER_NIP},
        json={**contractor_body(), "resourceType": "Location"},
    )
    assert refused.status_code >= 400
    assert own_server.client.get("/v1/parties", params={"identifier": identifier}).content == before


def _party(name: str) -> dict[str, Any]:
    return {"resourceType": "Party", "id": "p-1", "name": name}


def test_a_read_inside_a_rolled_back_write_is_not_kept() -> None:
    store = Store()
    reads = IdentifierReads(store, {"/v1/parties": "Party"}, AnswerCache(1 << 20))
    tokens = [("identifier", "urn:s", "1")]

    def answer() -> bytes | None:
        return reads.answer(URL("/v1/parties?identifier=urn:s%7C1"))

    with store.transaction():
        store.put(_party("before"), tokens, "2026-01-01T00:00:00.000000Z")
    assert answer() is not None and b'"before"' in answer()  # type: ignore[operator]
    with pytest.raises(RuntimeError), store.transaction():
        store.put(_party("never"), tokens, "2026-01-02T00:00:00.000000Z")
        assert b'"never"' in answer()  # type: ignore[operator]  # the connection sees its own uncommitted write
        raise RuntimeError("the write fails")
    assert b'"before"' in answer()  # type: ignore[operator]
    store.close()


# -- deviations that change how reads answer -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["identifier-filter-ignored-on-parties", "reversed-order"])
def test_a_deviation_changing_how_reads_answer_turns_the_identifier_path_off(name: str) -> None:
    server = RunningServer(seeded_settings(extensions=extensions([name])))
    try:
        assert server.app[SERVICE].identifier_reads is None
        system, value = _identifier(seed_of("Party")[0])
        items = _read(server, f"{system}|{value}", **ALL)
        if name == "identifier-filter-ignored-on-parties":
            assert len(items) == len(seed_of("Party"))
    finally:
        server.stop()


# -- the cache itself ----------------------------------------------------------------------------------------------


def test_the_cache_holds_no_more_bytes_than_its_bound_and_drops_the_least_recently_read_first() -> None:
    answer = b"x" * 100
    keys = [f"k{number:02}" for number in range(17)]
    cache = AnswerCache(max_bytes=16 * (len(keys[0]) + len(answer) + ENTRY_OVERHEAD))
    for key in keys[:16]:
        cache.put(key, answer, 1)
    assert cache.get("k00", 1) == answer  # read last: k01 is now the least recently read
    cache.put("k16", answer, 1)
    assert cache.get("k01", 1) is None
    assert all(cache.get(key, 1) == answer for key in keys if key != "k01")
    assert cache.size == cache.max_bytes and len(cache) == 16


def test_the_cache_answers_nothing_read_at_another_version() -> None:
    cache = AnswerCache(max_bytes=1 << 20)
    cache.put("k", b"old", 1)
    assert cache.get("k", 2) is None
    assert cache.get("k", 1) is None  # emptied: a version goes by once
    cache.put("k", b"new", 2)
    cache.put("j", b"other", 3)
    assert cache.get("k", 3) is None and cache.get("j", 3) == b"other"


def test_the_cache_keeps_no_answer_larger_than_a_sixteenth_of_its_bound() -> None:
    cache = AnswerCache(max_bytes=16_000)
    cache.put("k", b"x" * 1_000, 1)
    assert cache.get("k", 1) is None and cache.size == 0


def test_a_server_without_a_cache_answers_from_the_store_every_time() -> None:
    with running(seeded_settings(answer_cache_bytes=0)) as server:
        system, value = _identifier(seed_of("Party")[0])
        assert server.app[SERVICE].identifier_reads.cache is None  # type: ignore[union-attr]
        assert [item["identifier"][0]["value"] for item in _read(server, f"{system}|{value}")] == [value]


def test_an_http_client_sees_one_content_type_on_both_paths(server: RunningServer) -> None:
    system, value = _identifier(seed_of("Party")[0])
    fast = server.client.get("/v1/parties", params={"identifier": f"{system}|{value}"})
    general = server.client.get("/v1/parties", params={"identifier": f"{system}|{value}", "unknown": "1"})
    assert fast.headers["content-type"] == general.headers["content-type"] == "application/json; charset=utf-8"
    assert fast.content == general.content
