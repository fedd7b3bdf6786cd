"""Dates as the target serves them, in whatever ISO 8601 form its items show: a date (2025-01-08), a dateTime with Z
or an offset, with or without seconds and fractions, in the extended or the basic form. The suite sends a date
filter in the form the items show, and compares dates as dates, never as text: 2025-01-08T23:30:00-02:00 is on
8 January, though the same instant in UTC is the 9th."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

__all__ = ["calendar_day", "dated_strings", "form_of", "one_of_each_form", "shifted"]

_LEADING_DATE = re.compile(r"(?P<year>[0-9]{4})(?P<sep>-?)(?P<month>[0-9]{2})(?P=sep)(?P<day>[0-9]{2})")
_TIME = r"T[0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2}(?P<fraction>[.,][0-9]+)?)?)?(?P<zone>Z|[+-][0-9]{2}(?::?[0-9]{2})?)?"
_ISO_8601 = re.compile(r"[0-9]{4}(?P<sep>-?)[0-9]{2}(?P=sep)[0-9]{2}(?:" + _TIME + ")?")
_DATE_NAMES = ("date", "updated", "modified", "time")
_EXTENDED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:" + _TIME + ")?")


def calendar_day(text: Any) -> date | None:
    """The calendar date written in an ISO 8601 date or dateTime (a dateTime's own date, in its own offset); None
    for anything else, a date that does not exist (2025-02-30) included."""
    if not isinstance(text, str) or _ISO_8601.fullmatch(text) is None:
        return None
    try:
        # the date first: fromisoformat of a dateTime checks the time as well, which then must be valid too
        day = datetime.fromisoformat(text).date() if "T" in text else date.fromisoformat(text)
    except ValueError:
        return None
    return day


def form_of(text: str) -> str:
    """The ISO 8601 form of a served date, in words: values of one form are interchangeable for a filter, values of
    two forms are not (a target may read one and refuse the other)."""
    match = _ISO_8601.fullmatch(text)
    if match is None:
        return "not ISO 8601"
    layout = "extended" if match["sep"] else "basic"
    if "T" not in text:
        return f"date ({layout})"
    zone = match["zone"]
    zone_form = "no zone" if zone is None else "Z" if zone == "Z" else "offset"
    fraction = ", fractions" if match["fraction"] else ""
    return f"dateTime ({layout}, {zone_form}{fraction})"


def shifted(text: str, days: int) -> str:
    """`text` moved `days` days on, in its own form: only the date part changes, so that a dateTime keeps its time,
    its offset and its fractions, and a date stays a date."""
    match = _LEADING_DATE.match(text)
    if match is None or calendar_day(text) is None:
        raise ValueError(f"{text!r} is not an ISO 8601 date or dateTime")
    day = date(int(match["year"]), int(match["month"]), int(match["day"])) + timedelta(days=days)
    separator = match["sep"]
    return f"{day.year:04d}{separator}{day.month:02d}{separator}{day.day:02d}" + text[match.end() :]


def dated_strings(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(JSON path, text) of every string in `node` written as an ISO 8601 date or dateTime: the dates an item
    carries wherever it carries them. The basic form (20250108) only under a name that says date or time: as bare
    digits elsewhere it cannot be told from a number that is no date."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from dated_strings(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for value in node:
            yield from dated_strings(value, path)
    elif isinstance(node, str) and calendar_day(node) is not None:
        named = any(word in path.rsplit(".", 1)[-1].lower() for word in _DATE_NAMES)
        if named or _EXTENDED.fullmatch(node):
            yield path, node


def one_of_each_form(values: list[str], limit: int = 3) -> list[str]:
    """The first value of each ISO 8601 form among `values`, at most `limit` of them: each form the target
    serves is sent once."""
    chosen: dict[str, str] = {}
    for value in values:
        if calendar_day(value) is not None:
            chosen.setdefault(form_of(value), value)
    return list(chosen.values())[:limit]
