"""Deviations of the data a target serves: codes of its own value sets, documents the contract's reads do not
list, list reads without attachment content; and the faults that only a suite reading those data catches."""

from __future__ import annotations

import base64
from typing import Any

from aiohttp import web
from multidict import MultiDict

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    json_of,
    on_startup,
    path_is,
    replace_body,
    resources_in,
    rewrite_json_answer,
    rewrite_query,
)
from conformance.deviations.reads import ignore_filter
from reference_impl.state import SERVICE

ALLOCATIONS = "/v1/fixed-asset-allocations"
ASSET_DOCUMENTS = "/v1/fixed-asset-documents"
DOCUMENT_CONTENT = "/v1/fixed-asset-documents/$document-content"
DOCUMENTS = "/v1/document-references"


def _vocab(contract: Any) -> str:
    return str(contract.installation.values["vocab_url"])


# -- allocation categories: the contract "names the category codes of allocations nowhere" --------------------

OWN_CATEGORY_SYSTEM = "urn:example:acme:CodeSystem/asset-allocation-kind"
OWN_CATEGORY_SET = "urn:example:acme:ValueSet/asset-allocation-kind"
OWN_CATEGORIES = {"LOK": "location", "MPK": "cost-center", "OOD": "responsible-person"}
"""The installation's own code -> the reference's (assets/allocation-category): a Polish ERP's lokalizacja,
miejsce powstawania kosztów, osoba odpowiedzialna."""
_DISPLAY = {"LOK": "Lokalizacja", "MPK": "Miejsce powstawania kosztów", "OOD": "Osoba odpowiedzialna"}
_UNKNOWN_CATEGORY = f"{OWN_CATEGORY_SYSTEM}|no-such-category"


