"""The registry of issue codes (profiles/issue-codes.json) and the code agree: every code the validator
can report is registered, every registered code is reported by something, every requirement it names
is in the catalogue, and the registry, not the rule rows, decides severities."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from case_files import load_case_files, load_tests
from project_paths import ROOT

from profiles import load_contract, read_issue_codes, standard_issue_codes, standard_rules
from profiles.issue_codes import ISSUE_CODES_FILE
from profiles.issues import Severity
from profiles.structure import issue_code
from profiles.validator import Validator
from schemas import load_schemas

PROFILES = ROOT / "profiles"
CODES = standard_issue_codes()
CONTRACT = load_contract()
CATALOGUE = {
    row["id"] for row in tomllib.loads((ROOT / "conformance/catalogue/requirements.toml").read_text())["requirement"]
}

# What jsonschema-rs reports for each keyword of schemas/ that can fail; the other keywords only annotate.
_KINDS_OF_KEYWORDS = {
    "additionalProperties": "AdditionalProperties",
    "unevaluatedProperties": "UnevaluatedProperties",
    "anyOf": "AnyOf",
    "const": "Constant",
    "enum": "Enum",
    "maximum": "Maximum",
    "minimum": "Minimum",
    "pattern": "Pattern",
    "required": "Required",
    "type": "Type",
}
_ANNOTATIONS = {"$defs", "$id", "$ref", "$schema", "default", "description", "format", "items", "properties", "title"}
_NAMED_CHILDREN = {"properties", "$defs", "patternProperties"}


def _keywords(schema: Any) -> Iterator[str | bool]:
    """Every keyword of a schema and its subschemas; False for a false subschema."""
    if schema is False:
        yield False
    elif isinstance(schema, dict):
        for keyword, value in schema.items():
            if keyword.startswith("x-"):
                continue  # an extension of eris (notes for people), never a validation keyword
            yield keyword
            children = value.values() if keyword in _NAMED_CHILDREN and isinstance(value, dict) else [value]
            for child in children if keyword not in ("enum", "const", "required", "default") else []:
                yield from _keywords(child)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item)


def _structure_codes() -> set[str]:
    used = {keyword for document in load_schemas().values() for keyword in _keywords(document)}
    unknown = {keyword for keyword in used if keyword is not False} - set(_KINDS_OF_KEYWORDS) - _ANNOTATIONS
    assert not unknown, f"schemas use keywords this test does not know: {unknown}"
    kinds = {_KINDS_OF_KEYWORDS[k] for k in used if k in _KINDS_OF_KEYWORDS}
    if False in used:
        kinds.add("FalseSchema")
    return {issue_code(kind) for kind in kinds}


def _reported_in(module: Path) -> tuple[set[str], list[re.Pattern[str]]]:
    """The codes a module reports: the first argument of each Finding(...) and ....issue(...) call, a
    literal or an f-string (a pattern, its fields standing for any code fragment)."""
    literals: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        function = node.func
        name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", None)
        if name not in ("Finding", "issue"):
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            literals.add(first.value)
        elif isinstance(first, ast.JoinedStr):
            parts = [re.escape(p.value) if isinstance(p, ast.Constant) else "[a-z0-9-]+" for p in first.values]
            patterns.append(re.compile("".join(parts)))
    return literals, patterns


def _formats_named_by_the_data() -> set[str]:
    """The codes of the value checks the data names: identifier-<format>-invalid and
    report-parameter-<format>-invalid."""
    formats = {f"identifier-{ns.format}-invalid" for ns in CONTRACT.namespaces.values() if ns.format}
    for operation in CONTRACT.operations.values():
        formats |= {f"report-parameter-{p['format']}-invalid" for p in operation["parameter"] if "format" in p}
    return formats


def _reported_by(source: str) -> set[str]:
    """The codes `source` (an emittedBy of the registry) can report."""
    if source == "structure":
        return _structure_codes()
    if source.startswith("rule:"):
        module = Path(standard_rules()[source.removeprefix("rule:")].__code__.co_filename)
    else:
        module = PROFILES / f"{source}.py"
    literals, patterns = _reported_in(module)
    return literals | {code for code in _formats_named_by_the_data() if any(p.fullmatch(code) for p in patterns)}


def test_every_emitted_by_names_a_rule_of_the_standard_set_or_a_pass():
    rules = standard_rules()
    for entry in CODES.values():
        for source in entry.emitted_by:
            passes = ("structure", "recognition", "validator", "rule_plans")
            assert source in passes or source.removeprefix("rule:") in rules, (
                entry.code,
                source,
            )


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_registered_code_is_reported_by_what_the_registry_says(code):
    for source in CODES[code].emitted_by:
        assert code in _reported_by(source), f"{code} is not reported by {source}"


def test_every_code_the_rule_modules_and_passes_report_is_registered():
    modules = {Path(f.__code__.co_filename) for f in standard_rules().values()}
    modules |= {PROFILES / "validator.py", PROFILES / "rule_plans.py", PROFILES / "recognition.py"}
    literals = set().union(*(_reported_in(module)[0] for module in modules))
    patterns = [p for module in modules for p in _reported_in(module)[1]]
    dynamic = {code for code in _formats_named_by_the_data() if any(p.fullmatch(code) for p in patterns)}
    assert literals | dynamic | _structure_codes() <= set(CODES)
    assert all(any(p.fullmatch(code) for code in CODES) for p in patterns)


def test_every_code_reported_on_the_case_files_and_expected_by_them_is_registered():
    validator = Validator(CONTRACT)
    reported = {issue.code for t in load_tests() for issue in validator.iter_issues(t.data, **t.options())}
    expected = {i["code"] for case in load_case_files().values() for t in case["tests"] for i in t.get("issues", [])}
    assert reported | expected <= set(CODES)


def test_every_requirement_of_the_registry_is_in_the_catalogue():
    named = {entry.requirement for entry in CODES.values() if entry.requirement is not None}
    assert named <= CATALOGUE


def test_no_rule_row_decides_a_severity():
    rows = [
        spec
        for specs in [*(r.rules for r in CONTRACT.resources.values()), *(p.rules for p in CONTRACT.profiles.values())]
        for spec in specs
    ]
    assert [row for row in rows if "severity" in row] == []


def test_a_severity_when_names_a_parameter_of_a_rule_row():
    parameters = {
        key
        for specs in [*(r.rules for r in CONTRACT.resources.values()), *(p.rules for p in CONTRACT.profiles.values())]
        for spec in specs
        for key in spec
    }
    assert {name for entry in CODES.values() for name in entry.severity_when} <= parameters


def test_the_registry_decides_the_severity_of_a_code(tmp_path):
    data = json.loads(ISSUE_CODES_FILE.read_text(encoding="utf-8"))
    for row in data["codes"]:
        if row["code"] == "reference-identifier-not-key":
            row["severity"] = "error"
    changed = tmp_path / "issue-codes.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    party = next(t for t in load_tests() if t.test["description"].startswith("partOf by the warehouse copy"))
    (issue,) = Validator(CONTRACT, issue_codes=read_issue_codes(changed)).validate(party.data)
    assert (issue.code, issue.severity) == ("reference-identifier-not-key", Severity.ERROR)
    assert issue.requirement == "ERIS-BASE-002"


def test_a_code_listed_twice_is_refused(tmp_path):
    data = json.loads(ISSUE_CODES_FILE.read_text(encoding="utf-8"))
    data["codes"].append(data["codes"][0])
    twice = tmp_path / "issue-codes.json"
    twice.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="listed twice"):
        read_issue_codes(twice)


def test_the_rules_are_an_argument_of_the_validator():
    party = next(t for t in load_tests() if t.test["description"].startswith("partOf by the warehouse copy"))
    rules = standard_rules()
    rules["reference-key"] = lambda ctx, value, spec: iter(())
    assert Validator(CONTRACT, rules=rules).validate(party.data) == []
    assert [i.code for i in Validator(CONTRACT).validate(party.data)] == ["reference-identifier-not-key"]
    del rules["reference-key"]
    with pytest.raises(ValueError, match="reference-key"):
        Validator(CONTRACT, rules=rules)
