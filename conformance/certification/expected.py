"""The expected-failures file: requirements a vendor knows to fail, each with a reason and perhaps an expiry.

One entry a line, `#` lines and blank lines ignored:

    ERIS-READ-002: count is capped at 50 on /v1/locations (ticket ERP-1234) (until 2027-03-31)

An entry names a requirement of the catalogue, never a test: tests move and are renamed between versions of the
suite, requirements keep their ids. After `until` the entry no longer excuses the failure (it is reported as
expired), so a known failure cannot be forgotten in the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

__all__ = ["ExpectedFailure", "ExpectedFailures"]

_ENTRY = re.compile(
    r"(?P<id>ERIS-[A-Z0-9]+(?:-[A-Z0-9]+)*-[0-9]{3})(?:\s*:\s*(?P<reason>.*?))?\s*(?:\(until (?P<until>[^)]*)\))?\s*"
)
_FORM = "one requirement a line, as `ERIS-XXX-NNN: reason` with an optional `(until YYYY-MM-DD)` at the end"


@dataclass(frozen=True)
class ExpectedFailure:
    requirement_id: str
    reason: str
    until: date | None = None
    line: int = 0

    def expired(self, today: date) -> bool:
        return self.until is not None and today > self.until


@dataclass(frozen=True)
class ExpectedFailures:
    """The entries of one file, judged on `today` (an expired entry excuses nothing)."""

    entries: tuple[ExpectedFailure, ...] = ()
    today: date | None = None

    @classmethod
    def parse(cls, text: str, source: str = "expected failures", today: date | None = None) -> ExpectedFailures:
        """ValueError naming the line for anything but an entry of the form above (a test node id included)."""
        entries: dict[str, ExpectedFailure] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            match = _ENTRY.fullmatch(stripped)
            if match is None:
                hint = " (expected failures name requirements, not tests)" if "::" in stripped else ""
                raise ValueError(f"{source}:{number}: {_FORM}{hint}, not {stripped!r}")
            requirement_id, reason = match["id"], match["reason"] or ""
            if not reason:
                raise ValueError(f"{source}:{number}: give the reason {requirement_id} is expected to fail: {_FORM}")
            if requirement_id in entries:
                raise ValueError(
                    f"{source}:{number}: {requirement_id} is listed twice (first on line "
                    f"{entries[requirement_id].line})"
                )
            until = None
            if match["until"] is not None:
                try:
                    until = date.fromisoformat(match["until"].strip())
                except ValueError:
                    raise ValueError(
                        f"{source}:{number}: `until` takes a date YYYY-MM-DD, not {match['until'].strip()!r}"
                    ) from None
            entries[requirement_id] = ExpectedFailure(requirement_id, reason, until, number)
        return cls(tuple(entries.values()), today)

    @classmethod
    def read(cls, path: Path | str, today: date | None = None) -> ExpectedFailures:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"cannot read the expected failures {path}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: the expected failures file is not UTF-8 text") from None
        return cls.parse(text, str(path), today)

    @property
    def ids(self) -> tuple[str, ...]:
        """Every listed requirement id, expired entries included."""
        return tuple(entry.requirement_id for entry in self.entries)

    def entry(self, requirement_id: str) -> ExpectedFailure | None:
        return next((e for e in self.entries if e.requirement_id == requirement_id), None)

    @property
    def expired(self) -> list[ExpectedFailure]:
        today = self.today or date.today()
        return [entry for entry in self.entries if entry.expired(today)]

    def covers(self, requirement_id: str) -> bool:
        """Whether a failure of `requirement_id` is excused: listed, and not expired."""
        entry = self.entry(requirement_id)
        return entry is not None and not entry.expired(self.today or date.today())