def _own_categories(app: web.Application) -> None:
    """Allocations served and filtered under OWN_CATEGORIES only, published as the value set OWN_CATEGORY_SET."""

    def ours(request: web.Request) -> str:
        return f"{_vocab(request.app[SERVICE].contract)}/assets/allocation-category"

    def filtered_by_own(query: MultiDict[str], request: web.Request) -> MultiDict[str]:
        def mapped(value: str) -> str:
            system, bar, code = value.rpartition("|")
            known = code in OWN_CATEGORIES and (not bar or system == OWN_CATEGORY_SYSTEM)
            return f"{ours(request)}|{OWN_CATEGORIES[code]}" if known else _UNKNOWN_CATEGORY

        return MultiDict((k, mapped(v) if k == "category" else v) for k, v in query.items())

    async def translated(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "GET" and request.path == ALLOCATIONS:
            query = filtered_by_own(MultiDict(request.query), request)
            request = request.clone(rel_url=request.rel_url.with_query(query))
        return await handler(request)

    def served(body: Any, request: web.Request, status: int) -> Any:
        own_of = {reference: own for own, reference in OWN_CATEGORIES.items()}
        for resource in resources_in(body):
            if resource.get("resourceType") != "FixedAssetAllocation":
                continue
            for concept in resource.get("category") or []:
                for coding in (concept.get("coding") or []) if isinstance(concept, dict) else []:
                    code = coding.get("code") if isinstance(coding, dict) else None
                    if isinstance(code, str) and coding.get("system") == ours(request):
                        own = own_of.get(code, code)
                        coding.update(system=OWN_CATEGORY_SYSTEM, code=own, display=_DISPLAY.get(own, own))
        return body

    def publish(app: web.Application) -> None:
        concepts = [{"code": code, "display": _DISPLAY[code]} for code in OWN_CATEGORIES]
        value_set = {
            "resourceType": "ValueSet",
            "id": "asset-allocation-kind",
            "url": OWN_CATEGORY_SET,
            "version": "2024.1",
            "title": "Rodzaje przypisań środków trwałych",
            "compose": {"include": [{"system": OWN_CATEGORY_SYSTEM, "concept": concepts}]},
        }
        app[SERVICE].load([value_set])

    add_middleware(app, translated)
    rewrite_json_answer(app, path_is("GET", ALLOCATIONS), served)
    on_startup(app, publish)


@deviation(
    "allocation-categories-of-own-naming",
    "allocations carry categories of the installation's own codes and system (LOK, MPK, OOD), published in a "
    "value set of its own, and are filtered by them only (the contract names the category codes nowhere)",
)
def allocation_categories_of_own_naming(app: web.Application, settings: Any) -> None:
    _own_categories(app)


@deviation(
    "allocation-filter-ignores-own-categories",
    "with allocation categories of the installation's own naming, GET /v1/fixed-asset-allocations?category= "
    "answers every allocation for each of its own codes: the filter is ignored",
    breaks="ERIS-ASSET-007",
)
def allocation_filter_ignores_own_categories(app: web.Application, settings: Any) -> None:
    _own_categories(app)
    # the own codes reach the service as the reference's (see above); an unknown one still selects nothing
    ignore_filter(app, "FixedAssetAllocation", "category", lambda value: value != _UNKNOWN_CATEGORY)


# -- warehouse documents: the contract's GET /v1/document-references answers the HR inbox ----------------------


def _warehouse_document(app: web.Application) -> dict[str, str]:
    """A warehouse document of the seed, by its identifier: the one a vendor names in [data] warehouse_document."""
    service = app[SERVICE]
    profile = service.contract.profiles["WarehouseDocument"].url
    conditions = service.queries.conditions("DocumentReference", {"profile": [profile]})
    systems = set(service.contract.namespace_systems("document-reference"))
    for document in service.store.search("DocumentReference", conditions):
        for identifier in document.get("identifier") or []:
            if identifier.get("system") in systems and identifier.get("value"):
                return {"warehouse_document": f"{identifier['system']}|{identifier['value']}"}
    return {}  # no data seeded: the suite then says that [data] warehouse_document would exercise the PATCH


@deviation(
    "warehouse-documents-not-listed",
    "GET /v1/document-references answers HR inbox documents only (the contract's GET answers the HR inbox); "
    "warehouse documents are still changed by PATCH, and named to the suite in [data] warehouse_document",
    data=_warehouse_document,
)
def warehouse_documents_not_listed(app: web.Application, settings: Any) -> None:
    def hr_inbox_only(query: MultiDict[str]) -> MultiDict[str]:
        hr_inbox = app[SERVICE].contract.profiles["HrInboxDocument"].url
        return MultiDict([*query.items(), ("profile", hr_inbox)])  # two profiles: documents of both

    rewrite_query(app, path_is("GET", DOCUMENTS), hr_inbox_only)


# -- fixed-asset documents: content through $document-content -----------------------------------------------------


@deviation(
    "asset-document-lists-without-content",
    "list reads of fixed-asset documents carry their attachments without data (contentType, title and workflow "
    "data only); the content is read through $document-content",
)
def asset_document_lists_without_content(app: web.Application, settings: Any) -> None:
    def without_data(body: Any, request: web.Request, status: int) -> Any:
        for resource in resources_in(body):
            for attachment in resource.get("attachment") or []:
                if isinstance(attachment, dict):
                    attachment.pop("data", None)
        return body

    rewrite_json_answer(app, path_is("GET", ASSET_DOCUMENTS), without_data)


@deviation(
    "scan-added-as-new-attachment",
    "POST /v1/fixed-asset-documents of a scan for a known document adds the scan as a new attachment after the "
    "existing ones instead of replacing them (the contract fixes no order or number of attachments)",
)
def scan_added_as_new_attachment(app: web.Application, settings: Any) -> None:
    async def appended(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "POST" and request.path == ASSET_DOCUMENTS:
            body = await json_of(request)
            named = [
                f"{i['system']}|{i['value']}"
                for i in (body.get("identifier") or [] if isinstance(body, dict) else [])
                if isinstance(i, dict) and isinstance(i.get("system"), str) and isinstance(i.get("value"), str)
            ]
            if named and isinstance(body.get("attachment"), list):
                service = request.app[SERVICE]
                conditions = service.queries.conditions("FixedAssetDocument", {"identifier": named[:1]})
                known = service.store.search("FixedAssetDocument", conditions, count=1)
                if known:
                    body["attachment"] = [*(known[0].get("attachment") or []), *body["attachment"]]
                    replace_body(request, body)
        return await handler(request)

    add_middleware(app, appended)


@deviation(
    "document-content-every-attachment",
    "GET /v1/fixed-asset-documents/$document-content answers every attachment of the document that holds "
    "content, not exactly one (and the last document with content has a text rendition beside its scan)",
    breaks="ERIS-ASSET-011",
)
def document_content_every_attachment(app: web.Application, settings: Any) -> None:
    def with_rendition(app: web.Application) -> None:
        service = app[SERVICE]
        documents = service.store.search("FixedAssetDocument", [])
        document = [d for d in documents if any(a.get("data") for a in d.get("attachment") or [])][-1]
        text = f"{document['identifier'][0]['value']}: text rendition of the scan\n".encode()
        rendition = {"contentType": "text/plain; charset=utf-8", "data": base64.b64encode(text).decode()}
        service.load([{**document, "attachment": [*document["attachment"], rendition]}])

    def every_attachment(body: Any, request: web.Request, status: int) -> Any:
        if status != 200 or not isinstance(body, dict):
            return body
        service = request.app[SERVICE]
        conditions = service.queries.conditions("FixedAssetDocument", {"identifier": [request.query["identifier"]]})
        stored = service.store.search("FixedAssetDocument", conditions, count=1)
        held = [a for a in (stored[0].get("attachment") or []) if a.get("data")] if stored else []
        if held:
            body["attachment"] = [{"contentType": a["contentType"], "data": a["data"]} for a in held]
        return body

    on_startup(app, with_rendition)
    rewrite_json_answer(app, path_is("GET", DOCUMENT_CONTENT), every_attachment)


# -- NamingSystem: "the key, the actual system, and the reference key"; its member names are not shown ------------

OWN_NAMESPACE_KEYS = {
    "nip": "NIP-PL",
    "regon": "REGON-PL",
    "eu-vat": "VAT-UE",
    "pesel": "PESEL-PL",
    "contractor": "KONTRAHENT",
    "contractor-warehouse": "KONTRAHENT-MAGAZYN",
    "employee": "PRACOWNIK",
    "asset-holder": "POSIADACZ-SRODKA",
    "fixed-asset-document": "DOKUMENT-ST",
    "document-reference": "DOKUMENT",
    "capability": "UPRAWNIENIE",
    "fixed-asset": "SRODEK-TRWALY",
    "location": "LOKALIZACJA",
    "cost-center": "MPK",
}
"""The implementation's own words for its namespaces: none of them is a key of profiles/namespaces.json."""


@deviation(
    "naming-systems-of-own-shape",
    "GET /v1/naming-systems serves each namespace in a shape of its own: its key in the implementation's own words "
    "under `code`, the system inside `uniqueId[]`, the reference key as a yes/no named `usableInReferences`",
)
def naming_systems_of_own_shape(app: web.Application, settings: Any) -> None:
    def own_shape(item: dict[str, Any]) -> dict[str, Any]:
        kept: dict[str, Any] = {name: item[name] for name in ("resourceType", "id", "owner", "usage") if name in item}
        key = str(item.get("key"))
        return kept | {
            "code": OWN_NAMESPACE_KEYS.get(key, key),
            "title": item.get("name"),
            "uniqueId": [{"value": item.get("system")}],
            "usableInReferences": item.get("referenceKey"),
        }

    def served(body: Any, request: web.Request, status: int) -> Any:
        if status == 200 and isinstance(body, dict) and isinstance(body.get("items"), list):
            body["items"] = [own_shape(i) if isinstance(i, dict) else i for i in body["items"]]
        return body

    rewrite_json_answer(app, path_is("GET", "/v1/naming-systems"), served)
