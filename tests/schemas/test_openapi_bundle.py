"""schemas/openapi.json as the bundle of the schema files, and the bundler (profiles.openapi_bundle) on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_document import SCHEMA_DIR, pointer, read_openapi
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from profiles import openapi_bundle


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return read_openapi()


def test_up_to_date_with_the_schema_files():
    assert openapi_bundle.check(SCHEMA_DIR) is None
    assert openapi_bundle.main(["--check"]) == 0


def test_components_hold_every_schema_file(document):
    names = {p.name[: -len(".schema.json")] for p in SCHEMA_DIR.glob("*.schema.json")}
    assert names
    assert names <= set(document["components"]["schemas"])


def _refs(node: Any, where: str = "#"):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield where, value
            else:
                yield from _refs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _refs(value, f"{where}/{index}")


def test_every_ref_resolves_inside_the_document(document):
    refs = list(_refs(document))
    assert refs
    for where, ref in refs:
        try:
            pointer(document, ref)
        except (AssertionError, KeyError, IndexError, ValueError) as exc:
            pytest.fail(f"{where}: $ref {ref!r} does not resolve ({exc!r})")


def _validator(document: dict[str, Any], component: str) -> Draft202012Validator:
    uri = "urn:eris:openapi"
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry = Registry().with_resource(uri, resource)
    return Draft202012Validator({"$ref": f"{uri}#/components/schemas/{component}"}, registry=registry)


def test_bundled_schemas_validate_payloads(document):
    party = {"resourceType": "Party", "identifier": [{"system": "urn:oid:1.2", "value": "7"}]}
    envelope = _validator(document, "PartyEnvelope")
    assert envelope.is_valid({"items": [party], "nextToken": None})
    assert not envelope.is_valid({"items": [{**party, "unknown": 1}], "nextToken": None})
    assert not envelope.is_valid({"items": [party]})  # nextToken is part of the envelope
    summaries = _validator(document, "ValueSetSummaryEnvelope")
    assert summaries.is_valid({"items": [{"url": "http://x/vs", "version": None}], "nextToken": None})
    position = {"resourceType": "DocumentReference", "position": [{"code": {"coding": []}}]}
    assert _validator(document, "DocumentReference").is_valid(position)
    assert not _validator(document, "DocumentReference").is_valid({"position": [{"code": 1}]})


# --- the bundler on its own ----------------------------------------------------------------


def _write(directory: Path, name: str, schema: dict[str, Any]) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": openapi_bundle.schema_id(name),
        **schema,
    }
    (directory / f"{name}.schema.json").write_text(json.dumps(schema), encoding="utf-8")


def _paths_document(schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {"schemas": schemas, "parameters": {"p": {"name": "p", "in": "query"}}},
    }


def test_bundler_rewrites_references(tmp_path):
    _write(tmp_path, "A", {"$defs": {"x": {"type": "string"}}, "properties": {"d": {"const": 1}}})
    _write(
        tmp_path,
        "B",
        {
            "$ref": "A.schema.json",
            "properties": {
                "a": {"$ref": "A.schema.json#/$defs/x"},
                "$ref": {"$ref": "#/$defs/y"},
                "c": {"const": {"$ref": "not-a-reference"}},
            },
            "anyOf": [{"$ref": "https://schemas.eris.example/v1/A.schema.json"}, True],
            "$defs": {"y": {"items": {"$ref": "#"}}},
        },
    )
    stale = {"type": "null"}
    built = openapi_bundle.build_openapi(
        _paths_document({"B": stale, "Gone": stale, "AEnvelope": {"$ref": "#/x"}}), tmp_path
    )
    schemas = built["components"]["schemas"]
    assert list(schemas) == ["A", "AEnvelope", "B"]
    assert schemas["AEnvelope"] == {"$ref": "#/x"}
    assert "$id" not in schemas["A"] and "$schema" not in schemas["A"]
    b = schemas["B"]
    assert b["$ref"] == "#/components/schemas/A"
    assert b["properties"]["a"] == {"$ref": "#/components/schemas/A/$defs/x"}
    assert b["properties"]["$ref"] == {"$ref": "#/components/schemas/B/$defs/y"}
    assert b["properties"]["c"] == {"const": {"$ref": "not-a-reference"}}
    assert b["anyOf"] == [{"$ref": "#/components/schemas/A"}, True]
    assert b["$defs"]["y"] == {"items": {"$ref": "#/components/schemas/B"}}
    assert built["components"]["parameters"] == {"p": {"name": "p", "in": "query"}}


@pytest.mark.parametrize("ref", ["Missing.schema.json", "https://example.org/A.schema.json", "A.schema.json#anchor"])
def test_bundler_refuses_unresolvable_references(tmp_path, ref):
    _write(tmp_path, "A", {"type": "object"})
    _write(tmp_path, "B", {"$ref": ref})
    with pytest.raises(openapi_bundle.BundleError):
        openapi_bundle.build_openapi(_paths_document({}), tmp_path)


def test_bundler_refuses_a_wrong_id(tmp_path):
    (tmp_path / "A.schema.json").write_text('{"$id": "https://example.org/A.json"}')
    with pytest.raises(openapi_bundle.BundleError):
        openapi_bundle.load_schema_files(tmp_path)


def test_bundler_check_and_write(tmp_path, capsys):
    _write(tmp_path, "A", {"type": "object"})
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(_paths_document({})), encoding="utf-8")
    assert openapi_bundle.main(["--check", "--schema-dir", str(tmp_path)]) == 1
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "not up to date" in message
    assert openapi_bundle.main(["--schema-dir", str(tmp_path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "openapi": "3.1.0",' in text
    assert json.loads(text)["components"]["schemas"] == {"A": {"type": "object"}}
    assert openapi_bundle.main(["--check", "--schema-dir", str(tmp_path)]) == 0
    assert openapi_bundle.main(["--schema-dir", str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == text  # stable
