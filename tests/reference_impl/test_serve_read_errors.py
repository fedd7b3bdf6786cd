"""The errors of `eris serve`'s reads: required parameters, no `{id}` routes, no DELETE, Problem Details always."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from serve_fixtures import (
    ALL,
    EMPLOYER_NIP,
    VOCAB,
    RunningServer,
    assert_problem,
    contractor_body,
    ns,
    running,
    seed_of,
)
from serve_read_cases import CONTRACTOR_1, DOCUMENT_CONTENT_PATH, coded

from reference_impl.search import READ_PATHS


@pytest.fixture(scope="module")
def scratch() -> Iterator[RunningServer]:
    """A server for requests that must change nothing (DELETE, writes missing a parameter): were the
    implementation wrong, the damage stays away from the read-only tests."""
    with running() as running_server:
        yield running_server


# -- required parameters ------------------------------------------------------------------------

REQUIRED = [
    ("/v1/party-roles", {}, "role"),
    ("/v1/party-roles", {"role": "", "party": CONTRACTOR_1}, "role"),
    ("/v1/party-relationships", {"partyFrom": EMPLOYER_NIP}, "type"),
    ("/v1/fixed-asset-allocations", {}, "category"),
    ("/v1/fixed-asset-documents/$document-content", {"owner": EMPLOYER_NIP}, "identifier"),
]


@pytest.mark.parametrize(("path", "params", "parameter"), REQUIRED, ids=[f"{p}-{n}" for p, _, n in REQUIRED])
def test_a_read_without_a_required_parameter_is_a_400_naming_it(
    server: RunningServer, path: str, params: dict[str, str], parameter: str
) -> None:
    assert_problem(server.client.get(path, params=params), 400, parameter)


@pytest.mark.parametrize(
    ("params", "missing"),
    [
        ({"owner": EMPLOYER_NIP}, ("identifier",)),
        ({"identifier": f"{ns('contractor')}|K-000002"}, ("owner",)),
        ({}, ("identifier", "owner")),
    ],
    ids=["no-identifier", "no-owner", "neither"],
)
def test_patch_parties_without_identifier_or_owner_is_a_400_and_changes_nothing(
    scratch: RunningServer, params: dict[str, str], missing: tuple[str, ...]
) -> None:
    target = {"identifier": f"{ns('contractor')}|K-000002", **ALL}
    before = scratch.client.get("/v1/parties", params=target).json()
    body = contractor_body("Nazwa Zmieniona S.A.", comment="must not be stored")
    response = scratch.client.patch("/v1/parties", params=params, json=body)
    problem = assert_problem(response, 400)
    assert problem.get("parameter") in missing and problem["parameter"] in problem["detail"]
    assert scratch.client.get("/v1/parties", params=target).json() == before
    assert scratch.count() == len(seed_of("Party"))


# -- no {id} routes, no DELETE ------------------------------------------------------------------

ID_PATHS = [(path, seed_of(resource_type)[0]["id"]) for path, resource_type in READ_PATHS.items()]
ID_PATHS.append(("/v1/value-sets", "party-status"))


@pytest.mark.parametrize(("path", "resource_id"), ID_PATHS, ids=[p for p, _ in ID_PATHS])
@pytest.mark.parametrize("suffix", ["", "/x", "/"])
def test_there_are_no_id_routes(server: RunningServer, path: str, resource_id: str, suffix: str) -> None:
    for method in ("GET", "PATCH", "PUT"):
        response = server.client.request(method, f"{path}/{resource_id}{suffix}")
        assert_problem(response, (404, 405))


EVERY_PATH = [*READ_PATHS, "/v1/value-sets", DOCUMENT_CONTENT_PATH, "/v1/reports"]


@pytest.mark.parametrize("path", EVERY_PATH)
def test_delete_is_not_an_operation_anywhere(scratch: RunningServer, path: str) -> None:
    resource_type = READ_PATHS.get(path)
    target = seed_of(resource_type)[0] if resource_type else None
    params = {}
    if target is not None and target.get("identifier"):
        first = target["identifier"][0]
        params = {"identifier": f"{first['system']}|{first['value']}", "owner": EMPLOYER_NIP}
    for url in (path, f"{path}/{target['id']}" if target else f"{path}/x"):
        assert_problem(scratch.client.delete(url, params=params), (404, 405))
    if resource_type is not None:
        assert scratch.count(path, **_required_for(path)) == len(
            [r for r in seed_of(resource_type) if _matches_required(path, r)]
        )


def _required_for(path: str) -> dict[str, str]:
    return {
        "/v1/party-roles": {"role": "employee"},
        "/v1/party-relationships": {"type": "employer-employee"},
        "/v1/fixed-asset-allocations": {"category": "location"},
    }.get(path, {})


def _matches_required(path: str, resource: dict[str, Any]) -> bool:
    return all(coded(name, code)(resource) for name, code in _required_for(path).items())


# -- every error answer is Problem Details ------------------------------------------------------

ERRORS = [
    ("GET", "/v1/parties/party-employer", {}, 404),
    ("GET", "/v1/nothing-here", {}, 404),
    ("DELETE", "/v1/parties", {}, (404, 405)),
    ("GET", "/v1/parties", {"count": "abc"}, 400),
    ("GET", "/v1/parties", {"type": "https://example.com/x|hr"}, 400),
    ("GET", "/v1/document-references", {"type": f"{VOCAB}/finance/document-type|invoice"}, 400),
    ("GET", "/v1/party-roles", {}, 400),
    ("GET", "/v1/value-sets", {"url": "https://example.com/none"}, 404),
    ("GET", DOCUMENT_CONTENT_PATH, {"identifier": f"{ns('fixed-asset-document')}|FAD-2025-0005"}, 404),
    ("POST", "/v1/reports", {}, 401),
]


@pytest.mark.parametrize(("method", "path", "params", "status"), ERRORS, ids=[f"{m} {p} {s}" for m, p, _, s in ERRORS])
def test_every_error_answer_is_problem_details(
    server: RunningServer, method: str, path: str, params: dict[str, str], status: int | tuple[int, ...]
) -> None:
    response = server.client.request(method, path, params=params)
    body = assert_problem(response, status)
    assert body["title"] and body["detail"]
    assert body["type"].startswith("https://") or body["type"] == "about:blank"
