"""The loader of the language-neutral validator cases of tests/cases (format: tests/cases/README.md), kept apart
from the tests that use it (tests/profiles/: test_cases.py, test_engine_agreement.py, test_fast_path.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from project_paths import CASES_DIR

from profiles import load_installation

__all__ = ["CaseTest", "load_case_files", "load_tests"]


@dataclass(frozen=True)
class CaseTest:
    """One test of one case file (`case` is the whole file), its data filled in for the installation."""

    file: str
    case: Mapping[str, Any]
    test: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}:{self.test['description']}"

    @property
    def data(self) -> Any:
        return self.test["data"]

    @property
    def resource_type(self) -> str | None:
        """The type the payload is validated as: its own resourceType, else the file's."""
        own = self.data.get("resourceType") if isinstance(self.data, dict) else None
        return own if isinstance(own, str) else self.case.get("resourceType")

    def options(self) -> dict[str, Any]:
        """Keyword arguments of `Validator.iter_issues` for this test."""
        options: dict[str, Any] = {"context": self.case.get("context", "resource")}
        if "resourceType" in self.case:
            options["resource_type"] = self.case["resourceType"]
        if "profile" in self.case:
            options["profile"] = self.case["profile"]
        return options


@cache
def load_case_files() -> dict[str, dict[str, Any]]:
    """Every case file as written, by its path relative to tests/cases (e.g. party/status-binding.json)."""
    return {
        path.relative_to(CASES_DIR).as_posix(): json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(CASES_DIR.glob("*/*.json"))
    }


@cache
def load_tests() -> tuple[CaseTest, ...]:
    """Every test of every case file, its data filled in for the default installation (profiles/installation.toml)."""
    installation = load_installation()
    return tuple(
        CaseTest(file, case, {**test, "data": installation.substitute(test["data"])})
        for file, case in load_case_files().items()
        for test in case["tests"]
    )
