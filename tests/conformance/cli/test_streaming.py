"""The streaming reader of `eris validate` (conformance/cli/streaming.py): whatever the buffer size, it yields the
values the whole-text reader would, and stops with a located problem where the text breaks."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.cli import streaming
from conformance.cli.streaming import StreamProblem, stream_values

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@pytest.fixture(params=[1, 3, 7, 64], ids=lambda n: f"buffer-{n}")
def small_buffer(request, monkeypatch):
    monkeypatch.setattr(streaming, "BUFFER_CHARS", request.param)
    return request.param


def _values(text: str) -> list[tuple[str, object, object]]:
    return list(stream_values(io.StringIO(text)))


@given(items=st.lists(JSON_VALUES, max_size=8), indent=st.sampled_from([None, 2]))
def test_the_items_of_an_array_come_one_by_one_as_the_whole_text_reader_reads_them(items, indent):
    for buffer in (1, 5, 64):
        streaming.BUFFER_CHARS = buffer
        try:
            found = _values(json.dumps(items, indent=indent))
        finally:
            streaming.BUFFER_CHARS = 1 << 20
        assert found == [("item", item, index) for index, item in enumerate(items)]


def test_ndjson_comes_line_by_line_and_a_broken_line_is_a_problem_of_that_line(small_buffer):
    text = '{"a": 1}\n\n{"b": 2}\n{"c": \n{"d": NaN}\n[4]\n'
    assert _values(text) == [
        ("line", {"a": 1}, 1),
        ("line", {"b": 2}, 3),
        ("problem", "invalid JSON: Expecting value", 4),
        ("problem", "invalid JSON: NaN is not a JSON number", 5),
        ("line", [4], 6),
    ]


def test_one_document_over_several_lines_is_one_value(small_buffer):
    document = {"resourceType": "Party", "name": {"text": "Zażółć"}, "n": [1, 2.5, None]}
    assert _values(json.dumps(document, indent=2, ensure_ascii=False)) == [("document", document, None)]


@pytest.mark.parametrize(
    ("text", "yielded", "named"),
    [
        ('[{"a": 1}, {"b": NaN}, {"c": 3}]', 1, "NaN"),
        ('[{"a": 1} {"b": 2}]', 1, "expected ','"),
        ('[{"a": 1}, {"a": 2, "a": 3}]', 1, "appears twice"),
        ("[1, 2", 2, "the end of the text"),
        ("[1] [2]", 1, "after the closing"),
    ],
    ids=["nan", "no-comma", "duplicate-member", "cut-short", "trailing-text"],
)
def test_an_array_stops_with_a_problem_where_it_breaks_after_what_came_before(small_buffer, text, yielded, named):
    found = []
    with pytest.raises(StreamProblem) as problem:
        for value in stream_values(io.StringIO(text)):
            found.append(value)
    assert len(found) == yielded and named in problem.value.message
