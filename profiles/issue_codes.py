"""The registry of issue codes (profiles/issue-codes.json): every code the validator can report, with
its severity and the requirement it enforces.

Rule functions, the structure pass and profile recognition say only what is wrong (a code, a
location, a message); the registry alone decides how severe it is and which requirement of the
catalogue it belongs to. A code shared by many rule rows (required-element-missing, the bindings)
enforces whatever sentence its row cites: its entry says where the requirement comes from
(`requirementOf`) instead of naming one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from profiles.issues import Issue, Severity

ISSUE_CODES_FILE = Path(__file__).parent / "issue-codes.json"
REQUIREMENT_SOURCES = ("rule", "resource", "profile", "recognition")
"""Where a code's requirement can come from: the rule row that reports it, the resource type (its
schema), the profile concerned, or the resource type's profile recognition (else the profile)."""


@dataclass(frozen=True)
class IssueCode:
    code: str
    severity: Severity
    summary: str
    emitted_by: tuple[str, ...]
    """"rule:<name>" for a rule function, or "structure", "recognition", "validator", "rule_plans" (the module that
    reports it)."""
    requirement: str | None = None
    requirement_of: str | None = None
    """One of REQUIREMENT_SOURCES when the requirement depends on where the code is reported."""
    severity_when: Mapping[str, Severity] = field(default_factory=dict)
    """A rule row parameter that, when set, gives the code another severity (mustBeInstallation)."""
    strict_severity: Severity | None = None
    """The severity under --strict: a form the contract leaves open but the reference implementation
    does not take (information by default) becomes an error."""

    def severity_for(self, rule: Mapping[str, Any] | None) -> Severity:
        if rule is not None:
            for parameter, severity in self.severity_when.items():
                if rule.get(parameter):
                    return severity
        return self.severity

    def requirement_for(self, sources: Mapping[str, str | None]) -> str | None:
        if self.requirement_of is None:
            return self.requirement
        return sources.get(self.requirement_of)


class IssueCodes(Mapping[str, IssueCode]):
    """The registry: code -> IssueCode, and the one way issues are made."""

    def __init__(self, codes: Mapping[str, IssueCode]) -> None:
        self._codes = dict(codes)

    def strict(self) -> IssueCodes:
        """The registry under --strict: each code with a strict severity takes it."""
        return IssueCodes(
            {
                code: entry if entry.strict_severity is None else replace(entry, severity=entry.strict_severity)
                for code, entry in self._codes.items()
            }
        )

    def __getitem__(self, code: str) -> IssueCode:
        return self._codes[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._codes)

    def __len__(self) -> int:
        return len(self._codes)

    def issue(
        self,
        code: str,
        location: str,
        message: str,
        *,
        rule: Mapping[str, Any] | None = None,
        **sources: str | None,
    ) -> Issue:
        """The issue `code` at `location`. `rule` is the rule row that found it; `sources` are the
        requirements it may take (rule=, resource=, profile=, recognition=; see REQUIREMENT_SOURCES)."""
        entry = self._codes.get(code)
        # a code missing from the registry must not hide the finding (tests/profiles/test_issue_codes.py)
        if entry is None:
            return Issue(Severity.ERROR, code, location, message, sources.get("rule"))
        if rule is not None and "rule" not in sources:
            sources["rule"] = rule.get("requirement")
        return Issue(entry.severity_for(rule), code, location, message, entry.requirement_for(sources))


def _entry(row: Mapping[str, Any]) -> IssueCode:
    has_requirement, has_source = "requirement" in row, "requirementOf" in row
    if has_requirement == has_source:
        raise ValueError(f"issue code {row['code']}: give either requirement or requirementOf")
    if has_source and row["requirementOf"] not in REQUIREMENT_SOURCES:
        raise ValueError(f"issue code {row['code']}: requirementOf must be one of {REQUIREMENT_SOURCES}")
    return IssueCode(
        code=row["code"],
        severity=Severity(row["severity"]),
        summary=row["summary"],
        emitted_by=tuple(row["emittedBy"]),
        requirement=row.get("requirement"),
        requirement_of=row.get("requirementOf"),
        severity_when={name: Severity(value) for name, value in row.get("severityWhen", {}).items()},
        strict_severity=Severity(row["strictSeverity"]) if "strictSeverity" in row else None,
    )


def read_issue_codes(path: Path = ISSUE_CODES_FILE) -> IssueCodes:
    """The registry of `path`; ValueError when a code is listed twice or an entry is malformed."""
    rows = json.loads(path.read_text(encoding="utf-8"))["codes"]
    codes: dict[str, IssueCode] = {}
    for row in rows:
        if row["code"] in codes:
            raise ValueError(f"issue code {row['code']} is listed twice in {path.name}")
        codes[row["code"]] = _entry(row)
    return IssueCodes(codes)


@cache
def standard_issue_codes(strict: bool = False) -> IssueCodes:
    """The registry shipped with the contract data, read once (it is immutable); `strict`: under --strict."""
    codes = read_issue_codes()
    return codes.strict() if strict else codes
