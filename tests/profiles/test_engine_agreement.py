"""jsonschema-rs, the validator's structure engine, agrees with python-jsonschema on every case.

For each test of tests/cases whose type has a schema (profiles/resources/<Type>.json names it), the
payload goes through both engines: `jsonschema.Draft202012Validator` with a `referencing.Registry`
of all schemas/*.schema.json, and the jsonschema-rs validator of `profiles.structure.SchemaStore`.
They must give the same verdict and report their errors at the same set of instance locations.

One known difference in locations, compared on validity only: an error from a boolean `false`
subschema (Notification's `"identifier": false` and `"contained": false`). python-jsonschema's
`descend()` yields that error and returns before it prefixes the property to the error's path, so
the error carries the parent's location (`""`), while jsonschema-rs locates it at the property
(`/identifier`), which is the location the validator reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import pytest
from case_files import CaseTest, load_tests
from project_paths import ROOT
from referencing import Registry, Resource

from profiles.issues import pointer
from profiles.structure import SchemaStore
from schemas import load_schemas

RESOURCES_DIR = ROOT / "profiles" / "resources"

SCHEMAS = load_schemas()
REGISTRY = Registry().with_resources((schema["$id"], Resource.from_contents(schema)) for schema in SCHEMAS.values())
STORE = SchemaStore()
# The schema of each resource type, as profiles/resources/<Type>.json names it (None: no schema).
SCHEMA_OF = {
    data["resourceType"]: data.get("schema")
    for data in (json.loads(path.read_text("utf-8")) for path in sorted(RESOURCES_DIR.glob("*.json")))
}


@cache
def reference_validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(SCHEMAS[name], registry=REGISTRY)


def _schema_name(case_test: CaseTest) -> str | None:
    schema = SCHEMA_OF.get(case_test.resource_type) if isinstance(case_test.resource_type, str) else None
    return schema.removesuffix(".schema.json") if schema else None


def _params() -> Iterator[Any]:
    for case_test in load_tests():
        name = _schema_name(case_test)
        if name is not None:
            yield pytest.param(case_test, name, id=case_test.id)


def _location(path: Any) -> str:
    location = ""
    for token in path:
        location = pointer(location, token)
    return location


def _reference_locations(instance: Any, name: str) -> tuple[set[str], bool]:
    """Error locations of python-jsonschema, and whether a `false` subschema failed (located apart)."""
    errors = list(reference_validator(name).iter_errors(instance))
    false_schema = any(error.schema is False for error in errors)
    return {_location(error.absolute_path) for error in errors if error.schema is not False}, false_schema


def _rs_locations(instance: Any, name: str) -> tuple[set[str], bool]:
    """Error locations of jsonschema-rs, and whether a `false` subschema failed."""
    errors = list(STORE.validator(name).iter_errors(instance))
    is_false = [type(error.kind).__name__ == "FalseSchema" for error in errors]
    locations = {_location(error.instance_path) for error, false in zip(errors, is_false, strict=True) if not false}
    return locations, any(is_false)


def test_every_schema_named_by_a_resource_exists() -> None:
    named = {schema.removesuffix(".schema.json") for schema in SCHEMA_OF.values() if schema}
    assert named <= set(SCHEMAS)


@pytest.mark.parametrize(("case_test", "name"), list(_params()))
def test_engines_agree(case_test: CaseTest, name: str) -> None:
    instance = case_test.data
    assert STORE.validator(name).is_valid(instance) is reference_validator(name).is_valid(instance)
    reference, reference_false = _reference_locations(instance, name)
    rs, rs_false = _rs_locations(instance, name)
    assert reference_false is rs_false
    assert rs == reference
