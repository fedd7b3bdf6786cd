"""Strategies for the primitive values of the schemas: the string formats of
`Primitives.schema.json` (each draw checked against its pattern), short texts, tokens, member names
and free JSON values."""

from __future__ import annotations

import base64
import operator
import re
import string
from functools import cache
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.schema_index import schema_index
from profiles.installation import INSTALLATION_OID_ARC

# Short values keep payloads readable in a failure report; the contract sets no length limits.
MAX_TEXT = 16
MAX_ITEMS = 2

_TEXT_CHARACTERS = st.characters(codec="utf-8", exclude_categories=["Cs"])
_ALPHANUMERIC = string.ascii_letters + string.digits


def texts(*, min_size: int = 0) -> st.SearchStrategy[str]:
    """Any Unicode text a JSON string can hold, short."""
    return st.text(_TEXT_CHARACTERS, min_size=min_size, max_size=MAX_TEXT)


def _word(first: str, rest: str, max_size: int) -> st.SearchStrategy[str]:
    return st.builds(operator.add, st.sampled_from(first), st.text(rest, max_size=max_size - 1))


def tokens() -> st.SearchStrategy[str]:
    """A non-empty printable token without spaces or colons, for codes and identifier values."""
    return _word(_ALPHANUMERIC, _ALPHANUMERIC + "._-", 12)


def member_names() -> st.SearchStrategy[str]:
    """Names for members the contract leaves open ("not shown")."""
    return _word(string.ascii_lowercase, _ALPHANUMERIC, 12)


def _uri_text() -> st.SearchStrategy[str]:
    scheme = _word(string.ascii_letters, string.ascii_letters + string.digits + "+.-", 8)
    rest = st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=16
    )
    web = st.builds("https://{}.example/{}".format, tokens(), tokens())
    return st.one_of(web, st.builds("{}:{}".format, scheme, rest))


def _date_time_text() -> st.SearchStrategy[str]:
    offsets = st.sampled_from(["Z", "+00:00", "+01:00", "-05:30", "+14:00"])
    forms = st.sampled_from(["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f"])
    return st.builds(lambda moment, form, offset: moment.strftime(form) + offset, st.datetimes(), forms, offsets)


_FAST = {
    "date": lambda: st.dates().map(lambda day: day.isoformat()),
    "dateTime": _date_time_text,
    "uri": _uri_text,
    "base64": lambda: base64_data(),
}
"""Quicker ways than the pattern itself to draw the primitives; what they draw is still filtered by the
schema's pattern, so the schema stays the judge (and a pattern change they miss shows as a failing draw)."""


@cache
def primitive(name: str) -> st.SearchStrategy[str]:
    """Strings matching the pattern of `Primitives.schema.json#/$defs/<name>` (date, dateTime, uri, base64)."""
    pattern = schema_index().documents["Primitives"]["$defs"][name]["pattern"]
    fast = _FAST.get(name)
    if fast is None:
        return st.from_regex(pattern, fullmatch=True)
    return fast().filter(re.compile(pattern).fullmatch)


def uris() -> st.SearchStrategy[str]:
    """Absolute URIs outside the installation arc, so that no installation-namespace rule applies to them."""
    return primitive("uri").filter(lambda uri: not uri.startswith(INSTALLATION_OID_ARC))


def base64_data(*, min_bytes: int = 0) -> st.SearchStrategy[str]:
    """Standard base64 of some bytes (the `base64` primitive, drawn as real encoded content)."""
    return st.binary(min_size=min_bytes, max_size=24).map(lambda raw: base64.b64encode(raw).decode("ascii"))


def json_values(*, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any small JSON value: what the contract allows where it does not show the structure."""
    scalars = (
        st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    )
    return st.recursive(
        scalars | texts(),
        lambda children: (
            st.lists(children, max_size=MAX_ITEMS) | st.dictionaries(member_names(), children, max_size=MAX_ITEMS)
        ),
        max_leaves=max_leaves,
    )
