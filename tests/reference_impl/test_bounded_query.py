"""The bounds of a query string (reference_impl.reads.bounded_query) at their edges: a short query is let through
without being parsed, so the edges on either side of that shortcut must answer as the bounds say."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serve_fixtures import RunningServer, assert_problem, running

from reference_impl.reads import MAX_QUERY_VALUES, MAX_VALUE_CHARS, MAX_VALUES_PER_PARAMETER


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with running() as own:
        yield own


def _status(server: RunningServer, query: str) -> int:
    return server.client.get(f"/v1/parties?{query}").status_code


@pytest.mark.parametrize(
    "query",
    [
        f"identifier={'x' * MAX_VALUE_CHARS}",
        f"identifier={'x' * MAX_VALUE_CHARS}&count=1",  # the whole query is longer than a value may be
        f"identifier={'%41' * MAX_VALUE_CHARS}",  # longer as sent than decoded
        "&".join(["identifier=x"] * MAX_VALUES_PER_PARAMETER),
        "&".join(f"p{number}=x" for number in range(MAX_QUERY_VALUES)),
        "&" * (MAX_QUERY_VALUES * 2),  # empty fields are no values
    ],
    ids=["longest-value", "longest-value-and-more", "encoded", "most-repeated", "most-parameters", "empty-fields"],
)
def test_a_query_within_the_bounds_is_answered(server: RunningServer, query: str) -> None:
    assert _status(server, query) == 200


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        (f"identifier={'x' * (MAX_VALUE_CHARS + 1)}", "longer than"),
        (f"count=1&identifier={'%41' * (MAX_VALUE_CHARS + 1)}", "longer than"),
        ("&".join(["identifier=x"] * (MAX_VALUES_PER_PARAMETER + 1)), "more than"),
        ("&".join(f"p{number}=x" for number in range(MAX_QUERY_VALUES + 1)), "parameters"),
    ],
    ids=["long-value", "long-encoded-value", "repeated", "parameters"],
)
def test_a_query_past_a_bound_is_a_400(server: RunningServer, query: str, detail: str) -> None:
    response = server.client.get(f"/v1/parties?{query}")
    assert detail in assert_problem(response, 400)["detail"]
