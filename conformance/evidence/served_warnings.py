"""The warnings the validator finds on what a target serves, tallied: each distinct warning (its code, the served item
and the location in it) is kept once with the number of times it was met, and the list is bounded.

A warning never changes a status or the verdict (the contract fixes no check digit of served registry numbers, for
example, and `eris validate` warns of a wrong one): the certification lists them so that a vendor sees dirty data.
A test tallies what its reads met (conformance.evidence.outcomes.Findings); its report carries the tally as plain data
to the controller under pytest-xdist, where the certification adds up the tallies of every test (`Tally.take`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LISTED", "ServedWarning", "Tally"]

LISTED = 200
"""Distinct warnings listed; the rest are only counted: a register full of typos must not bury the report."""


@dataclass
class ServedWarning:
    code: str
    message: str
    location: str
    """A JSON Pointer into the served item ("" for its root)."""
    item: str
    """The served item: its resource type and id (or url), else where it was served."""
    where: str
    """The request that served it first, and the item's place in the answer."""
    count: int = 1
    """How many times the run met it: a run reads the same item many times."""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.code, self.item, self.location)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "location": self.location,
            "item": self.item,
            "where": self.where,
            "count": self.count,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServedWarning:
        return cls(data["code"], data["message"], data["location"], data["item"], data["where"], data["count"])


class Tally:
    """Distinct warnings in the order first met, the first `listed` kept whole; of the rest only their number."""

    def __init__(self, listed: int = LISTED) -> None:
        self.listed = listed
        self._kept: dict[tuple[str, str, str], ServedWarning] = {}
        self._unlisted: set[tuple[str, str, str]] = set()
        self._unlisted_elsewhere = 0
        """Warnings past another tally's bound, whose keys are not known here: they may repeat some of ours."""

    def add(self, warning: ServedWarning) -> None:
        kept = self._kept.get(warning.key)
        if kept is not None:
            kept.count += warning.count
        elif len(self._kept) < self.listed:
            self._kept[warning.key] = ServedWarning(**vars(warning))
        else:
            self._unlisted.add(warning.key)

    @property
    def warnings(self) -> list[ServedWarning]:
        """The listed warnings by code, item and location: the same data list alike whatever order tests ran in."""
        return sorted(self._kept.values(), key=lambda warning: warning.key)

    @property
    def unlisted(self) -> int:
        """Distinct warnings met but not listed (an upper bound once tallies of several tests are added up)."""
        return len(self._unlisted) + self._unlisted_elsewhere

    def to_json(self) -> dict[str, Any]:
        """Plain data, for a test report's user_properties (pytest-xdist carries them between processes)."""
        return {"listed": [w.to_json() for w in self._kept.values()], "unlisted": self.unlisted}

    def take(self, data: dict[str, Any]) -> None:
        """Add up the tally `to_json` made (of one test)."""
        for each in data.get("listed", []):
            self.add(ServedWarning.from_json(each))
        self._unlisted_elsewhere += int(data.get("unlisted", 0))
