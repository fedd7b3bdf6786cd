"""profiles.fast_json reads every text exactly as profiles.strict_json does: the same value (types included), or the
same refusal with the same message."""

from __future__ import annotations

import math

import pytest
from budgets import WIDE
from hypothesis import given
from hypothesis import strategies as st

from profiles import fast_json, strict_json

_NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["1e999", "-1e400", "1e-999", "0.1e1", "12345678901234567", "9223372036854775807",
                     "9223372036854775808", "-9223372036854775808", "1" * 70, "NaN", "Infinity", "-0", "01"]),
)  # fmt: skip
_STRING_BODIES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["\\ud800", "\\udc00x", "\\ud83d\\ude00", "\\u003a", "a:b", '\\"', "\\\\", "12:00:00",
                     "1234567890123456789", "\\n", "\u00e9\u0142"]),
)  # fmt: skip
_STRINGS = _STRING_BODIES.map(lambda body: '"' + body.replace("\n", "\\n") + '"')
_NAMES = st.sampled_from(['"a"', '"b"', '"resourceType"', '"a:b"', '"\\u0061"', '"x\\"y"'])
_SPACE = st.sampled_from(["", " ", "\n", "\t", "\r\n"])


def _texts() -> st.SearchStrategy[str]:
    scalars = st.one_of(_NUMBERS, _STRINGS, st.sampled_from(["true", "false", "null"]))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
            st.lists(st.tuples(_NAMES, _SPACE, inner), max_size=4).map(
                lambda members: "{" + ",".join(f"{name}{space}:{value}" for name, space, value in members) + "}"
            ),
        ),
        max_leaves=12,
    )


def _outcome(read, text):  # type: ignore[no-untyped-def]
    try:
        value = read(text)
    except strict_json.StrictJSONError as error:
        return ("refused", str(error))
    return ("read", _typed(value))


def _typed(value):  # type: ignore[no-untyped-def]
    """The value with the type of every scalar, so that 1 and 1.0 (equal in Python) differ."""
    if isinstance(value, dict):
        return {name: _typed(member) for name, member in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


@WIDE
@given(text=_texts(), before=_SPACE, after=_SPACE)
def test_generated_texts_are_read_as_strict_json_reads_them(text: str, before: str, after: str) -> None:
    whole = before + text + after
    assert _outcome(fast_json.loads, whole.encode("utf-8", "surrogatepass")) == _outcome(strict_json.loads, whole)
    assert _outcome(fast_json.loads, whole) == _outcome(strict_json.loads, whole)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"a":2}',
        '{"a":{"b":1,"b":1}}',
        '[{"x":"1:2","x":"3"}]',
        '{"a":"\\u003a","a":1}',
        '{"a":1,"a":"\\u003a"}',  # the escaped colon, read as a colon, must not make up for the dropped member
        '{"a":18446744073709551615}',
        '{"a":9223372036854775808}',
        '{"a":-9223372036854775809}',
        '{"a":1e999}',
        '{"a":NaN}',
        '{"a":"\\ud800"}',
        "[" * 70 + "]" * 70,
        '{"a":1} {"b":2}',
        "\ufeff{}",
        "",
        '{"a":' + "1" * 65 + "}",
    ],
)
def test_what_strict_json_refuses_fast_json_refuses_alike(text: str) -> None:
    assert _outcome(fast_json.loads, text.encode("utf-8", "surrogatepass")) == _outcome(strict_json.loads, text)
    assert _outcome(fast_json.loads, text)[0] == "refused"


def test_bytes_that_are_not_utf8_are_refused_as_strict_json_refuses_them() -> None:
    data = b'{"a":"\xff"}'
    assert _outcome(fast_json.loads, data) == _outcome(strict_json.loads, data)


def _lines_outcomes(lines: list[bytes]) -> list:  # type: ignore[type-arg]
    values, refused = fast_json.loads_lines(lines)
    assert refused == [index for index, value in enumerate(values) if isinstance(value, strict_json.StrictJSONError)]
    return [
        ("refused", str(value)) if index in refused else ("read", _typed(value)) for index, value in enumerate(values)
    ]


