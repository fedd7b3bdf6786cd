"""The strict JSON intake (profiles.strict_json) at orjson's speed, for validating millions of payloads.

orjson parses a payload several times faster than the json module with the hooks strict_json needs, but it is not as
strict: the last of two members of the same name silently wins, integers beyond 64 bits become floats, numbers may be
of any length, nesting goes to 1024 levels. `loads` takes orjson's value only where none of these can have happened,
and hands every other text to strict_json, which decides (and explains a refusal) as it always has. So the value, and
every refusal with its message, are strict_json's own: tests/profiles/test_fast_json.py holds that on generated texts.

`loads_lines` does the same for many lines at once (NDJSON): its checks look at the whole text in a few passes and
name the few lines that need a closer look, instead of passing over every line several times.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Any

import orjson

from profiles import strict_json

__all__ = ["loads", "loads_lines"]

_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 16
"""A number that may be too long or too large for strict_json: any text of more than 64 number characters has a run of
at least 16 digits (at most three runs of digits, split by a point and an exponent mark), as has every integer beyond
+/- (2**63 - 1). (A regular expression found the run eight times slower.) A string holding such a run (a bank
account) is read by strict_json: slower, the same value."""
_NOT_OPENING = bytes(range(256)).translate(None, b"[{\n")
"""Every byte but the opening brackets and the newline: deleting them leaves each line's brackets, still a line."""


