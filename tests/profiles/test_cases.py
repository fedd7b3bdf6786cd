"""The language-neutral validator cases of tests/cases, run against this project's validator.

tests/cases/README.md describes the format. This module checks the case files themselves (their
schema, unique descriptions that state facts, the requirements they cite, coverage of every
profile and resource type) and runs every test through one shared Validator. The loader is
tests/case_files.py.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import pytest
from case_files import CaseTest, load_case_files, load_tests
from project_paths import CASES_DIR, ROOT

from profiles import load_contract, load_installation
from profiles.validator import Validator

CASE_SCHEMA_FILE = CASES_DIR / "case.schema.json"
REQUIREMENTS_FILE = ROOT / "conformance" / "catalogue" / "requirements.toml"
RESOURCES_DIR = ROOT / "profiles" / "resources"
MINIMUM_CASE_FILES = 150
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")

# Tests whose verdict the contract decides and this validator gets wrong (reported, not worked
# around): the case states the contract; the mark flips to a failure once the engine is fixed.


def _params() -> Iterator[Any]:
    for case_test in load_tests():
        yield pytest.param(case_test, id=case_test.id)


@pytest.fixture(scope="session")
def validator() -> Validator:
    return Validator()


@pytest.fixture(scope="session")
def strict_validator() -> Validator:
    return Validator(strict=True)


@pytest.mark.parametrize("case_test", list(_params()))
def test_case(validator: Validator, strict_validator: Validator, case_test: CaseTest) -> None:
    chosen = strict_validator if case_test.test.get("strict") else validator
    issues = list(chosen.iter_issues(case_test.data, **case_test.options()))
    reported = {(issue.code, issue.location, issue.severity.value) for issue in issues}
    listing = "\n".join(f"  {i.severity.value} {i.code} at {i.location!r}: {i.message}" for i in issues) or "  none"
    valid = not any(issue.is_error for issue in issues)
    assert valid is case_test.test["valid"], f"expected valid={case_test.test['valid']}; reported:\n{listing}"
    for expected in case_test.test.get("issues", []):
        wanted = (expected["code"], expected["location"], expected.get("severity", "error"))
        assert wanted in reported, f"expected issue {wanted} not reported; reported:\n{listing}"


# The case files themselves.


@cache
def _case_schema() -> jsonschema.Draft202012Validator:
    schema = json.loads(CASE_SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("file", sorted(load_case_files()))
def test_case_file_matches_the_case_schema(file: str) -> None:
    errors = [f"{error.json_path}: {error.message}" for error in _case_schema().iter_errors(load_case_files()[file])]
    assert not errors, "\n".join(errors)


def test_suite_has_at_least_150_case_files() -> None:
    assert len(load_case_files()) >= MINIMUM_CASE_FILES


def test_descriptions_are_unique_across_the_suite() -> None:
    files = load_case_files().values()
    for descriptions in (
        [case["description"] for case in files],
        [test["description"] for case in files for test in case["tests"]],
    ):
        repeated = [text for text, count in Counter(descriptions).items() if count > 1]
        assert not repeated, f"repeated descriptions: {repeated}"


def test_descriptions_state_facts_without_should() -> None:
    texts = [
        text
        for case in load_case_files().values()
        for text in [case["description"], *(test["description"] for test in case["tests"])]
    ]
    assert not [text for text in texts if "should" in text.lower()]


def test_cited_requirements_exist_with_their_sections() -> None:
    catalogue = {r["id"]: r["section"] for r in tomllib.loads(REQUIREMENTS_FILE.read_text("utf-8"))["requirement"]}
    wrong = [
        (file, cited)
        for file, case in load_case_files().items()
        for cited in case["specification"]
        if catalogue.get(cited["requirement"]) != cited["section"]
    ]
    assert not wrong


def test_expected_issues_agree_with_the_verdict() -> None:
    """An invalid test names at least one error it expects; a valid test expects no error."""
    disagreeing = []
    for case_test in load_tests():
        errors = [i for i in case_test.test.get("issues", []) if i.get("severity", "error") == "error"]
        if bool(errors) == case_test.test["valid"]:
            disagreeing.append(case_test.id)
    assert not disagreeing


def test_placeholders_are_those_of_the_installation() -> None:
    known = set(load_installation().placeholders())
    used = set(_PLACEHOLDER.findall(json.dumps(list(load_case_files().values()))))
    assert used <= known, f"unknown placeholders: {sorted(used - known)}"


# Coverage of the contract data.


def _claimed_or_evidenced(data: Any) -> tuple[set[str], set[tuple[Any, Any]], Any]:
    """The meta.profile URLs, the category codings (system, code) and the url of a payload."""
    if not isinstance(data, dict):
        return set(), set(), None
    meta = data.get("meta")
    urls = meta.get("profile") if isinstance(meta, dict) else None
    codings = {
        (coding.get("system"), coding.get("code"))
        for concept in (data.get("category") if isinstance(data.get("category"), list) else [])
        if isinstance(concept, dict) and isinstance(concept.get("coding"), list)
        for coding in concept["coding"]
        if isinstance(coding, dict)
    }
    return {u for u in urls if isinstance(u, str)} if isinstance(urls, list) else set(), codings, data.get("url")


def test_every_profile_appears_in_a_case_file() -> None:
    contract = load_contract()
    covered: set[str] = set()
    for case_test in load_tests():
        urls, codings, url = _claimed_or_evidenced(case_test.data)
        for profile in contract.profiles.values():
            if (
                case_test.case.get("profile") == profile.name
                or profile.url in urls
                or codings & set(profile.category_codings)
                or (profile.canonical_url is not None and url == profile.canonical_url)
            ):
                covered.add(profile.name)
    defined = {path.stem for path in (ROOT / "profiles" / "definitions").glob("*.json")}
    assert defined - covered == set()


def test_every_resource_type_appears_in_a_case_file() -> None:
    # DomainResource.json holds the rules of the common base, not a resource type; base/ covers it.
    types = {json.loads(path.read_text("utf-8"))["resourceType"] for path in RESOURCES_DIR.glob("*.json")}
    covered = {case_test.resource_type for case_test in load_tests()}
    assert types - {"DomainResource"} - covered == set()
