"""A token filter of the store takes one of two shapes by how many search tokens it matches (`store.NARROW`): the
list of its resources (`IN`), or a probe of each row (`EXISTS`). The seed data set is too small for the second, so
here every filter is read both ways: the same resources, in the same order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from serve_fixtures import EMPLOYER_NIP, RunningServer, ns, profile_url, running

from reference_impl import store
from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.state import SERVICE

QUERIES: list[tuple[str, dict[str, list[str]]]] = [
    ("Party", {"owner": [EMPLOYER_NIP]}),  # every identifier of the Employer: several keys of one param
    ("Party", {"owner": [OWN_ORGANIZATION_NIP]}),  # a value in any system
    ("Party", {"type": ["finance"]}),  # each declared vocabulary of the filter a key
    ("Party", {"type": ["finance"], "status": ["active"]}),
    ("Party", {"identifier": ["K-000001"]}),
    ("Party", {"identifier": [f"{ns('contractor')}|K-000001"]}),
    ("Party", {"profile": [profile_url("Contractor")]}),
    ("PartyRole", {"role": ["employee"]}),
]


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with running() as own:
        yield own


def _ids(server: RunningServer, resource_type: str, query: dict[str, list[str]], narrow: int) -> list[str]:
    async def search() -> list[str]:
        service = server.app[SERVICE]
        kept = store.NARROW
        store.NARROW = narrow
        try:
            conditions = service.queries.conditions(resource_type, query)
        finally:
            store.NARROW = kept
        shape = "EXISTS" if narrow == 0 else "r.pk IN"
        assert all(condition.sql.startswith(shape) for condition in conditions), conditions
        return [resource["id"] for resource in service.store.search(resource_type, conditions)]

    return server.call(search())


@pytest.mark.parametrize(("resource_type", "query"), QUERIES, ids=[str(q) for _, q in QUERIES])
def test_a_filter_finds_the_same_resources_as_a_list_and_probed_per_row(
    server: RunningServer, resource_type: str, query: dict[str, Any]
) -> None:
    listed = _ids(server, resource_type, query, narrow=10**9)
    probed = _ids(server, resource_type, query, narrow=0)  # no count is below 0: every filter probes
    assert listed, "the seed has resources this filter finds"
    assert probed == listed
