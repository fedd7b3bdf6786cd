"""List reads answer the stored JSON text of each resource without parsing it (reference_impl.reads.stored_envelope).
Their answers must stay what writing the envelope of the parsed resources gave: the same bytes, non-ASCII text
included, and the same items as a read by identifier answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from serve_fixtures import ALL, RunningServer, assert_envelope, contractor_body, ns, running

from reference_impl.search import READ_PATHS
from reference_impl.state import SERVICE

# Characters a JSON writer may escape or not: Polish and CJK letters, typographic quotes, a character beyond the
# BMP, U+2028 (a line separator to JavaScript, plain text to JSON), a quote and a backslash.
NAME = 'Zakład Ślusarski „Żółć” — Łódź 東京 \U0001f527 \u2028 "cudzysłów" \\ ukośnik'

REQUIRED = {
    "/v1/party-roles": {"role": "employee"},
    "/v1/party-relationships": {"type": "employer-employee"},
    "/v1/fixed-asset-allocations": {"category": "location"},
}
"""The required parameters of the reads that have some."""


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with running() as own:
        yield own


@pytest.fixture(scope="module")
def created(server: RunningServer) -> dict[str, Any]:
    """A Contractor whose name holds NAME, created through the API (so stored by the write path)."""
    response = server.client.post("/v1/parties", json=contractor_body(NAME))
    assert response.status_code == 200, response.text
    return response.json()


def _served_before(items: list[dict[str, Any]]) -> bytes:
    """The answer as list reads wrote it before they joined stored texts: the envelope of the parsed resources."""
    return json.dumps({"items": items, "nextToken": None}, ensure_ascii=False, separators=(",", ":")).encode()


def _stored(server: RunningServer, resource_type: str, query: dict[str, str]) -> list[dict[str, Any]]:
    """What the store holds for a read, parsed (on the server's loop, which owns the store's connection)."""

    async def search() -> list[dict[str, Any]]:
        service = server.app[SERVICE]
        conditions = service.queries.conditions(resource_type, {name: [value] for name, value in query.items()})
        return service.store.search(resource_type, conditions, count=int(ALL["count"]))

    return server.call(search())


@pytest.mark.parametrize("path", sorted(READ_PATHS))
def test_a_list_read_answers_the_stored_resources_as_before(
    server: RunningServer, created: dict[str, Any], path: str
) -> None:
    query = REQUIRED.get(path, {})
    response = server.client.get(path, params={**query, **ALL})
    items = assert_envelope(response, READ_PATHS[path])
    assert items, "the seed has items of every read"
    stored = _stored(server, READ_PATHS[path], query)
    assert items == stored
    assert response.content == _served_before(stored)
    assert response.headers["content-type"] == "application/json; charset=utf-8"


def test_a_resource_with_non_ascii_text_reads_the_same_in_a_list_and_by_identifier(
    server: RunningServer, created: dict[str, Any]
) -> None:
    [value] = [i["value"] for i in created["identifier"] if i["system"] == ns("contractor")]
    by_identifier = server.client.get("/v1/parties", params={"identifier": f"{ns('contractor')}|{value}"})
    assert assert_envelope(by_identifier, "Party") == [created]
    listed = server.client.get("/v1/parties", params=ALL)
    [in_list] = [item for item in assert_envelope(listed, "Party") if item["id"] == created["id"]]
    assert in_list == created
    assert in_list["name"]["coding"][0]["display"] == NAME
    # as UTF-8 characters, not \u escapes: the served form is unchanged
    written = json.dumps(NAME, ensure_ascii=False)[1:-1].encode()
    assert written in listed.content and written in by_identifier.content


def test_every_party_of_a_list_read_is_what_its_identifier_read_answers(
    server: RunningServer, created: dict[str, Any]
) -> None:
    parties = assert_envelope(server.client.get("/v1/parties", params=ALL), "Party")
    for party in parties:
        identifier = party["identifier"][0]
        response = server.client.get(
            "/v1/parties", params={"identifier": f"{identifier['system']}|{identifier['value']}"}
        )
        assert party in assert_envelope(response, "Party"), party["id"]


def test_a_value_set_read_by_url_answers_the_stored_set_as_before(server: RunningServer) -> None:
    listing = assert_envelope(server.client.get("/v1/value-sets", params=ALL), None)
    url = listing[0]["url"]
    response = server.client.get("/v1/value-sets", params={"url": url})
    items = assert_envelope(response, "ValueSet")
    stored = _stored(server, "ValueSet", {"url": url})
    assert items == stored and stored
    assert response.content == _served_before(stored)
