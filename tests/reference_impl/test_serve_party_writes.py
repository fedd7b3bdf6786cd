"""Contractors created and updated through /v1/parties of `eris serve`, read back at once and after a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import (
    ALL,
    CONTRACT,
    EMPLOYER_NIP,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    contractor_body,
    errors_of,
    ids,
    ns,
    profile_url,
    running,
    seed_by_id,
    seed_of,
    seeded_settings,
)
from serve_writes_fixtures import EMPLOYER_OWNER, PARTIES, identifier_values_in, read_by_identifier

from profiles.validator import WRITE
from reference_impl.app import ServerSettings


@pytest.fixture
def server() -> Iterator[RunningServer]:
    """A server of its own for each test that changes data (one starts in a few hundredths of a second)."""
    with running() as own:
        yield own


# -- POST /v1/parties ------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["meta-profile", "category"])
def test_post_creates_a_contractor_with_an_assigned_identifier_and_number(server: RunningServer, by: str) -> None:
    body = contractor_body("Nowa Firma S.A.", by="category" if by == "category" else "meta")
    assert errors_of(body, "Party", WRITE) == []
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    assert party["resourceType"] == "Party" and party["id"]
    assert profile_url("Contractor") in party["meta"]["profile"]
    assert {"system": f"{VOCAB}/party-kind", "code": "contractor"} in [
        c for cc in party["category"] for c in cc["coding"]
    ]
    assert party["name"] == body["name"]
    [value] = identifier_values_in(party, ns("contractor"))
    assert isinstance(value, str) and value
    assert isinstance(party.get("number"), str) and party["number"]
    for identifier in party["identifier"]:
        found = read_by_identifier(server, "/v1/parties", identifier["system"], identifier["value"])
        assert found == [party], identifier
    assert server.count() == PARTIES + 1
    assert party["id"] in ids(
        assert_envelope(server.client.get("/v1/parties", params={"profile": profile_url("Contractor"), **ALL}), "Party")
    )


def test_post_assigns_the_value_in_the_given_warehouse_namespace(server: RunningServer) -> None:
    body = contractor_body("Magazynowa Firma Sp. z o.o.", identifier=[{"system": ns("contractor-warehouse")}])
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    [value] = identifier_values_in(party, ns("contractor-warehouse"))
    assert value
    assert read_by_identifier(server, "/v1/parties", ns("contractor-warehouse"), value) == [party]


def test_post_assigns_the_value_in_the_second_contractor_register_it_names(server: RunningServer) -> None:
    second = CONTRACT.namespace_systems("contractor")[1]  # the example installation has two registers
    response = server.client.post(
        "/v1/parties", json=contractor_body("Druga Firma S.A.", identifier=[{"system": second}])
    )
    assert response.status_code == 200, response.text
    party = response.json()
    [value] = identifier_values_in(party, second)
    assert identifier_values_in(party, ns("contractor")) == []
    assert read_by_identifier(server, "/v1/parties", second, value) == [party]
    published = assert_envelope(server.client.get("/v1/naming-systems", params=ALL), "NamingSystem")
    assert second in [item.get("system") for item in published]


def test_a_null_element_of_a_write_body_is_read_as_left_out(server: RunningServer) -> None:
    body = contractor_body("Nullowa S.A.", comment=None, owner=None, number=None)
    response = server.client.post("/v1/parties", json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert "comment" not in party and party["owner"] and party["number"]
    [value] = identifier_values_in(party, ns("contractor"))
    patched = server.client.patch(
        "/v1/parties",
        params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP},
        json=contractor_body("Nullowa S.A.", comment=None, partOf=None),
    )
    assert patched.status_code == 200, patched.text
    assert "comment" not in patched.json() and "partOf" not in patched.json()


def test_post_without_an_identifier_lets_the_profile_choose_the_namespace(server: RunningServer) -> None:
    response = server.client.post("/v1/parties", json=contractor_body("Bez Identyfikatora S.A.", identifier=[]))
    assert response.status_code == 200, response.text
    [value] = identifier_values_in(response.json(), ns("contractor"))
    assert read_by_identifier(server, "/v1/parties", ns("contractor"), value) == [response.json()]


def test_post_always_creates_a_new_party_with_new_values(server: RunningServer) -> None:
    first = server.client.post("/v1/parties", json=contractor_body("Pierwsza S.A.")).json()
    second = server.client.post("/v1/parties", json=contractor_body("Pierwsza S.A.")).json()
    assert first["id"] != second["id"]
    assert first["number"] != second["number"]
    assert identifier_values_in(first, ns("contractor")) != identifier_values_in(second, ns("contractor"))
    existing = {v for p in seed_of("Party") for v in identifier_values_in(p, ns("contractor"))}
    assert not existing & {
        *identifier_values_in(first, ns("contractor")),
        *identifier_values_in(second, ns("contractor")),
    }
    assert server.count() == PARTIES + 2


def test_post_with_the_identifier_value_of_another_party_does_not_duplicate_it(server: RunningServer) -> None:
    body = contractor_body("Podszywka S.A.", identifier=[{"system": ns("contractor"), "value": "K-000001"}])
    response = server.client.post("/v1/parties", json=body)
    if response.status_code != 200:
        assert_problem(response, tuple(range(400, 500)))
    found = read_by_identifier(server, "/v1/parties", ns("contractor"), "K-000001")
    assert ids(found) == ["party-contractor-000001"]


# -- PATCH /v1/parties -----------------------------------------------------------------------------


def test_patch_updates_a_seed_party_and_the_update_reads_back(server: RunningServer) -> None:
    stored = seed_by_id("party-contractor-000002")
    identifier = f"{ns('contractor')}|K-000002"
    body = contractor_body(
        "Biuro Rachunkowe Bilans Sp. z o.o.",
        comment="przekształcenie spółki",
        status={"coding": [{"system": f"{VOCAB}/party-status", "code": "inactive"}]},
    )
    del body["identifier"]
    response = server.client.patch("/v1/parties", params={"identifier": identifier, "owner": EMPLOYER_NIP}, json=body)
    assert response.status_code == 200, response.text
    party = response.json()
    assert errors_of(party, "Party") == []
    assert party["id"] == stored["id"] and party["number"] == stored["number"]
    assert party["identifier"] == stored["identifier"]
    assert party["comment"] == "przekształcenie spółki"
    assert party["name"] == body["name"]
    assert party["status"]["coding"][0]["code"] == "inactive"
    assert read_by_identifier(server, "/v1/parties", ns("contractor"), "K-000002") == [party]
    inactive = server.client.get("/v1/parties", params={"status": "inactive", **ALL}).json()["items"]
    assert party["id"] in ids(inactive)
    assert server.count() == PARTIES


def test_patch_updates_a_created_party_addressed_by_its_assigned_identifier(server: RunningServer) -> None:
    created = server.client.post("/v1/parties", json=contractor_body("Do Zmiany S.A.", owner=EMPLOYER_OWNER)).json()
    [value] = identifier_values_in(created, ns("contractor"))
    body = contractor_body("Po Zmianie S.A.", owner=EMPLOYER_OWNER)
    response = server.client.patch(
        "/v1/parties", params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP}, json=body
    )
    assert response.status_code == 200, response.text
    assert response.json()["name"]["coding"][0]["display"] == "Po Zmianie S.A."
    assert response.json()["id"] == created["id"]
    assert read_by_identifier(server, "/v1/parties", ns("contractor"), value) == [response.json()]
    assert server.count() == PARTIES + 1


# -- persistence ------------------------------------------------------------------------------


def test_data_survive_a_restart_and_the_seed_is_loaded_once(tmp_path: Path) -> None:
    database = str(tmp_path / "eris.db")
    with running(seeded_settings(db=database)) as first:
        created = first.client.post("/v1/parties", json=contractor_body("Trwała S.A.", owner=EMPLOYER_OWNER)).json()
        [value] = identifier_values_in(created, ns("contractor"))
        patched = first.client.patch(
            "/v1/parties",
            params={"identifier": f"{ns('contractor')}|K-000005", "owner": EMPLOYER_NIP},
            json=contractor_body("Budmar Oddział Kraków (zmiana)", comment="po restarcie"),
        )
        assert patched.status_code == 200, patched.text
    with running(seeded_settings(db=database)) as second:
        assert read_by_identifier(second, "/v1/parties", ns("contractor"), value) == [created]
        [again] = read_by_identifier(second, "/v1/parties", ns("contractor"), "K-000005")
        assert again == patched.json()
        assert second.count() == PARTIES + 1
        assert second.count("/v1/locations") == len(seed_of("Location"))
        later = second.client.post("/v1/parties", json=contractor_body("Następna S.A.")).json()
        assert later["number"] != created["number"]
        assert identifier_values_in(later, ns("contractor")) != [value]
    with running(ServerSettings(db=database, seed=None, rate_per_second=0)) as third:
        assert third.count() == PARTIES + 2
