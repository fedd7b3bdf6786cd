"""Faults of the shape of what reads serve: an element of the wrong type, a code outside its value set, a
reference by the wrong key. Each is the kind of mapping bug an ERP adapter ships, breaking the one requirement
that fixes the element; the validator, through the suite's reads, must report it there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import as_object, resources_in, rewrite_json_answer
from reference_impl.state import SERVICE

Change = Callable[[dict[str, Any], Any], None]
"""change(resource, contract): alter one served resource in place."""


def _serve_changed(app: web.Application, resource_types: set[str], change: Change) -> None:
    """Every resource of `resource_types` in an answer under /v1/ is served as `change` makes it."""

    def rewrite(body: Any, request: web.Request, status: int) -> Any:
        if status == 200:
            contract = request.app[SERVICE].contract
            for resource in resources_in(body):
                if resource.get("resourceType") in resource_types:
                    change(resource, contract)
        return body

    rewrite_json_answer(app, lambda request: request.path.startswith("/v1/"), rewrite)


def _codings(element: Any) -> list[dict[str, Any]]:
    concepts = element if isinstance(element, list) else [element]
    return [
        c
        for concept in concepts
        if isinstance(concept, dict)
        for c in concept.get("coding") or []
        if isinstance(c, dict)
    ]


def _vocab(contract: Any) -> str:
    return str(contract.installation.values["vocab_url"])


# -- the common base and the shared types ----------------------------------------------------------------------


@deviation(
    "owner-as-bare-nip",
    "the owner of every capability is served as the bare NIP string, not a Reference to the Party",
    breaks="ERIS-BASE-002",
)
def owner_as_bare_nip(app: web.Application, settings: Any) -> None:
    def bare(owner: Any) -> Any:
        identifier = owner.get("identifier") if isinstance(owner, dict) else None
        return str(identifier.get("value")) if isinstance(identifier, dict) else owner

    def change(resource: dict[str, Any], contract: Any) -> None:
        resource["owner"] = [bare(owner) for owner in resource.get("owner") or []]

    _serve_changed(app, {"Capability"}, change)


@deviation(
    "attributes-as-name-value-pairs",
    "attribute[] of parties is served as {name, value} pairs (the code under another name)",
    breaks="ERIS-BASE-003",
)
def attributes_as_name_value_pairs(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for attribute in resource.get("attribute") or []:
            if isinstance(attribute, dict) and "code" in attribute:
                attribute["name"] = attribute.pop("code")

    _serve_changed(app, {"Party"}, change)


@deviation(
    "identifier-system-a-bare-key",
    "capabilities name their identifier system by the bare namespace key (capability), not by its URI",
    breaks="ERIS-TYPE-001",
)
def identifier_system_a_bare_key(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for identifier in resource.get("identifier") or []:
            if isinstance(identifier, dict):
                identifier["system"] = "capability"

    _serve_changed(app, {"Capability"}, change)


# -- Party ----------------------------------------------------------------------------------------------------


@deviation(
    "party-name-as-text",
    "Party.name is served as a plain string, not a CodeableConcept",
    breaks="ERIS-PARTY-001",
)
def party_name_as_text(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        name = resource.get("name")
        if isinstance(name, dict):
            displays = [c.get("display") for c in name.get("coding") or [] if isinstance(c, dict) and c.get("display")]
            resource["name"] = displays[0] if displays else "?"

    _serve_changed(app, {"Party"}, change)


@deviation(
    "employees-without-kind",
    "Employees are served without meta.profile and without their party-kind category (the profile schemas "
    "require category)",
    breaks="ERIS-PARTY-002",
)
def employees_without_kind(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        meta = as_object(resource.get("meta"))
        if any(str(url).endswith("/Employee") for url in meta.get("profile") or []):
            meta.pop("profile", None)
            resource.pop("category", None)

    _serve_changed(app, {"Party"}, change)


@deviation(
    "party-type-supplier",
    "Contractors are served with type 'supplier' of party-type, a code outside the required value set",
    breaks="ERIS-PARTY-004",
)
def party_type_supplier(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for coding in _codings(resource.get("type")):
            if str(coding.get("system", "")).endswith("/party-type"):
                coding["code"] = "supplier"

    _serve_changed(app, {"Party"}, change)


@deviation(
    "party-kind-customer",
    "parties carry a second category coding 'customer' in the party-kind system, a code outside the value set",
    breaks="ERIS-PARTY-005",
)
def party_kind_customer(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        if isinstance(resource.get("category"), list):
            resource["category"].append({"coding": [{"system": f"{_vocab(contract)}/party-kind", "code": "customer"}]})

    _serve_changed(app, {"Party"}, change)


@deviation(
    "party-attribute-type-crm",
    "party attributes are served with codes as Codings of party-attribute-type, with 'crm', a code outside it",
    breaks="ERIS-PARTY-006",
)
def party_attribute_type_crm(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        system = f"{_vocab(contract)}/party-attribute-type"
        resource["attribute"] = [
            *(resource.get("attribute") or []),
            {"code": {"system": system, "code": "crm"}, "value": "1"},
        ]

    _serve_changed(app, {"Party"}, change)


# -- locations, value sets, access ----------------------------------------------------------------------------


@deviation(
    "usage-place-category-underscored",
    "usage places carry the category usage_place (underscored), not usage-place of assets/location-category",
    breaks="ERIS-LOC-001",
)
def usage_place_category_underscored(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for coding in _codings(resource.get("category")):
            if coding.get("code") == "usage-place":
                coding["code"] = "usage_place"

    _serve_changed(app, {"Location"}, change)


@deviation(
    "value-set-concepts-as-strings",
    "ValueSet.compose.include[].concept is served as a list of bare codes, not of {code, display}",
    breaks="ERIS-VS-001",
)
def value_set_concepts_as_strings(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for include in (resource.get("compose") or {}).get("include") or []:
            if isinstance(include, dict) and isinstance(include.get("concept"), list):
                include["concept"] = [c.get("code") if isinstance(c, dict) else c for c in include["concept"]]

    _serve_changed(app, {"ValueSet"}, change)


@deviation(
    "capability-valid-from-as-number",
    "Capability.validFrom is served as a number of days since 1970, not a date",
    breaks="ERIS-ACCESS-001",
)
def capability_valid_from_as_number(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        resource["validFrom"] = 19723

    _serve_changed(app, {"Capability"}, change)


@deviation(
    "grant-period-as-text",
    "GrantAssignment.period is served as one string (2024-01-01/..), not a Period {start, end}",
    breaks="ERIS-ACCESS-002",
)
def grant_period_as_text(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        period = resource.get("period")
        if isinstance(period, dict):
            resource["period"] = f"{period.get('start', '')}/{period.get('end') or '..'}"

    _serve_changed(app, {"GrantAssignment"}, change)


# -- fixed assets and document envelopes ----------------------------------------------------------------------


@deviation(
    "asset-documents-draft",
    "open fixed-asset documents are served with status 'draft', a code outside open, closed, posted",
    breaks="ERIS-ASSET-001",
)
def asset_documents_draft(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for coding in _codings(resource.get("status")):
            if coding.get("code") == "open":
                coding["code"] = "draft"

    _serve_changed(app, {"FixedAssetDocument"}, change)


@deviation(
    "allocation-target-as-text",
    "FixedAssetAllocation.target is served as the cost center's code (a string), not a Reference",
    breaks="ERIS-ASSET-002",
)
def allocation_target_as_text(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        target = resource.get("target")
        if isinstance(target, dict):
            identifier = as_object(target.get("identifier"))
            resource["target"] = str(identifier.get("value", target.get("display", "?")))

    _serve_changed(app, {"FixedAssetAllocation"}, change)


@deviation(
    "allocation-category-as-one-object",
    "FixedAssetAllocation.category is served as one CodeableConcept object, not an array of them (the category "
    "filter still selects by it)",
    breaks="ERIS-ASSET-002",
)
def allocation_category_as_one_object(app: web.Application, settings: Any) -> None:
    # met in the field: the category filter's own test failed on the shape too, though every allocation the
    # filter answered carried the category asked for
    def change(resource: dict[str, Any], contract: Any) -> None:
        category = resource.get("category")
        if isinstance(category, list) and len(category) == 1:
            resource["category"] = category[0]

    _serve_changed(app, {"FixedAssetAllocation"}, change)


@deviation(
    "fixed-assets-with-cost-center",
    "fixed assets carry a direct costCenter reference (the contract: no direct fields for location, cost center "
    "or responsible person)",
    breaks="ERIS-ASSET-005",
)
def fixed_assets_with_cost_center(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        system = contract.installation_namespace_key("cost-center")
        resource["costCenter"] = {"type": "CostCenter", "identifier": {"system": system, "value": "CC-1"}}

    _serve_changed(app, {"FixedAsset"}, change)


@deviation(
    "components-without-parent",
    "asset components are served without the reference to their parent fixed asset",
    breaks="ERIS-ASSET-006",
)
def components_without_parent(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        fixed_asset = contract.installation_namespace_key("fixed-asset")
        for name in list(resource):
            value = resource[name]
            if name != "owner" and fixed_asset in json.dumps(value):
                del resource[name]

    _serve_changed(app, {"AssetComponent"}, change)


@deviation(
    "document-issue-date-as-number",
    "DocumentReference.issueDate is served as a number (20250114), not an ISO 8601 date string",
    breaks="ERIS-DOC-001",
)
def document_issue_date_as_number(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        issued = resource.get("issueDate")
        if isinstance(issued, str) and issued[:10].replace("-", "").isdigit():
            resource["issueDate"] = int(issued[:10].replace("-", ""))

    _serve_changed(app, {"DocumentReference"}, change)


@deviation(
    "document-space-as-text",
    "DocumentReference.space is served as the bare code hr, not a CodeableConcept of document-space",
    breaks="ERIS-DOC-003",
)
def document_space_as_text(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        codes = [c.get("code") for c in _codings(resource.get("space"))]
        if codes:
            resource["space"] = codes[0]

    _serve_changed(app, {"DocumentReference"}, change)


@deviation(
    "warehouse-documents-categorised-warehouse",
    "warehouse documents carry the category code warehouse, not warehouse-document, so no profile of theirs "
    "is recognised",
    breaks="ERIS-DOC-002",
)
def warehouse_documents_categorised_warehouse(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for coding in _codings(resource.get("category")):
            if coding.get("code") == "warehouse-document":
                coding["code"] = "warehouse"

    _serve_changed(app, {"DocumentReference"}, change)


@deviation(
    "workflow-data-on-the-document",
    "fixed-asset documents serve their workflow data (workflow-status, -link, -system) in the document's own "
    "attribute[], not in attachment[].attribute[]",
    breaks="ERIS-ASSET-003",
)
def workflow_data_on_the_document(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for attachment in resource.get("attachment") or []:
            moved = [a for a in attachment.get("attribute") or [] if str(a.get("code", "")).startswith("workflow-")]
            if moved:
                attachment["attribute"] = [a for a in attachment["attribute"] if a not in moved]
                resource["attribute"] = [*(resource.get("attribute") or []), *moved]

    _serve_changed(app, {"FixedAssetDocument"}, change)


@deviation(
    "cost-center-ids-prefixed",
    "GET /v1/cost-centers serves each cost center's identifier value with a CC/ prefix, so the cost centers "
    "that allocations target are not among those served",
    breaks="ERIS-ASSET-008",
)
def cost_center_ids_prefixed(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        for identifier in resource.get("identifier") or []:
            if isinstance(identifier, dict) and isinstance(identifier.get("value"), str):
                identifier["value"] = f"CC/{identifier['value']}"

    _serve_changed(app, {"CostCenter"}, change)


@deviation(
    "employer-nip-served-in-a-vendor-system",
    "GET /v1/parties serves the NIP of the Employer in system https://vendor.example/nip, not the NIP namespace",
    breaks="ERIS-PARTY-008",
)
def employer_nip_served_in_a_vendor_system(app: web.Application, settings: Any) -> None:
    def change(resource: dict[str, Any], contract: Any) -> None:
        meta = as_object(resource.get("meta"))
        if any(str(url).endswith("/Employer") for url in meta.get("profile") or []):
            nip = contract.installation.values["nip_system"]
            for identifier in resource.get("identifier") or []:
                if isinstance(identifier, dict) and identifier.get("system") == nip:
                    identifier["system"] = "https://vendor.example/nip"

    _serve_changed(app, {"Party"}, change)
