"""Failed requirements grouped by their first cause: one defect of a target often fails more than the
requirement it breaks (a 500 on every write, an envelope every read lacks). Failures whose first message says
the same thing once the particulars are taken out (the address and port, the request, ids, numbers, quoted
values) are one cause; the group is led by the first of its requirements in the catalogue's order."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Cause", "causes_of", "group_by_cause", "signature"]

_EXCEPTION = re.compile(r"^(?:[A-Za-z_.]*(?:Error|Failed|Exception)): ")
_REQUEST = re.compile(r"\b(?:GET|POST|PATCH|PUT|DELETE|HEAD|OPTIONS) (?:https?://[^/\s]+)?(/[^\s?:]*)(?:\?\S*)?")
_URL = re.compile(r"https?://\S+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_MORE = re.compile(r"\s*\(and \d+ more findings?\)")
_NUMBER = re.compile(r"\d+")
_REQUIREMENT_PREFIX = re.compile(r"^ERIS-[A-Z]+(?:-[A-Z])?-\d+: ")


@dataclass
class Cause:
    lead: str
    """The requirement the group is reported under: the first of them in the catalogue."""
    message: str
    requirements: list[str] = field(default_factory=list)
    """Every requirement failed by this cause, the lead first."""


def signature(message: str) -> str:
    """What a failure message says, without its particulars: two requirements failed with the same signature
    failed for one cause."""
    line = (message.strip().splitlines() or [""])[0]
    line = _REQUIREMENT_PREFIX.sub("", _EXCEPTION.sub("", line))
    line = _MORE.sub("", line)
    line = _REQUEST.sub(lambda m: f"<request {_NUMBER.sub('#', m[1])}>", line)
    line = _URL.sub("<url>", line)
    line = _QUOTED.sub("'…'", line)
    return re.sub(r"\s+", " ", _NUMBER.sub("#", line)).strip()


def causes_of(certification: Any) -> list[Cause]:
    """The failed requirements of a Certification, grouped by their first cause."""
    return group_by_cause((r.requirement.id, r.message) for r in certification.requirements if r.status == "failed")


def group_by_cause(failures: Iterable[tuple[str, str]]) -> list[Cause]:
    """`failures`: (requirement id, first failure message), in the catalogue's order. Causes in the order of
    their leads."""
    causes: dict[str, Cause] = {}
    for requirement_id, message in failures:
        key = signature(message)
        cause = causes.get(key)
        if cause is None:
            causes[key] = Cause(requirement_id, message, [requirement_id])
        else:
            cause.requirements.append(requirement_id)
    return list(causes.values())
