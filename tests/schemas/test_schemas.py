"""The JSON Schemas in schemas/: well-formed, resolvable, and saying what the contract says.

Examples are checked with both engines the project uses (jsonschema and jsonschema-rs): each
must give the verdict the example's name states ("... is valid" / "... is invalid").
"""

import json
from functools import cache

import jsonschema
import jsonschema_rs
import pytest
from project_paths import ROOT
from referencing import Registry, Resource

SCHEMA_DIR = ROOT / "schemas"
BASE = "https://schemas.eris.example/v1/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

SCHEMAS = {
    path.name.removesuffix(".schema.json"): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(SCHEMA_DIR.glob("*.schema.json"))
}
REGISTRY = Registry().with_resources((schema["$id"], Resource.from_contents(schema)) for schema in SCHEMAS.values())
RS_REGISTRY = jsonschema_rs.Registry([(schema["$id"], schema) for schema in SCHEMAS.values()])


def refs(node):
    """Every $ref value in a schema document."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


@cache
def validators(target):
    """Both engines' validators for `target`: a schema name, optionally with a #fragment."""
    name, hash_, fragment = target.partition("#")
    wrapper = {"$schema": DRAFT, "$ref": f"{BASE}{name}.schema.json{hash_}{fragment}"}
    return (
        jsonschema.Draft202012Validator(wrapper, registry=REGISTRY),
        jsonschema_rs.validator_for(wrapper, registry=RS_REGISTRY),
    )


def test_schema_directory_holds_the_schemas():
    assert len(SCHEMAS) >= 30


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema_is_valid_2020_12_with_id_of_its_file_name(name):
    schema = SCHEMAS[name]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert schema["$id"] == f"{BASE}{name}.schema.json"
    assert schema["title"] and schema["description"]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_ref_is_relative_and_resolves(name):
    resolver = REGISTRY.resolver(base_uri=SCHEMAS[name]["$id"])
    for ref in refs(SCHEMAS[name]):
        assert not ref.startswith(("http:", "https:")), f"{ref} is not relative"
        resolver.lookup(ref)  # raises when the target does not exist


IDENTIFIER = {"system": "urn:oid:1.2.616.1.113769.4.1.10", "value": "K-000123"}
NIP = {"system": "https://registry.example/nip", "value": "5260250274", "type": "TAX"}
CC = {"coding": [{"system": "https://vocab.example/party-status", "code": "active"}]}
REF = {"type": "Party", "identifier": NIP}
ATTACHMENT = {"contentType": "application/pdf", "data": "JVBERi0="}
PEM = "-----BEGIN PUBLIC KEY-----\nMIICIjANBgkqhkiG9w0BAQEFAAOCAg8A\n-----END PUBLIC KEY-----\n"
ORDER = {
    "format": "parquet",
    "publicKeyPem": PEM,
    "runAt": "2024-05-01T00:00:00Z",
    "storage": {"type": "http", "connectionString": "https://receiver.example/in"},
}
NOTIFICATION = {
    "id": "n-1",
    "resourceType": "Notification",
    "status": CC,
    "operation": CC,
    "date": "2024-05-01T10:15:00+02:00",
    "reference": {"type": "Party", "identifier": IDENTIFIER},
}


def without(document, key):
    return {k: v for k, v in document.items() if k != key}


