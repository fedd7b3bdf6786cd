"""Every read of `eris serve`: the envelope of the seed's items, alike on any server, paged by count and offset."""

from __future__ import annotations

import pytest
from serve_fixtures import ALL, RunningServer, assert_envelope, assert_problem, ids, seed_of, seeded_settings
from serve_read_cases import coded, codings, seed_ids

from reference_impl.search import READ_PATHS

# -- every read endpoint --------------------------------------------------------------------------

# Every list read with the required parameters it needs, and the seed items the answer must hold.
ENDPOINTS = [
    ("/v1/parties", {}, seed_ids("Party")),
    ("/v1/party-roles", {"role": "employee"}, seed_ids("PartyRole", coded("role", "employee"))),
    ("/v1/party-roles", {"role": "supplier"}, seed_ids("PartyRole", coded("role", "supplier"))),
    (
        "/v1/party-relationships",
        {"type": "employer-employee"},
        seed_ids("PartyRelationship", coded("type", "employer-employee")),
    ),
    (
        "/v1/party-relationships",
        {"type": "superior-subordinate"},
        seed_ids("PartyRelationship", coded("type", "superior-subordinate")),
    ),
    ("/v1/locations", {}, seed_ids("Location")),
    ("/v1/naming-systems", {}, seed_ids("NamingSystem")),
    ("/v1/capabilities", {}, seed_ids("Capability")),
    ("/v1/grant-assignments", {}, seed_ids("GrantAssignment")),
    ("/v1/fixed-assets", {}, seed_ids("FixedAsset")),
    ("/v1/asset-components", {}, seed_ids("AssetComponent")),
    *(
        ("/v1/fixed-asset-allocations", {"category": code}, seed_ids("FixedAssetAllocation", coded("category", code)))
        for code in ("location", "cost-center", "responsible-person")
    ),
    ("/v1/cost-centers", {}, seed_ids("CostCenter")),
    ("/v1/fixed-asset-documents", {}, seed_ids("FixedAssetDocument")),
    ("/v1/document-references", {}, seed_ids("DocumentReference")),
]


def test_the_endpoint_table_covers_every_read_path() -> None:
    assert {path for path, _, _ in ENDPOINTS} == set(READ_PATHS)


@pytest.mark.parametrize(
    ("path", "params", "expected"), ENDPOINTS, ids=[f"{p}?{'&'.join(q.values())}" for p, q, _ in ENDPOINTS]
)
def test_every_read_answers_the_envelope_of_valid_items(
    server: RunningServer, path: str, params: dict[str, str], expected: list[str]
) -> None:
    assert expected, "the seed has items for every read"
    items = assert_envelope(server.client.get(path, params={**params, **ALL}), READ_PATHS[path])
    assert ids(items) == expected


def test_the_required_role_and_category_filters_together_cover_every_seed_item(server: RunningServer) -> None:
    roles = {c for r in seed_of("PartyRole") for _, c in codings(r["role"])}
    found = [
        i
        for role in sorted(roles)
        for i in ids(server.client.get("/v1/party-roles", params={"role": role, **ALL}).json()["items"])
    ]
    assert sorted(found) == sorted(seed_ids("PartyRole"))
    categories = {c for r in seed_of("FixedAssetAllocation") for _, c in codings(r["category"])}
    found = [
        i
        for category in sorted(categories)
        for i in ids(
            server.client.get("/v1/fixed-asset-allocations", params={"category": category, **ALL}).json()["items"]
        )
    ]
    assert sorted(found) == sorted(seed_ids("FixedAssetAllocation"))


# -- paging ---------------------------------------------------------------------------------------


def test_count_defaults_to_20(server: RunningServer) -> None:
    parties = seed_ids("Party")
    assert len(parties) > 20
    items = assert_envelope(server.client.get("/v1/parties"), "Party")
    assert ids(items) == parties[:20]


def test_count_and_offset_page_through_disjoint_pages(server: RunningServer) -> None:
    parties = seed_ids("Party")
    pages = []
    for offset in range(0, len(parties), 7):
        page = ids(assert_envelope(server.client.get("/v1/parties", params={"count": 7, "offset": offset}), "Party"))
        assert len(page) == min(7, len(parties) - offset)
        pages.append(page)
    seen = [item for page in pages for item in page]
    assert len(seen) == len(set(seen)), "pages overlap"
    assert seen == parties
    assert ids(assert_envelope(server.client.get("/v1/parties", params={"offset": 3}), "Party")) == parties[3:23]


@pytest.mark.parametrize("offset", [len(seed_of("Party")), len(seed_of("Party")) + 1, 100_000])
def test_an_offset_beyond_the_end_gives_an_empty_page(server: RunningServer, offset: int) -> None:
    assert assert_envelope(server.client.get("/v1/parties", params={"offset": offset}), "Party") == []


def test_an_offset_too_large_for_the_database_is_still_an_answer(server: RunningServer) -> None:
    response = server.client.get("/v1/parties", params={"offset": "9" * 25})
    if response.status_code == 200:
        assert assert_envelope(response, "Party") == []
    else:
        assert_problem(response, 400, "offset")


@pytest.mark.parametrize("path", ["/v1/parties", "/v1/locations", "/v1/value-sets", "/v1/document-references"])
@pytest.mark.parametrize(("parameter", "value"), [("count", "-1"), ("count", "abc"), ("offset", "-1"), ("offset", "x")])
def test_a_bad_count_or_offset_is_a_400_naming_it(server: RunningServer, path: str, parameter: str, value: str) -> None:
    assert_problem(server.client.get(path, params={parameter: value}), 400, parameter)


def test_two_servers_of_the_seed_answer_alike() -> None:
    """Two servers of the same seed answer the same: the data set is deterministic."""
    first = RunningServer(seeded_settings())
    try:
        second = RunningServer(seeded_settings())
        try:
            for path, params, _ in ENDPOINTS:
                a = first.client.get(path, params={**params, **ALL}).json()
                b = second.client.get(path, params={**params, **ALL}).json()
                assert a == b, path
        finally:
            second.stop()
    finally:
        first.stop()
