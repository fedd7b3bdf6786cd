"""schemas/openapi.json against the contract's Endpoints and Errors parts: operations, parameters, bodies, responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_document import pointer, read_openapi
from openapi_spec_validator import validate
from project_paths import DATA_DIR

CONTRACT_OPERATIONS = DATA_DIR / "contract_operations.json"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# Required query parameters, as the contract's Endpoints part names them.
REQUIRED_PARAMETERS = {
    ("GET", "/v1/party-roles"): {"role"},
    ("GET", "/v1/party-relationships"): {"type"},
    ("GET", "/v1/fixed-asset-allocations"): {"category"},
    ("PATCH", "/v1/parties"): {"identifier", "owner"},
    ("PATCH", "/v1/fixed-asset-documents"): {"identifier"},
    ("GET", "/v1/fixed-asset-documents/$document-content"): {"identifier"},
}

# Query parameters the contract names per operation (count and offset: every list read).
NAMED_PARAMETERS = {
    ("GET", "/v1/parties"): {
        "profile",
        "type",
        "identifier",
        "owner",
        "attribute",
        "status",
        "lastModified",
    },
    ("PATCH", "/v1/parties"): {"identifier", "owner"},
    ("GET", "/v1/party-roles"): {"role", "party", "profile"},
    ("GET", "/v1/party-relationships"): {"type", "partyFrom", "partyTo", "attribute"},
    ("GET", "/v1/locations"): {
        "profile",
        "identifier",
        "owner",
        "attribute",
        "contained",
        "type",
        "category",
    },
    ("GET", "/v1/value-sets"): {"url", "system", "id", "owner", "status", "attribute"},
    ("GET", "/v1/naming-systems"): {"usage"},
    ("GET", "/v1/capabilities"): {"identifier"},
    ("GET", "/v1/grant-assignments"): {"assignedTo", "granted", "basedOn", "scope", "attribute"},
    ("GET", "/v1/fixed-asset-allocations"): {"category"},
    ("GET", "/v1/fixed-asset-documents"): {"identifier", "owner", "attribute", "format"},
    ("PATCH", "/v1/fixed-asset-documents"): {"identifier"},
    ("GET", "/v1/fixed-asset-documents/$document-content"): {
        "identifier",
        "owner",
        "attribute",
        "format",
    },
    ("GET", "/v1/document-references"): {
        "profile",
        "identifier",
        "attribute",
        "type",
        "participant",
        "statusDate",
        "issueDateFrom",
    },
}

REQUEST_BODIES = {
    ("POST", "/v1/parties"): "Party",
    ("PATCH", "/v1/parties"): "Party",
    ("POST", "/v1/fixed-asset-documents"): "FixedAssetDocument",
    ("PATCH", "/v1/fixed-asset-documents"): "FixedAssetDocument",
    ("POST", "/v1/document-references"): "DocumentReference",
    ("PATCH", "/v1/document-references"): "DocumentReference",
    ("POST", "/v1/reports"): "ReportOrder",
}

# Errors part: status codes per operation (5xx of POST /v1/reports as the 5XX range).
ERROR_CODES = {
    ("POST", "/v1/reports"): {"202", "400", "401", "403", "404", "429", "500", "5XX"},
    ("GET", "/v1/value-sets"): {"404"},
    ("GET", "/v1/fixed-asset-documents/$document-content"): {"404"},
    ("POST", "/v1/document-references"): {"422"},
}

# Reads with the coded filters `type` / `status`: 400 Problem Details.
CODED_FILTER_READS = {
    "/v1/parties",
    "/v1/party-relationships",
    "/v1/locations",
    "/v1/value-sets",
    "/v1/document-references",
}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return read_openapi()


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (method.upper(), path): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    }


def deref(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = pointer(document, node["$ref"])
    return node


def parameters(document: dict[str, Any], operation: dict[str, Any]) -> dict[str, dict]:
    found = [deref(document, p) for p in operation.get("parameters", [])]
    return {p["name"]: p for p in found if p["in"] == "query"}


def is_list_read(method: str, path: str) -> bool:
    return method == "GET" and not path.endswith("$document-content")


def test_validates_as_openapi_3_1(document):
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert document["jsonSchemaDialect"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["info"]["title"] == "Enterprise Resource Integration Service"
    assert document["info"]["version"] == "1"


def test_operations_equal_the_contract(document):
    contract = json.loads(CONTRACT_OPERATIONS.read_text(encoding="utf-8"))
    assert contract["source"]
    expected = {(op["method"], op["path"]) for op in contract["operations"]}
    assert len(expected) == len(contract["operations"])
    assert set(operations(document)) == expected


def test_no_id_segment_and_no_delete(document):
    for path, item in document["paths"].items():
        assert "{" not in path and "}" not in path, path
        assert "delete" not in item, path


def test_every_operation_has_a_unique_operation_id(document):
    ids = [op.get("operationId") for op in operations(document).values()]
    assert all(ids)
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(("key", "names"), sorted(REQUIRED_PARAMETERS.items()))
def test_required_parameters(document, key, names):
    found = parameters(document, operations(document)[key])
    for name in names:
        assert name in found, f"{key}: parameter {name} missing"
        assert found[name].get("required") is True, f"{key}: {name} is not required"


def test_only_the_contract_required_parameters_are_required(document):
    for key, operation in operations(document).items():
        required = {n for n, p in parameters(document, operation).items() if p.get("required")}
        assert required == REQUIRED_PARAMETERS.get(key, set()), key


@pytest.mark.parametrize(("key", "names"), sorted(NAMED_PARAMETERS.items()))
def test_named_parameters(document, key, names):
    found = set(parameters(document, operations(document)[key]))
    if is_list_read(*key):
        names = names | {"count", "offset"}
    assert found == names


def test_paging_on_every_list_read(document):
    for (method, path), operation in operations(document).items():
        found = parameters(document, operation)
        if not is_list_read(method, path):
            assert "count" not in found and "offset" not in found, path
            continue
        assert found["count"]["schema"] == {"type": "integer", "minimum": 0, "default": 20}
        assert found["offset"]["schema"] == {"type": "integer", "minimum": 0, "default": 0}
        assert not found["count"].get("required") and not found["offset"].get("required")


def test_attribute_is_repeatable(document):
    for key, operation in operations(document).items():
        attribute = parameters(document, operation).get("attribute")
        if attribute is None:
            continue
        assert attribute["style"] == "form" and attribute["explode"] is True, key
        assert attribute["schema"]["type"] == "array", key


@pytest.mark.parametrize(("key", "schema"), sorted(REQUEST_BODIES.items()))
def test_request_bodies(document, key, schema):
    body = deref(document, operations(document)[key]["requestBody"])
    assert body["required"] is True
    assert body["content"] == {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def test_only_writes_have_bodies(document):
    for key, operation in operations(document).items():
        assert ("requestBody" in operation) == (key in REQUEST_BODIES), key


def test_reads_answer_the_envelope_of_their_resource(document):
    for (method, path), operation in operations(document).items():
        if not is_list_read(method, path):
            continue
        schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        refs = [s["$ref"] for s in schema.get("anyOf", [schema])]
        for ref in refs:
            envelope = pointer(document, ref)
            assert envelope["allOf"][0] == {"$ref": "#/components/schemas/ReadEnvelope"}, path
            item = envelope["allOf"][1]["properties"]["items"]["items"]["$ref"]
            assert ref == item + "Envelope", path


def test_write_responses(document):
    ops = operations(document)

    def schema_of(key: tuple[str, str], status: str) -> Any:
        return ops[key]["responses"][status]["content"]["application/json"]["schema"]

    party = {"$ref": "#/components/schemas/Party"}
    assert schema_of(("POST", "/v1/parties"), "200") == party
    assert schema_of(("PATCH", "/v1/parties"), "200") == party
    assert schema_of(("POST", "/v1/document-references"), "200") == {"$ref": "#/components/schemas/WriteMessage"}
    assert schema_of(("PATCH", "/v1/document-references"), "200")["required"] == ["items"]
    assert schema_of(("POST", "/v1/reports"), "202") == {"$ref": "#/components/schemas/ReportAccepted"}
    content = schema_of(("GET", "/v1/fixed-asset-documents/$document-content"), "200")
    assert content["allOf"][0] == {"$ref": "#/components/schemas/FixedAssetDocument"}
    for key in (("POST", "/v1/fixed-asset-documents"), ("PATCH", "/v1/fixed-asset-documents")):
        assert "200" in ops[key]["responses"], key


@pytest.mark.parametrize(("key", "codes"), sorted(ERROR_CODES.items()))
def test_error_codes_of_the_errors_part(document, key, codes):
    assert codes <= set(operations(document)[key]["responses"])


def test_reports_responses_are_exactly_the_errors_part(document):
    responses = operations(document)[("POST", "/v1/reports")]["responses"]
    assert set(responses) == ERROR_CODES[("POST", "/v1/reports")]
    bad = deref(document, responses["400"])
    assert bad["content"] == {"application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}}
    header = deref(document, responses["429"]["headers"]["Retry-After"])
    assert header["required"] is True
    pattern = Draft202012Validator(header["schema"])
    assert pattern.is_valid("120")
    assert pattern.is_valid("Wed, 21 Oct 2026 07:28:00 GMT")
    assert not pattern.is_valid("soon")


def test_coded_filter_reads_answer_400_problem_details(document):
    for (method, path), operation in operations(document).items():
        found = parameters(document, operation)
        coded = method == "GET" and ("type" in found or "status" in found)
        assert coded == (method == "GET" and path in CODED_FILTER_READS), path
        if coded:
            bad = deref(document, operation["responses"]["400"])
            assert "application/problem+json" in bad["content"], path


def test_bearer_auth_only_on_reports(document):
    scheme = document["components"]["securitySchemes"]["bearerAuth"]
    assert scheme == {**scheme, "type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
    assert "security" not in document
    for key, operation in operations(document).items():
        if key == ("POST", "/v1/reports"):
            assert operation["security"] == [{"bearerAuth": []}]
        else:
            assert "security" not in operation, key
