"""The two reads of `eris serve` beside the resource lists: value sets (the terminology) and `$document-content`."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from serve_fixtures import (
    ALL,
    CONTRACT,
    EMPLOYER_NIP,
    VOCAB,
    RunningServer,
    assert_envelope,
    assert_problem,
    errors_of,
    identifier_value,
    ns,
    seed_by_id,
)
from serve_read_cases import CONTRACTOR_1, DOCUMENT_CONTENT_PATH, EMPLOYER_REGON, seed_ids

from profiles.contract import PROFILES_DIR

IMPLEMENTATION_DEFINED = {p.canonical_url for p in CONTRACT.profiles_of("ValueSet")}


# -- value sets ---------------------------------------------------------------------------------


def test_value_sets_without_url_list_url_and_version_of_every_set(server: RunningServer) -> None:
    items = assert_envelope(server.client.get("/v1/value-sets", params=ALL), None)
    assert sorted(item["url"] for item in items) == sorted(CONTRACT.value_set_resources)
    assert IMPLEMENTATION_DEFINED and {item["url"] for item in items} >= IMPLEMENTATION_DEFINED
    for item in items:
        assert set(item) == {"url", "version"}, item
        if item["url"] in IMPLEMENTATION_DEFINED:
            assert item["version"] is None, item
        else:
            assert isinstance(item["version"], str) and item["version"], item
            assert item["version"] == CONTRACT.value_set_resources[item["url"]]["version"]
        assert errors_of(item, "ValueSetSummary") == [], item
    default_page = assert_envelope(server.client.get("/v1/value-sets"), None)
    assert default_page == items[:20]


def _terminology_files() -> list[Path]:
    return sorted((PROFILES_DIR / "terminology").rglob("*.json"))


@pytest.mark.parametrize("path", _terminology_files(), ids=lambda p: str(p.relative_to(PROFILES_DIR / "terminology")))
@pytest.mark.parametrize("parameter", ["url", "system"])
def test_a_value_set_by_url_is_the_terminology_file_with_placeholders_filled(
    server: RunningServer, path: Path, parameter: str
) -> None:
    expected = CONTRACT.installation.substitute(json.loads(path.read_text(encoding="utf-8")))
    items = assert_envelope(server.client.get("/v1/value-sets", params={parameter: expected["url"]}), "ValueSet")
    assert items == [expected]
    assert re.search(r"\{[A-Za-z_][A-Za-z0-9_.-]*\}", json.dumps(items)) is None, "a placeholder was left unfilled"


@pytest.mark.parametrize(
    "params",
    [{"url": f"{VOCAB}/no-such-set"}, {"system": f"{VOCAB}/no-such-set"}, {"url": f"{VOCAB}/finance/document-type-x"}],
    ids=["url", "system", "near-miss"],
)
def test_an_unknown_value_set_is_a_404(server: RunningServer, params: dict[str, str]) -> None:
    assert_problem(server.client.get("/v1/value-sets", params=params), 404)


def test_an_implementation_defined_value_set_by_url_and_id(server: RunningServer) -> None:
    url = f"{VOCAB}/employment-type"
    expected = CONTRACT.value_set_resources[url]
    items = assert_envelope(server.client.get("/v1/value-sets", params={"url": url, "id": expected["id"]}), "ValueSet")
    assert items == [expected]
    assert items[0]["version"] is None


@pytest.mark.parametrize(
    ("parameter", "value"),
    [("owner", CONTRACTOR_1), ("status", f"{VOCAB}/party-status|deleted"), ("attribute", "no-such-code|x")],
)
def test_value_set_filters_of_implementation_defined_sets_restrict_the_answer(
    server: RunningServer, parameter: str, value: str
) -> None:
    response = server.client.get("/v1/value-sets", params={"url": f"{VOCAB}/employment-type", parameter: value})
    if response.status_code == 404:
        assert_problem(response, 404)
    else:
        assert assert_envelope(response, "ValueSet") == []


# -- $document-content --------------------------------------------------------------------------

WITH_CONTENT = seed_ids("FixedAssetDocument", lambda r: any(a.get("data") for a in r.get("attachment", [])))
WITHOUT_CONTENT = seed_ids("FixedAssetDocument", lambda r: not any(a.get("data") for a in r.get("attachment", [])))


def _document_identifier(document_id: str) -> str:
    return f"{ns('fixed-asset-document')}|{identifier_value(seed_by_id(document_id), ns('fixed-asset-document'))}"


def test_the_seed_has_documents_with_and_without_content() -> None:
    assert len(WITH_CONTENT) >= 2 and len(WITHOUT_CONTENT) >= 1


@pytest.mark.parametrize("document_id", WITH_CONTENT)
@pytest.mark.parametrize(
    "extra",
    [{}, {"owner": EMPLOYER_NIP}, {"format": "blob"}, {"owner": EMPLOYER_REGON}],
    ids=["plain", "owner", "blob", "regon"],
)
def test_document_content_has_exactly_one_attachment_with_base64_data(
    server: RunningServer, document_id: str, extra: dict[str, str]
) -> None:
    response = server.client.get(
        DOCUMENT_CONTENT_PATH, params={"identifier": _document_identifier(document_id), **extra}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert document["resourceType"] == "FixedAssetDocument" and document["id"] == document_id
    assert errors_of(document, "FixedAssetDocument") == []
    assert len(document["attachment"]) == 1
    attachment = document["attachment"][0]
    assert isinstance(attachment["contentType"], str) and attachment["contentType"]
    data = base64.b64decode(attachment["data"], validate=True)
    stored = next(a for a in seed_by_id(document_id)["attachment"] if a.get("data"))
    assert data == base64.b64decode(stored["data"]) and data
    assert attachment["contentType"] == stored["contentType"]
    if attachment["contentType"] == "application/pdf":
        assert data.startswith(b"%PDF-")


@pytest.mark.parametrize("document_id", WITHOUT_CONTENT)
def test_document_content_of_a_document_without_content_is_a_404(server: RunningServer, document_id: str) -> None:
    assert_problem(
        server.client.get(DOCUMENT_CONTENT_PATH, params={"identifier": _document_identifier(document_id)}), 404
    )


@pytest.mark.parametrize(
    "params",
    [
        {"identifier": f"{ns('fixed-asset-document')}|FAD-1999-9999"},
        {"identifier": f"{ns('document-reference')}|FAD-2023-0001"},
        {"identifier": f"{ns('fixed-asset-document')}|FAD-2023-0001", "owner": CONTRACTOR_1},
    ],
    ids=["unknown", "other-namespace", "other-owner"],
)
def test_document_content_of_an_unknown_document_is_a_404(server: RunningServer, params: dict[str, str]) -> None:
    assert_problem(server.client.get(DOCUMENT_CONTENT_PATH, params=params), 404)
