"""profiles.fast_json reads every text exactly as profiles.strict_json does: the same value (types included), or the
same refusal with the same message."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
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


@settings(max_examples=1500, deadline=None)
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