def loads(data: bytes | str) -> Any:
    """The JSON value of `data` (UTF-8 bytes or text), or strict_json.StrictJSONError, exactly as
    strict_json.loads."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if (
        b"\\u" in raw
        or (raw.count(b"[") + raw.count(b"{") > strict_json.MAX_DEPTH and not _nested_within_limit(raw))
        or (_LONG_DIGITS in raw.translate(_DIGITS_AS_ZERO) and not _long_runs_in_strings_only(raw))
    ):
        # escapes may hide a lone surrogate or a colon (which the duplicate test below counts); deep or long
        # texts need strict_json's walk and limits
        return strict_json.loads(data)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return strict_json.loads(data)  # refuses it, with its own message
    if (isinstance(value, dict | list)) and orjson.dumps(value).count(b":") != raw.count(b":"):
        # a colon of the text is missing from the value: a member dropped as the duplicate of another (a colon
        # in a string is written back as it was read, and no escape hides one: there is none)
        return strict_json.loads(data)
    return value


def _nested_within_limit(raw: bytes) -> bool:
    """Whether no value of a text with more brackets than strict_json's depth is nested deeper than it reads (a page of
    twenty resources has hundreds of brackets and is seven levels deep): its strings dropped, its brackets taken as
    one kind, each pass that drops the innermost pairs takes one level away. A text that is no JSON may come out
    either way: orjson refuses it then, and strict_json explains."""
    # without an escaped quote, every other quote opens a string: a split drops them all at once (the expression of
    # a string, a match at a time, cost a page 0.2 ms)
    outside = b"".join(raw.split(b'"')[::2]) if b'\\"' not in raw else _STRING.sub(b"", raw)
    brackets = outside.translate(_ONE_KIND, _NOT_BRACKET)
    for _ in range(strict_json.MAX_DEPTH):
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return True
    return False


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET = bytes(range(256)).translate(None, b"[]{}")


def loads_lines(lines: list[bytes]) -> tuple[list[Any], list[int]]:
    """`loads` of each of `lines` (UTF-8 bytes, no b"\\n" in any), and the indices of the lines it refuses, in order:
    their item is the strict_json.StrictJSONError that `loads` raises.

    A few dozen lines at a time: their values stay in the processor's cache until they are checked and dropped
    (a thousand lines' values, ten megabytes of objects, took half as long again to make)."""
    whole = b"\n".join(lines)
    doubtful = _escaped_or_deep_lines(whole, lines)
    values = None if doubtful else _orjson_all(lines)
    later: list[int] = []
    if values is None:  # a line for strict_json, or one orjson refuses (a blank one): each on its own
        values = [_REFUSED if index in doubtful else _orjson_or_refused(line) for index, line in enumerate(lines)]
        later = [index for index, value in enumerate(values) if value is _REFUSED]
    later += _long_numbers_or_members_dropped(whole, lines, values, later)
    refused = []
    for index in sorted(later):  # strict_json decides, and explains
        try:
            values[index] = strict_json.loads(lines[index])
        except strict_json.StrictJSONError as error:
            values[index] = error
            refused.append(index)
    return values, refused


class _Refused:
    """The place of a line that strict_json reads (None would not do: it is JSON's null)."""


_REFUSED = _Refused()


def _orjson_all(lines: list[bytes]) -> list[Any] | None:
    try:
        return list(map(orjson.loads, lines))
    except orjson.JSONDecodeError:
        return None


def _orjson_or_refused(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return _REFUSED


def _long_numbers_or_members_dropped(
    whole: bytes, lines: list[bytes], values: list[Any], later: list[int]
) -> list[int]:
    """The lines (but those of `later`) with a long number or a member dropped, found without the scan: their values
    are set aside for strict_json."""
    written = None if later else _written_back(values)
    if written is not None and written == b"[" + whole.replace(b"\n", b",") + b"]":
        return []  # the text orjson writes for these values: no long number, no member dropped
    long_numbers = _long_number_lines(whole, lines).difference(later)
    for index in long_numbers:
        values[index] = _REFUSED
    skipped = [*later, *long_numbers]
    return [*long_numbers, *_members_dropped(whole, lines, values, skipped, written)]


def _written_back(values: list[Any]) -> bytes | None:
    """The values as orjson writes them, None where one holds an integer beyond 2**53 (one strict_json may refuse,
    past 64 bits: the text decides)."""
    try:
        return orjson.dumps(values, option=orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return None


def _escaped_or_deep_lines(whole: bytes, lines: list[bytes]) -> set[int]:
    """The lines `loads` gives to strict_json before trying orjson (\\u escapes, more than MAX_DEPTH opening brackets):
    each test passes over the whole text once, and over a line only when the text holds what it looks for.

    Numbers are looked at after orjson: a text that is exactly what orjson writes for its values (compact NDJSON, the
    common case) has no number strict_json would read otherwise, since orjson writes no integer beyond 2**53 here
    (_written_back) and no float of more than 24 characters. Only other texts are searched for long numbers."""
    doubtful: set[int] = set()
    if _has_unicode_escape(whole):
        doubtful.update(index for index, line in enumerate(lines) if b"\\u" in line)
    brackets = whole.translate(None, _NOT_OPENING)  # each line's opening brackets, a line each
    if len(brackets) - len(lines) >= strict_json.MAX_DEPTH:
        depths = brackets.split(b"\n")
        doubtful.update(index for index, opened in enumerate(depths) if len(opened) > strict_json.MAX_DEPTH)
    return doubtful


_BACKSLASHES_LOOKED_AT = 8


def _has_unicode_escape(whole: bytes) -> bool:
    """Whether b"\\u" is in `whole`: a few backslashes (escaped quotes) are each looked at, which costs less than a
    search for two bytes through the whole text."""
    at = whole.find(b"\\")
    for _ in range(_BACKSLASHES_LOOKED_AT):
        if at < 0:
            return False
        if whole[at + 1 : at + 2] == b"u":
            return True
        at = whole.find(b"\\", at + 1)
    return at >= 0 and b"\\u" in whole[at:]


def _long_number_lines(whole: bytes, lines: list[bytes]) -> set[int]:
    """The lines with a run of 16 digits outside a string: strict_json reads them (a number too long or too large)."""
    doubtful: set[int] = set()
    digits = whole.translate(_DIGITS_AS_ZERO)
    found = digits.find(_LONG_DIGITS)
    if found >= 0:
        ends = list(accumulate(len(line) + 1 for line in lines))  # where the line after each begins
        while found >= 0:
            index = bisect_right(ends, found)
            if not _long_runs_in_strings_only(lines[index]):
                doubtful.add(index)
            found = digits.find(_LONG_DIGITS, ends[index])
    return doubtful


def _long_runs_in_strings_only(raw: bytes) -> bool:
    """Whether every run of 16 digits of `raw` is inside a string (an account number), so that no number is long:
    told by the count of quotes before each run, which only a text without a backslash (no escaped quote) allows.
    (Said of a text that is JSON; any other is refused by orjson and goes to strict_json all the same.)"""
    if b"\\" in raw:
        return False
    digits = raw.translate(_DIGITS_AS_ZERO)
    found = digits.find(_LONG_DIGITS)
    while found >= 0:
        if raw.count(b'"', 0, found) % 2 == 0:
            return False
        found = digits.find(_LONG_DIGITS, found + len(_LONG_DIGITS))
    return True


def _members_dropped(
    whole: bytes, lines: list[bytes], values: list[Any], later: list[int], written: bytes | None = None
) -> list[int]:
    """The lines (but those of `later`) whose value has fewer members than their text: a member dropped as the
    duplicate of another. As in `loads`, by the colons, here of all lines at once: a value written back has no colon
    more than its text, so equal sums mean equal counts line by line. `written`: all the values as orjson writes
    them, when known (used only when no line is skipped)."""
    skip = set(later)
    read = [value for index, value in enumerate(values) if index not in skip] if skip else values
    if written is None or skip:
        written = orjson.dumps(read)
    colons = whole.count(b":") - sum(lines[index].count(b":") for index in skip)
    if written.count(b":") == colons:
        return []
    return [
        index
        for index, (line, value) in enumerate(zip(lines, values, strict=True))
        if index not in skip and orjson.dumps(value).count(b":") != line.count(b":")
    ]
