"""The strict JSON intake (profiles.strict_json) at orjson's speed, for validating millions of payloads.

orjson parses a payload several times faster than the json module with the hooks strict_json needs, but it is not as
strict: the last of two members of the same name silently wins, integers beyond 64 bits become floats, numbers may be
of any length, nesting goes to 1024 levels. `loads` takes orjson's value only where none of these can have happened,
and hands every other text to strict_json, which decides (and explains a refusal) as it always has. So the value, and
every refusal with its message, are strict_json's own: tests/profiles/test_fast_json.py holds that on generated texts.
"""

from __future__ import annotations

from typing import Any

import orjson

from profiles import strict_json

__all__ = ["loads"]

_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 16
"""A number that may be too long or too large for strict_json: any text of more than 64 number characters has a run of
at least 16 digits (at most four signs, points and exponent marks split it), as has every integer beyond +/- (2**63 -
1). (A regular expression found the run eight times slower.) A string holding such a run (a bank account) is read by
strict_json: slower, the same value."""


def loads(data: bytes | str) -> Any:
    """The JSON value of `data` (UTF-8 bytes or text), or strict_json.StrictJSONError, exactly as
    strict_json.loads."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if (
        b"\\u" in raw
        or raw.count(b"[") + raw.count(b"{") > strict_json.MAX_DEPTH
        or _LONG_DIGITS in raw.translate(_DIGITS_AS_ZERO)
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
