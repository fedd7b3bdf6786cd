"""Reads: the envelope and its paging on every list read of the contract, the /v1 prefix, and the
absence of `{id}` routes and of DELETE.

The list reads come from schemas/openapi.json (every GET paged with count and offset). Items are
compared by id (by url for the value-set listing) and as sets within a page: the contract fixes no
item order, only that `offset` counts into one list that pages consistently. Reads carry no token:
authentication of endpoints other than POST /v1/reports is not shown."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NoReturn

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import DEFAULT_COUNT, not_exercised
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import (
    ListRead,
    assert_not_success,
    identifiers,
    ids,
    list_reads,
    operation_paths,
    token,
)
from profiles.limits import LIMITS

LIST_READS = list_reads()


def _params(discovery: Discovery, read: ListRead) -> dict[str, str]:
    """The required parameters of `read` with the discovered value that finds the most items."""
    params = discovery.largest_required(read)
    if params is None:
        not_exercised(
            f"GET {read.path} answered no items for any value of {', '.join(read.required)} the suite found to try",
            exercise=data_served(read.path),
        )
    return params


def _no_items(read: ListRead, found: str = "no items") -> NoReturn:
    not_exercised(f"GET {read.path} found {found}", exercise=data_served(read.path))


def _paging_check(discovery: Discovery, read: ListRead, check: Callable[[list[Any]], None]) -> None:
    """Run `check` against the ids of the whole list, read afresh. Other tests may write while this one
    pages (parties, documents; under pytest-xdist at the same time): when a check fails and the list has
    changed meanwhile, it is run again on the new list; when the list is unchanged, the failure stands."""
    params = _params(discovery, read)
    for attempt in range(3):
        everything = ids(discovery.api.read_all(read.path, params))
        if not everything:
            _no_items(read)
        try:
            check(everything)
            return
        except AssertionError:
            unchanged = ids(discovery.api.read_all(read.path, params)) == everything
            if unchanged or attempt == 2:
                raise


def _page(discovery: Discovery, read: ListRead, params: dict[str, Any], *, paging_defaults: bool = False) -> list[Any]:
    """The ids of one page; the items' shape is the envelope test's (test_every_list_read_answers_...). Without
    `paging_defaults` the page states its offset (see Api.get)."""
    return ids(discovery.api.read(read.path, params, paging_defaults=paging_defaults))


def _pages(discovery: Discovery, read: ListRead, *params: dict[str, Any]) -> list[list[Any]]:
    """The ids of the pages of `params`, read at once (see Api.concurrently), in their order."""
    return discovery.api.concurrently([partial(_page, discovery, read, each) for each in params])


# -- the envelope ---------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-READ-001", "ERIS-READ-002", "ERIS-VER-001")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_every_list_read_answers_the_envelope_of_valid_items(discovery: Discovery, read: ListRead) -> None:
    params = _params(discovery, read)
    response = discovery.api.get(read.path, params)
    assert response.status_code == 200, f"GET {response.request.url} answered {response.status_code}"
    body = response.json()
    discovery.api.judge(body, "ReadEnvelope", where=f"GET {response.request.url}")
    for position, item in enumerate(body["items"]):
        discovery.api.judge(item, read.resource_type, where=f"GET {response.request.url} items[{position}]")
    # and every other item, of each value of a required parameter: the paging tests and the discovery of
    # data do not validate what they read
    discovery.api.concurrently(
        [
            partial(discovery.api.read_all, read.path, each, resource_type=read.resource_type)
            for each in discovery.required_values(read)
        ]
    )


@pytest.mark.requirement("ERIS-BASE-001")
@pytest.mark.parametrize("read", [r for r in LIST_READS if r.resource_type != "ValueSetSummary"], ids=str)
def test_every_item_of_a_list_read_carries_its_resource_type(discovery: Discovery, read: ListRead) -> None:
    # read without the validator: what this test finds is the base element, not a shape of the resource
    items = discovery.items(read.path)
    if not items:
        _no_items(read)
    wrong = [(i.get("id"), i.get("resourceType")) for i in items if i.get("resourceType") != read.resource_type]
    assert not wrong, f"GET {read.path}: items whose resourceType is not {read.resource_type}: {wrong[:5]}"


# -- paging ---------------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-LIMIT-001", "ERIS-READ-002")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_count_defaults_to_20(discovery: Discovery, read: ListRead) -> None:
    params = _params(discovery, read)

    def check(everything: list[Any]) -> None:
        more = len(everything) > DEFAULT_COUNT
        default, explicit, *further = _pages(
            discovery,
            read,
            params,
            {**params, "count": DEFAULT_COUNT, "offset": LIMITS.offset_default},
            *([{**params, "offset": DEFAULT_COUNT}, {**params, "offset": 1}] if more else []),
        )
        assert len(default) == min(DEFAULT_COUNT, len(everything)), (
            f"GET {read.path} without count answered {len(default)} items of {len(everything)}; "
            f"the default is {DEFAULT_COUNT}"
        )
        assert set(default) == set(everything[:DEFAULT_COUNT]), f"GET {read.path} without count is not the first page"
        assert set(default) == set(explicit), (
            f"GET {read.path} without count differs from count={DEFAULT_COUNT}&offset={LIMITS.offset_default}"
        )
        if more:
            # with the default count too: whether an explicit count is honoured is another test's
            second, shifted = further
            assert set(second) == set(everything[DEFAULT_COUNT : 2 * DEFAULT_COUNT]), (
                f"GET {read.path}?offset={DEFAULT_COUNT} without count is not items "
                f"{DEFAULT_COUNT}..{2 * DEFAULT_COUNT - 1} of the list (answered {second})"
            )
            assert set(shifted) == set(everything[1 : 1 + DEFAULT_COUNT]), (
                f"GET {read.path}?offset=1 without count is not items 1..{DEFAULT_COUNT} of the list"
            )

    _paging_check(discovery, read, check)


@pytest.mark.requirement("ERIS-LIMIT-002")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_offset_defaults_to_0(discovery: Discovery, read: ListRead) -> None:
    params = _params(discovery, read)

    def check(everything: list[Any]) -> None:
        count = max(1, min(5, len(everything) - 1))
        first, stated = discovery.api.concurrently(
            [
                partial(_page, discovery, read, {**params, "count": count}, paging_defaults=True),
                partial(_page, discovery, read, {**params, "count": count, "offset": LIMITS.offset_default}),
            ]
        )
        # against as many items as arrived: whether count is honoured is test_count_is_honoured's
        assert first and set(first) == set(everything[: len(first)]), (
            f"GET {read.path}?count={count} without offset is not the first page"
        )
        assert set(first) == set(stated)

    _paging_check(discovery, read, check)


@pytest.mark.requirement("ERIS-READ-002")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_count_is_honoured(discovery: Discovery, read: ListRead) -> None:
    params = _params(discovery, read)

    def check(everything: list[Any]) -> None:
        counts = (1, 2, 5)
        pages = _pages(discovery, read, *({**params, "count": count, "offset": 0} for count in counts))
        for count, page in zip(counts, pages, strict=True):
            assert len(page) == min(count, len(everything)), (
                f"GET {read.path}?count={count} answered {len(page)} items (the list has {len(everything)})"
            )

    _paging_check(discovery, read, check)


@pytest.mark.requirement("ERIS-READ-002")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_offset_pages_are_disjoint_and_consecutive(discovery: Discovery, read: ListRead) -> None:
    params = _params(discovery, read)

    def check(everything: list[Any]) -> None:
        count = max(2, len(everything) // 4 + 1)  # a handful of pages whatever the size
        seen: list[Any] = []
        offsets = range(0, len(everything), count)
        *pages, beyond = _pages(
            discovery,
            read,
            *({**params, "count": count, "offset": offset} for offset in offsets),
            {**params, "count": count, "offset": len(everything)},
        )
        for offset, page in zip(offsets, pages, strict=True):
            expected = everything[offset : offset + count]
            assert set(page) == set(expected), (
                f"GET {read.path}?count={count}&offset={offset} answered {page}, not items {offset}.. of the "
                f"list ({expected})"
            )
            assert not set(page) & set(seen), f"GET {read.path}: the page at offset {offset} repeats earlier items"
            seen += page
        assert sorted(map(str, seen)) == sorted(map(str, everything))
        assert beyond == [], f"GET {read.path}?offset={len(everything)} (the end of the list) answered {beyond}"

    _paging_check(discovery, read, check)


# -- routes ---------------------------------------------------------------------------------------


def _an_id(discovery: Discovery, read: ListRead) -> str:
    if read.path == "/v1/value-sets":  # the listing has url and version only: read one set for its id
        listing = discovery.items(read.path)
        sets = discovery.value_set(listing[0]["url"]) if listing else []
        found = [s["id"] for s in sets if isinstance(s.get("id"), str)]
    else:
        found = [i["id"] for i in discovery.items(read.path) if isinstance(i.get("id"), str)]
    if not found:
        _no_items(read, "no item with an id")
    return found[0]


@pytest.mark.requirement("ERIS-ROUTE-001")
@pytest.mark.parametrize("read", LIST_READS, ids=str)
def test_there_is_no_route_with_an_id_segment(discovery: Discovery, read: ListRead) -> None:
    resource_id = _an_id(discovery, read)
    methods = ("GET", "PATCH", "PUT")
    answers = discovery.api.concurrently(
        [partial(discovery.api.request, method, f"{read.path}/{resource_id}") for method in methods]
    )
    for response in answers:
        assert_not_success(response, f"a route with an {{id}} segment ({resource_id}) answered as if it existed")


def _listed_source(path: str) -> str | None:
    """The list read whose items `path` acts on: itself, or the documents for $document-content."""
    source = path.removesuffix("/$document-content")
    return source if source in {r.path for r in LIST_READS} else None


def _delete_params(discovery: Discovery, source: str | None) -> dict[str, str]:
    """The identifier of an item: a DELETE that named nothing real could fail for that reason alone."""
    items = discovery.items(source) if source is not None else []
    named = [pair for item in reversed(items) for pair in identifiers(item)]
    return {"identifier": token(*named[0])} if named else {}


# Last in the module: a target that wrongly deletes loses data only after the other reads have run.
@pytest.mark.requirement("ERIS-ROUTE-002")
@pytest.mark.parametrize("path", operation_paths())
def test_delete_is_not_an_operation_anywhere(discovery: Discovery, path: str) -> None:
    source = _listed_source(path)
    params = _delete_params(discovery, source)
    items = discovery.items(source) if source is not None else []
    resource_id = next((i["id"] for i in items if isinstance(i.get("id"), str)), "any-id")
    for response in discovery.api.concurrently(
        [
            partial(discovery.api.request, "DELETE", path, params=params),
            partial(discovery.api.request, "DELETE", f"{path}/{resource_id}"),
        ]
    ):
        assert_not_success(response, "there is no DELETE operation")
