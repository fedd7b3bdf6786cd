"""Structure checks: the JSON Schemas of `schemas/`, compiled once with jsonschema-rs.

jsonschema-rs is a correct 2020-12 engine about 150 times faster than jsonschema (NOTES.md);
tests/profiles/test_engine_agreement.py keeps the two engines in agreement on every case file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jsonschema_rs

from profiles.issue_codes import IssueCodes, standard_issue_codes
from profiles.issues import Issue, pointer
from profiles.paths import Where
from profiles.rust_patterns import with_fast_pattern, with_fast_patterns
from schemas import load_schemas

_UNEXPECTED_KINDS = {"UnevaluatedProperties", "AdditionalProperties"}
_NOT_OF_THE_VALUE = {*_UNEXPECTED_KINDS, "Required", "FalseSchema"}
"""Kinds that judge an object's members (their presence), not a member's value: a null there is not read as absent."""
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_KIND_CODES = {"FalseSchema": "schema-not-allowed", "Constant": "schema-const"}


def issue_code(kind_name: str) -> str:
    """The issue code of a jsonschema-rs error kind (its class name: Required, UnevaluatedProperties...)."""
    if kind_name in _UNEXPECTED_KINDS:
        return "schema-unexpected-element"
    return _KIND_CODES.get(kind_name) or "schema-" + _CAMEL.sub("-", kind_name).lower()


@dataclass(frozen=True, slots=True)
class Structure:
    """What one structure pass found."""

    issues: list[Issue]
    null_members: list[Where]
    """Paths of the nulls the schema refuses as the value of a member that an object's schema names (a dictionary's
    entry, such as a report parameter, is not one)."""
    missing: set[tuple[Where, str]]
    """(path of an object, member) for each member the schema requires and the object lacks."""


_STEPS = {
    "properties": "member",
    "patternProperties": "entry",
    "additionalProperties": "entry",
    "unevaluatedProperties": "entry",
    "items": "item",
    "prefixItems": "item",
    "additionalItems": "item",
    "unevaluatedItems": "item",
    "contains": "item",
}
"""The keywords of a schema path that step into the instance, and what they step into."""
_NAMING_KEYWORDS = {"properties", "patternProperties", "prefixItems", "allOf", "anyOf", "oneOf", "$defs"}
"""The keywords followed in a schema path by a name or an index, which is no keyword."""


def _is_null_member(instance: Any, path: Any) -> bool:
    """Whether the value at `path` is a null member of an object (read from the instance: the error's own copy of a
    large value would be built for nothing)."""
    if not path or not isinstance(path[-1], str):
        return False
    node = instance
    for token in path:
        try:
            node = node[token]
        except (KeyError, IndexError, TypeError):
            return False
    return node is None


def _is_dictionary_entry(schema_path: list[str | int]) -> bool:
    """Whether the last step of `schema_path` into the instance went through an entry of a dictionary
    (additionalProperties, patternProperties, unevaluatedProperties) rather than a named member (properties). A path
    that starts in a referenced schema shows no step: the member is taken as named."""
    last, at = None, 0
    while at < len(schema_path):
        keyword = schema_path[at]
        step = _STEPS.get(keyword) if isinstance(keyword, str) else None
        if step is not None:
            last = step
        at += 2 if keyword in _NAMING_KEYWORDS else 1
    return last == "entry"


class SchemaStore:
    """The schema files by name, with one compiled validator per schema, built on first use."""

    def __init__(self, documents: dict[str, dict[str, Any]] | None = None) -> None:
        self.documents = documents if documents is not None else load_schemas()
        self._validators: dict[str, Any] = {}

    @cached_property
    def registry(self) -> jsonschema_rs.Registry:
        return jsonschema_rs.Registry([(doc["$id"], doc) for doc in self.documents.values()])

    def validator(self, name: str) -> Any:
        name = name.removesuffix(".schema.json")
        compiled = self._validators.get(name)
        if compiled is None:
            compiled = jsonschema_rs.validator_for(self.documents[name], registry=self.registry)
            self._validators[name] = compiled
        return compiled

    @cached_property
    def verdict_registry(self) -> jsonschema_rs.Registry:
        """The schema files with their patterns in the fast engine's form (profiles.rust_patterns): for validators
        asked only for a verdict, as their errors would name the rewritten keywords."""
        documents = with_fast_patterns(self.documents)
        return jsonschema_rs.Registry([(doc["$id"], doc) for doc in documents.values()])

    def compile(self, schema: dict[str, Any]) -> Any:
        """A validator for a schema that refers to the schema files by their $id, to be asked only is_valid (the
        files' patterns are in their fast form)."""
        return jsonschema_rs.validator_for(with_fast_pattern(schema), registry=self.verdict_registry)

    def _message(self, error: Any, kind_name: str) -> str:
        """The engine's message, except for a shared primitive's pattern: its description, not the regex."""
        path = list(error.schema_path)
        if kind_name == "Pattern" and "$defs" in path:
            name = path[path.index("$defs") + 1]
            definition = self.documents.get("Primitives", {}).get("$defs", {}).get(name, {})
            if "description" in definition:
                shown = json.dumps(error.instance, ensure_ascii=False)[:80]
                return f"{shown} is not valid: expected {definition['description']}"
        return error.message

    def iter_issues(
        self, name: str, instance: Any, requirement: str | None, issue_codes: IssueCodes | None = None
    ) -> Iterator[Issue]:
        """Structure issues of `instance` against schema `name`, each once, located precisely;
        `requirement` is the resource type's, which the registry gives the schema codes."""
        yield from self.check(name, instance, requirement, issue_codes).issues

    def check(
        self, name: str, instance: Any, requirement: str | None, issue_codes: IssueCodes | None = None
    ) -> Structure:
        """iter_issues, with what the validator needs to read a null as an absent element."""
        codes = standard_issue_codes() if issue_codes is None else issue_codes
        issues: list[Issue] = []
        nulls: dict[Where, None] = {}
        missing: set[tuple[Where, str]] = set()
        seen: set[tuple[str, str, str]] = set()
        # no is_valid first: on a valid document iter_errors costs no more, on an invalid one is_valid is wasted
        for error in self.validator(name).iter_errors(instance):
            location = ""
            for token in error.instance_path:
                location = pointer(location, token)
            kind_name = type(error.kind).__name__
            if kind_name in _UNEXPECTED_KINDS:
                found = [
                    (pointer(location, name), f"element {name!r} is not part of this type")
                    for name in error.kind.unexpected
                ]
            else:
                found = [(location, self._message(error, kind_name))]
                if kind_name == "Required":
                    missing.add((tuple(error.instance_path), error.kind.property))
                elif (
                    kind_name not in _NOT_OF_THE_VALUE
                    and _is_null_member(instance, error.instance_path)
                    and not _is_dictionary_entry(list(error.schema_path))
                ):
                    nulls[tuple(error.instance_path)] = None
            code = issue_code(kind_name)
            for where, message in found:
                if (code, where, message) not in seen:
                    seen.add((code, where, message))
                    issues.append(codes.issue(code, where, message, resource=requirement))
        return Structure(issues, list(nulls), missing)
