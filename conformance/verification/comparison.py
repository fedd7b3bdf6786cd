"""The statuses of a certification set against those re-derived from its traffic: one row a requirement, the
verdict, and the first difference in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Comparison", "StatusRow", "compare"]


@dataclass(frozen=True)
class StatusRow:
    requirement: str
    recorded: str
    rederived: str

    @property
    def matches(self) -> bool:
        return self.recorded == self.rederived


@dataclass(frozen=True)
class Comparison:
    rows: list[StatusRow]
    recorded_verdict: str
    rederived_verdict: str

    @property
    def matches(self) -> bool:
        return self.recorded_verdict == self.rederived_verdict and all(row.matches for row in self.rows)

    def first_difference(self) -> str | None:
        """The first requirement whose status differs (in the certification's order), else the verdict's
        difference, in one line; None when everything matches."""
        for row in self.rows:
            if not row.matches:
                return f"{row.requirement} is {row.recorded} in certification.json, {row.rederived} re-derived"
        if self.recorded_verdict != self.rederived_verdict:
            return f"the verdict is {self.recorded_verdict} in certification.json, {self.rederived_verdict} re-derived"
        return None


def compare(recorded: dict[str, Any], rederived: dict[str, Any]) -> Comparison:
    """Both are certification.json documents. A requirement one of them lacks counts as "absent" there."""
    before = _statuses(recorded)
    after = _statuses(rederived)
    order = list(before) + [key for key in after if key not in before]
    rows = [StatusRow(key, before.get(key, "absent"), after.get(key, "absent")) for key in order]
    return Comparison(rows, _verdict(recorded), _verdict(rederived))


def _statuses(document: dict[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in document.get("requirements") or []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            found[entry["id"]] = str(entry.get("status"))
    return found


def _verdict(document: dict[str, Any]) -> str:
    summary = document.get("summary")
    return str(summary.get("verdict")) if isinstance(summary, dict) else "absent"