# target schema -> {fact stated by the example: instance}
EXAMPLES = {
    "Primitives#/$defs/date": {
        "date YYYY-MM-DD is valid": "2024-02-29",
        "date with month 13 is invalid": "2024-13-01",
        "date with trailing newline is invalid": "2024-01-01\n",
    },
    "Primitives#/$defs/dateTime": {
        "dateTime in UTC is valid": "2024-05-01T12:00:00Z",
        "dateTime with fraction and offset is valid": "2024-05-01T12:00:00.25+02:00",
        "dateTime without time zone is invalid": "2024-05-01T12:00:00",
        "dateTime given as a date is invalid": "2024-05-01",
    },
    "Primitives#/$defs/uri": {
        "uri urn:oid is valid": "urn:oid:1.2.616.1.113769.4.1.10",
        "uri as relative path is invalid": "party/123",
        "uri with a space is invalid": "https://a.example/x y",
        "uri with trailing newline is invalid": "urn:x\n",
    },
    "Primitives#/$defs/base64": {
        "base64 empty is valid": "",
        "base64 padded is valid": "JVBERi0xLjc=",
        "base64 unpadded is invalid": "JVBERi0xLjc",
        "base64 with line break is invalid": "JVBE\nRi0x",
    },
    "Identifier": {
        "identifier with code type is valid": NIP,
        "identifier with CodeableConcept type is valid": {
            **NIP,
            "type": {"coding": [{"code": "TAX"}]},
        },
        "identifier with unknown element is invalid": {**NIP, "use": "official"},
        "identifier with relative system is invalid": {"system": "nip", "value": "1"},
    },
    "Reference": {
        "reference by identifier is valid": REF,
        "reference with unknown element is invalid": {"reference": "Party/1", "extension": []},
    },
    "Coding": {
        "coding with system code display is valid": {
            "system": "urn:x",
            "code": "a",
            "display": "A",
        },
        "coding with numeric code is invalid": {"code": 1},
    },
    "CodeableConcept": {
        "codeable concept with one coding is valid": CC,
        "codeable concept with text is invalid": {"text": "Active"},
    },
    "Period": {
        "period without end is valid": {"start": "2024-01-01"},
        "period of dateTime and date is valid": {
            "start": "2024-01-01T00:00:00Z",
            "end": "2024-12-31",
        },
        "period with non-ISO start is invalid": {"start": "01.01.2024"},
    },
    "Attribute": {
        "attribute with number value is valid": {"code": "finance", "value": 12.5},
        "attribute with extra element is valid": {"code": "x", "value": {"a": 1}, "type": "json"},
        "attribute without value is invalid": {"code": "finance"},
    },
    "Meta": {
        "meta with element beyond profile is valid": {"profile": ["urn:p"], "versionId": "2"},
        "meta with profile not an array is invalid": {"profile": "urn:p"},
    },
    "Attachment": {
        "attachment with extra element is valid": {**ATTACHMENT, "title": "scan"},
        "attachment with non-base64 data is invalid": {"data": "not base64!"},
    },
    "DomainResource": {
        "contained resource with own fields is valid": {"contained": [{"resourceType": "BankAccount", "iban": "PL61"}]},
        "contained resource without resourceType is invalid": {"contained": [{"iban": "PL61"}]},
        "owner not an array is invalid": {"owner": REF},
    },
    "Party": {
        "party with every element is valid": {
            "resourceType": "Party",
            "identifier": [NIP],
            "name": CC,
            "number": "K-1",
            "status": CC,
            "category": [CC],
            "owner": [REF],
            "address": [{"city": "Gdańsk"}],
            "contactPoint": [{"system": CC, "value": "+48 58 000 00 00"}],
            "partOf": REF,
            "contained": [{"resourceType": "BankAccount", "iban": "PL61"}],
            "attribute": [{"code": "finance", "value": "x"}],
        },
        "party without resourceType and identifier value is valid": {
            "identifier": [{"system": "urn:oid:1.2.616.1.113769.4.1.10"}]
        },
        "party with unknown element is invalid": {"resourceType": "Party", "bankAccount": []},
        "party with other resourceType is invalid": {"resourceType": "Organization"},
        "party with status as plain code is invalid": {"status": "active"},
    },
    "PartyRole": {
        "party role with extra element is valid": {"party": REF, "role": "supplier", "since": 1},
        "party role with party as string is invalid": {"party": "Party/1"},
    },
    "PartyRelationship": {
        "party relationship with extra element is valid": {"partyFrom": REF, "level": 1},
        "party relationship with partyTo array is invalid": {"partyTo": [REF]},
    },
    "Location": {
        "location with extra element is valid": {"managingParty": REF, "name": "W1"},
        "location with partOf as string is invalid": {"partOf": "Location/1"},
    },
    "NamingSystem": {
        "naming system with own elements is valid": {"resourceType": "NamingSystem", "key": "k"},
        "naming system with other resourceType is invalid": {"resourceType": "ValueSet"},
    },
    "ValueSet": {
        "value set with null version and compose is valid": {
            "resourceType": "ValueSet",
            "url": "https://vocab.example/employment-type",
            "version": None,
            "title": "Employment type",
            "experimental": False,
            "immutable": True,
            "compose": {"include": [{"system": "urn:cs", "version": "1", "concept": [{"code": "a", "display": "A"}]}]},
        },
        "value set concept without code is invalid": {"compose": {"include": [{"concept": [{"display": "x"}]}]}},
        "value set include with unknown element is invalid": {"compose": {"include": [{"filter": []}]}},
        "value set with unknown element is invalid": {"name": "x"},
    },
    "Capability": {
        "capability with text name and date bounds is valid": {
            "identifier": [IDENTIFIER],
            "name": "Read HR",
            "validFrom": "2024-01-01",
            "validTo": "2024-12-31T23:59:59Z",
        },
        "capability with CodeableConcept name is valid": {"name": CC},
        "capability with unknown element is invalid": {"code": "x"},
    },
    "GrantAssignment": {
        "grant assignment with open period is valid": {
            "assignedTo": REF,
            "granted": [REF],
            "scope": [REF],
            "period": {"start": "2024-01-01"},
            "basis": CC,
            "givenBy": REF,
            "attribute": [{"code": "direct-only", "value": True}],
        },
        "grant assignment period without start is invalid": {"period": {"end": "2024-12-31"}},
        "grant assignment with unknown element is invalid": {"grantee": REF},
    },
    "FixedAsset": {
        "fixed asset with extra element is valid": {"identifier": [IDENTIFIER], "balance": 10},
        "fixed asset with identifier not an array is invalid": {"identifier": IDENTIFIER},
    },
    "AssetComponent": {
        "asset component with extra element is valid": {"parent": REF},
        "asset component with other resourceType is invalid": {"resourceType": "FixedAsset"},
    },
    "CostCenter": {
        "cost center with extra element is valid": {"partOf": REF, "period": {}},
        "cost center with string identifier is invalid": {"identifier": ["CC-1"]},
    },
    "FixedAssetAllocation": {
        "fixed asset allocation with extra element is valid": {
            "fixedAsset": REF,
            "target": REF,
            "participant": [REF],
            "dimension": CC,
            "share": 1,
        },
        "fixed asset allocation with target array is invalid": {"target": [REF]},
    },
    "FixedAssetDocument": {
        "fixed asset document with workflow attribute is valid": {
            "attachment": [{**ATTACHMENT, "attribute": [{"code": "workflow-status", "value": "ok"}]}]
        },
        "fixed asset document workflow attribute without value is invalid": {
            "attachment": [{"attribute": [{"code": "workflow-status"}]}]
        },
    },
    "DocumentReference": {
        "document reference with open position is valid": {
            "resourceType": "DocumentReference",
            "identifier": [IDENTIFIER],
            "space": CC,
            "issueDate": "2024-05-01",
            "participant": [REF],
            "basedOn": [REF],
            "type": CC,
            "position": [{"code": CC, "value": [{"valueReference": REF}], "sequence": 1}],
            "attachment": [ATTACHMENT],
        },
        "document reference with dateTime issueDate is invalid": {"issueDate": "2024-05-01T00:00:00Z"},
        "document reference with unknown element is invalid": {"content": []},
    },
    "Notification": {
        "notification with the four fields is valid": NOTIFICATION,
        "notification with identifier is invalid": {**NOTIFICATION, "identifier": [IDENTIFIER]},
        "notification with contained is invalid": {**NOTIFICATION, "contained": []},
        "notification without date is invalid": without(NOTIFICATION, "date"),
        "notification without id is invalid": without(NOTIFICATION, "id"),
        "notification reference without identifier is invalid": {
            **NOTIFICATION,
            "reference": {"type": "Party"},
        },
        "notification with other resourceType is invalid": {
            **NOTIFICATION,
            "resourceType": "Party",
        },
        "notification with unknown element is invalid": {**NOTIFICATION, "payload": {}},
    },
    "ReadEnvelope": {
        "empty envelope is valid": {"items": [], "nextToken": None},
        "envelope with nextToken string is valid": {"items": [{"id": "1"}], "nextToken": "abc"},
        "envelope without nextToken is invalid": {"items": []},
        "envelope with an element beyond items and nextToken is valid": {"items": [], "nextToken": None, "total": 0},
    },
    "ValueSetSummary": {
        "value set summary with null version is valid": {"url": "urn:vs", "version": None},
        "value set summary without version is invalid": {"url": "urn:vs"},
    },
    "ReportOrder": {
        "report order without reportId is valid": ORDER,
        "report order with every field is valid": {
            **ORDER,
            "reportId": "cost-calculation",
            "groupId": "g",
            "compression": True,
            "parameters": {"CompanyTaxNo": "5260250274", "Year": "2024", "Month": "5"},
        },
        "report order without publicKeyPem is invalid": without(ORDER, "publicKeyPem"),
        # the PEM is checked by the profile rule public-key-pem (profiles/report_rules.py), not the schema
        "report order with key without PEM header is valid": {**ORDER, "publicKeyPem": "MIIC"},
        "report order with format xlsx is invalid": {**ORDER, "format": "xlsx"},
        # runAt is checked by the profile rule utc-datetime (profiles/report_rules.py), not the schema
        "report order with non-ISO runAt is valid": {**ORDER, "runAt": "2024-05-01 00:00"},
        "report order with storage type ftp is invalid": {
            **ORDER,
            "storage": {"type": "ftp", "connectionString": "x"},
        },
        "report order storage without connectionString is invalid": {
            **ORDER,
            "storage": {"type": "local"},
        },
        "report order with integer parameter value is invalid": {
            **ORDER,
            "parameters": {"Year": 1},
        },
        "report order with unknown field is invalid": {**ORDER, "priority": 1},
    },
    "ReportAccepted": {
        "report accepted with both fields is valid": {
            "executionId": "e",
            "encryptedSessionKey": "AA==",
        },
        "report accepted without session key is invalid": {"executionId": "e"},
        "report accepted with non-base64 key is invalid": {
            "executionId": "e",
            "encryptedSessionKey": "A",
        },
    },
    "ProblemDetails": {
        "problem details with extension member is valid": {
            "type": "https://www.rfc-editor.org/rfc/rfc9110#status.400",
            "title": "Bad Request",
            "status": 400,
            "detail": "publicKeyPem is missing",
            "traceId": "t-1",
        },
        "problem details with status 600 is invalid": {"status": 600},
        "problem details with string status is invalid": {"status": "400"},
    },
    "WriteMessage": {
        "write message is valid": {"message": "accepted"},
        "write message without message is invalid": {},
        "write message with an element beyond message is valid": {"message": "ok", "id": "1"},
    },
}


@pytest.mark.parametrize(("target", "fact"), [pytest.param(t, f, id=f) for t, cases in EXAMPLES.items() for f in cases])
def test_example(target, fact):
    instance, valid = EXAMPLES[target][fact], fact.endswith(" is valid")
    assert valid or fact.endswith(" is invalid"), "the name must state the verdict"
    python_engine, rust_engine = validators(target)
    assert python_engine.is_valid(instance) is valid, list(python_engine.iter_errors(instance))
    assert rust_engine.is_valid(instance) is valid, "jsonschema-rs disagrees"


def test_every_schema_has_a_valid_and_an_invalid_example():
    verdicts = {
        (target.partition("#")[0], fact.endswith(" is valid")) for target, cases in EXAMPLES.items() for fact in cases
    }
    assert {(name, valid) for name in SCHEMAS for valid in (True, False)} <= verdicts