@WIDE
@given(texts=st.lists(st.tuples(_texts(), _SPACE, _SPACE), min_size=1, max_size=12))
def test_lines_read_together_are_read_as_each_alone(texts: list[tuple[str, str, str]]) -> None:
    """loads_lines checks all lines at once and looks closer only at the lines its checks point to: each line's
    outcome is still strict_json's (lines hold no newline: one in a text's spaces becomes a carriage return)."""
    lines = [
        (before + text + after).replace("\n", "\r").encode("utf-8", "surrogatepass") for text, before, after in texts
    ]
    assert _lines_outcomes(lines) == [_outcome(strict_json.loads, line) for line in lines]


_VALID = b'{"resourceType":"Party","id":"p-1","note":"12:00"}'


@pytest.mark.parametrize(
    "odd",
    [
        b'{"a":1,"a":2}',  # a member dropped: the colons of all lines no longer add up
        b'{"a":1,"a":"\\u003a"}',  # the escaped colon makes up for the dropped member: escapes go to strict_json
        b'{"a":' + b"1" * 65 + b"}",  # a long number: a run of digits outside a string
        b'{"a":"' + b"1" * 20 + b'","b":12345678901234567890}',  # a run in a string, and one outside
        b'{"a":"x\\"' + b"1" * 20 + b'"}',  # an escaped quote: the quotes before the run do not tell
        b'{"a":"\\"","b":12345678901234567890}',  # ... here they would say "in a string"
        b"[" * 70 + b"]" * 70,
        b"[" * 64 + b"]" * 64,  # as deep as strict_json reads
        b"[" * 65 + b"]" * 65,  # one level deeper
        b'{"a/":1,"a\\/":2}',  # a name twice, once escaped
        b'{"a":{"b":1},"b":{"b":2,"c":[{"b":3}]},"c":3}',  # the same names in different objects
        b"",
        b"   \r",
        b'{"a":',
        b'{"a":"\xff"}',
        b'{"a":"' + b"9" * 30 + b'"}',  # an account number: read by orjson, the same value
        b'{"a":9223372036854775808}',  # past 64 bits, as orjson writes it: strict_json refuses it
        b'{"l":[' + b'"\\"",' * 12 + b'0],"a":1,"a":"\\u003a"}',  # ... and after more escapes than are looked at
    ],
)
@pytest.mark.parametrize("where", [0, 1, 5, 16])
def test_an_odd_line_among_plain_ones_is_read_as_alone_and_leaves_the_others_alone(odd: bytes, where: int) -> None:
    lines = [_VALID] * 17
    lines[where] = odd
    assert _lines_outcomes(lines) == [_outcome(strict_json.loads, line) for line in lines]


_PAGE = b'{"items": [' + b",".join([b'{"a": [{"b": {"c": [1, "]x["]}}], "d": "\\"["}'] * 20) + b"]}"


@pytest.mark.parametrize(
    "text",
    [
        _PAGE,  # a page of items: hundreds of brackets, a few levels deep
        _PAGE.replace(b'\\"[', b"["),  # ... and no escaped quote
        b"[" * 64 + b"]" * 64,
        b"[" * 65 + b"]" * 65,
        b'{"a":' * 64 + b"1" + b"}" * 64,
        b'{"a":' * 65 + b"1" + b"}" * 65,
        # brackets in strings that would make a text too deep look shallow, if they were counted
        b'["]", ' + b"[" * 64 + b"]" * 64 + b', "["]',
        b'["\\"]", ' + b"[" * 64 + b"]" * 64 + b', "\\"["]',
        b'["}{", ' + b"{" * 0 + b"[" * 64 + b"]" * 64 + b"]",
    ],
)
def test_a_text_with_many_brackets_is_read_as_deep_as_it_is(text: bytes) -> None:
    assert _outcome(fast_json.loads, text) == _outcome(strict_json.loads, text)


def test_lines_written_otherwise_than_orjson_writes_them_are_checked_by_their_colons() -> None:
    spaced = [b'{"a": 1, "b": {"c": "d:e"}}', b'{"a": 1, "a": 2}', b'{"x" : "y"}']
    assert _lines_outcomes(spaced) == [_outcome(strict_json.loads, line) for line in spaced]
    assert _lines_outcomes(spaced)[1][0] == "refused"
