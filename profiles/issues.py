"""Validation issues: what the validator reports instead of raising."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding: a stable rule code, where in the payload (JSON Pointer), and what to do."""

    severity: Severity
    code: str
    location: str
    message: str
    requirement: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __reduce__(self) -> tuple[type[Issue], tuple[Any, ...]]:
        # pickled by its fields: a frozen dataclass's default state is restored field by field through fields(),
        # which cost `eris validate --jobs` a quarter of its command's CPU while it took the workers' results
        return Issue, (self.severity, self.code, self.location, self.message, self.requirement)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "severity": self.severity.value,
            "code": self.code,
            "location": self.location,
            "message": self.message,
        }
        if self.requirement:
            data["requirement"] = self.requirement
        return data


def pointer(parent: str, token: str | int) -> str:
    """Extend a JSON Pointer by one reference token (RFC 6901 escaping)."""
    if isinstance(token, int):
        return f"{parent}/{token}"
    return f"{parent}/{token.replace('~', '~0').replace('/', '~1')}"
