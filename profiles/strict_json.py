"""Strict JSON intake: one reader of untrusted JSON for the reference server, the report receiver and the CLI.

Python's json module accepts what RFC 8259 JSON does not, or what breaks a later step: NaN and Infinity; numbers
that overflow (1e999 becomes inf, served back as invalid JSON; an integer of thousands of digits fails at
conversion); lone surrogates (``"\\ud800"``, which no UTF-8 writer can encode); duplicate member names (the last
silently wins); nesting deep enough to overflow a serialiser on the way out. `loads` refuses each with a
`StrictJSONError` that says what is wrong and, where it can, where.

The limits, documented in docs/serve.md:

- nesting: at most `MAX_DEPTH` arrays and objects inside one another (a resource of the contract needs fewer
  than ten);
- numbers: at most `MAX_NUMBER_CHARS` characters; integers within +/- `MAX_INTEGER` (a signed 64-bit integer,
  SQLite's and every common consumer's); other numbers finite.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_INTEGER", "MAX_NUMBER_CHARS", "StrictJSONError", "decode_at", "loads"]

MAX_DEPTH = 64
MAX_INTEGER = 2**63 - 1
MAX_NUMBER_CHARS = 64
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class StrictJSONError(ValueError):
    """The text is not JSON this service reads. `message` names what is wrong; `line` and `column` (1-based) where,
    for a text that does not parse; `trailing`: a whole value followed by more text (several values, NDJSON)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, trailing: bool = False):
        super().__init__(message if line is None else f"{message} at line {line}, column {column}")
        self.message, self.line, self.column, self.trailing = message, line, column, trailing


def loads(data: str | bytes) -> Any:
    """The JSON value of `data` (UTF-8 bytes or text), or StrictJSONError."""
    if isinstance(data, bytes | bytearray):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise StrictJSONError(f"not UTF-8 text (byte {error.start})") from None
    try:
        value = _STRICT_DECODER.decode(data)
    except RecursionError:
        raise StrictJSONError(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as error:
        trailing = error.msg == "Extra data"
        raise StrictJSONError(error.msg, error.lineno, error.colno, trailing) from None
    return _checked(value, data)


def decode_at(text: str, start: int) -> tuple[Any, int]:
    """The JSON value beginning at `text[start]` (whitespace allowed before it) and the index after it, read as
    strictly as `loads`; json.JSONDecodeError when the text there is not (or not yet) a whole value, so that a
    streaming reader can tell a value cut at the end of its buffer from a broken one."""
    try:
        value, end = _STRICT_DECODER.raw_decode(text, _skip_space(text, start))
    except RecursionError:
        raise StrictJSONError(f"nested more than {MAX_DEPTH} levels deep") from None
    return _checked(value, text[start:end]), end


def _checked(value: Any, text: str) -> Any:
    """`value`, read from `text`, walked for depth and lone surrogates only where the text may need it (more
    brackets than the depth allowed, a surrogate escaped or raw): most documents have neither."""
    escaped = "\\u" in text and _ESCAPED_SURROGATE.search(text) is not None  # the alternation scan costs ~14 us/KB
    if text.count("[") + text.count("{") > MAX_DEPTH or escaped or _LONE_SURROGATE.search(text) is not None:
        _check_tree(value)
    return value


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise StrictJSONError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = int(text)
    if abs(value) > MAX_INTEGER:
        raise StrictJSONError(f"the integer {text} is outside +/-{MAX_INTEGER}")
    return value


def _number(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise StrictJSONError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise StrictJSONError(f"the number {text} is out of range")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise StrictJSONError(f"the member {name!r} appears twice in one object")
            seen.add(name)
    return found


def _at(where: str) -> str:
    return (where[:100] + "...") if len(where) > 100 else (where or "/")


def _check_tree(value: Any) -> None:
    """Depth and lone surrogates, without recursion: the parser's own recursion allows far deeper values."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        node, depth, where = stack.pop()
        if isinstance(node, str):
            if _LONE_SURROGATE.search(node):
                raise StrictJSONError(f"a lone UTF-16 surrogate in the string at {_at(where)}")
            continue
        if not isinstance(node, dict | list):
            continue
        if depth >= MAX_DEPTH:
            raise StrictJSONError(f"nested more than {MAX_DEPTH} levels deep (at {_at(where)})")
        if isinstance(node, dict):
            for name, member in node.items():
                if _LONE_SURROGATE.search(name):
                    raise StrictJSONError(f"a lone UTF-16 surrogate in a member name at {_at(where)}")
                stack.append((member, depth + 1, f"{where}/{name}"))
        else:
            stack.extend((item, depth + 1, f"{where}/{position}") for position, item in enumerate(node))


_STRICT_DECODER = json.JSONDecoder(
    parse_constant=_constant, parse_int=_integer, parse_float=_number, object_pairs_hook=_object
)
