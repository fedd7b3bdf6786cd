"""Filters whose value form the contract leaves open (conformance/suite/reads/test_filter_forms.py): faults that
the forms' checks must kill, and variants that serve the forms differently and must stay conformant.

Where the contract shows no meaning for a parameter's value (Location `contained`, the list's `format`), ignoring
it is no defect a check can see: the fault is then a value the target's own items show turned down with a 400."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    is_read,
    on_startup,
    path_is,
    resources_in,
    rewrite_json_answer,
)
from conformance.deviations.reads import ignore_filter
from reference_impl.problems import problem
from reference_impl.state import SERVICE

LOCATIONS = "/v1/locations"
ASSET_DOCUMENTS = "/v1/fixed-asset-documents"
DOCUMENT_CONTENT = "/v1/fixed-asset-documents/$document-content"
ROLE_SYSTEM = "https://erp.example.com/fhir/id/party-role"
"""The namespace of the variant's PartyRole identifiers: a vendor's own, no installation namespace."""


def _refused(app: web.Application, path: str, parameter: str) -> None:
    """GET `path` with `parameter` is answered 400, the parameter named."""

    async def refuse(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "GET" and request.path == path and parameter in request.query:
            return problem(400, f"parameter {parameter!r} is not supported", parameter=parameter)
        return await handler(request)

    add_middleware(app, refuse)


# -- faults ---------------------------------------------------------------------------------------------------


@deviation(
    "typed-attribute-filter-matches-strings-only",
    "GET /v1/locations?attribute=code|value finds only attributes whose value is a string: a number or a "
    "boolean attribute, filtered by its JSON text, finds nothing",
    breaks="ERIS-BASE-003",
)
def typed_attribute_filter_matches_strings_only(app: web.Application, settings: Any) -> None:
    def strings_only(body: Any, request: web.Request, status: int) -> Any:
        wanted = [value.partition("|")[::2] for value in request.query.getall("attribute", []) if "|" in value]
        if status != 200 or not wanted or not isinstance(body, dict) or not isinstance(body.get("items"), list):
            return body

        def holds(item: Any, code: str, value: str) -> bool:
            attributes = item.get("attribute") if isinstance(item, dict) else None
            return any(
                isinstance(a, dict) and a.get("code") == code and a.get("value") == value
                for a in (attributes if isinstance(attributes, list) else [])
            )

        body["items"] = [item for item in body["items"] if all(holds(item, code, value) for code, value in wanted)]
        return body

    rewrite_json_answer(app, path_is("GET", LOCATIONS), strings_only)


@deviation(
    "usage-filter-ignored",
    "GET /v1/naming-systems?usage=... answers every naming system, whatever their usage",
    breaks="ERIS-NS-001",
)
def usage_filter_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "NamingSystem", "usage")


@deviation(
    "contained-filter-refused",
    "GET /v1/locations?contained=... is answered 400, even for the system|value of a contained resource the "
    "locations show",
    breaks="ERIS-LOC-002",
)
def contained_filter_refused(app: web.Application, settings: Any) -> None:
    _refused(app, LOCATIONS, "contained")


@deviation(
    "format-filter-refused",
    "GET /v1/fixed-asset-documents?format=... is answered 400 for every value, blob and the attachments' types",
    breaks="ERIS-ASSET-010",
)
def format_filter_refused(app: web.Application, settings: Any) -> None:
    _refused(app, ASSET_DOCUMENTS, "format")


@deviation(
    "document-content-attribute-refused",
    "GET /v1/fixed-asset-documents/$document-content with attribute=code|value (schema|<schema>) is answered "
    "400, though the document carries that attribute",
    breaks="ERIS-ASSET-011",
)
def document_content_attribute_refused(app: web.Application, settings: Any) -> None:
    _refused(app, DOCUMENT_CONTENT, "attribute")


# -- variants -------------------------------------------------------------------------------------------------


def _typed(value: Any) -> Any:
    """A string that is the JSON text of a number or a boolean, as that number or boolean; else as it is."""
    if not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    # "0012" or "1e3" would not read back in the text they were stored in
    typed = isinstance(parsed, (bool, int, float)) and json.dumps(parsed) == value
    return parsed if typed else value


@deviation(
    "typed-attribute-values",
    "attribute values that are numbers or booleans are served as JSON numbers and booleans, not strings "
    '("typed extra fields"); a filter code|value matches them by their JSON text',
)
def typed_attribute_values(app: web.Application, settings: Any) -> None:
    def served(body: Any, request: web.Request, status: int) -> Any:
        for resource in resources_in(body):
            for attribute in resource.get("attribute") or []:
                if isinstance(attribute, dict) and "value" in attribute:
                    attribute["value"] = _typed(attribute["value"])
        return body

    rewrite_json_answer(app, is_read, served)


def _usage_objects(usage: Any, contract: Any) -> Any:
    """Each usage entry as an object: a profile's name as its resource type and profile URL, a type as itself."""
    if not isinstance(usage, list):
        return usage
    found = []
    for entry in usage:
        profile = contract.profiles.get(entry) if isinstance(entry, str) else None
        if profile is not None:
            found.append({"resourceType": profile.resource_type, "profile": profile.url})
        elif isinstance(entry, str):
            found.append({"resourceType": entry})
    return found


@deviation(
    "usage-as-objects",
    "NamingSystem usage is an array of objects such as {resourceType: Party, profile: <Contractor's URL>} and is "
    "filtered by their members (the shape of usage's items: not shown)",
)
def usage_as_objects(app: web.Application, settings: Any) -> None:
    def stored(app: web.Application) -> None:
        service = app[SERVICE]
        systems = service.store.search("NamingSystem", [])
        for system in systems:
            system["usage"] = _usage_objects(system.get("usage"), service.contract)
        service.load(systems)

    on_startup(app, stored)


@deviation(
    "participants-name-roles-of-their-own",
    "each PartyRole has an identifier of its own, in a vendor's role namespace, not its party's; document "
    "participants reference the role by it, and a participant filter by the party's identifier finds them",
)
def participants_name_roles_of_their_own(app: web.Application, settings: Any) -> None:
    def stored(app: web.Application) -> None:
        service = app[SERVICE]
        # keyed as a participant names a role: its system and value may be missing there
        renamed: dict[tuple[Any, Any], dict[str, str]] = {}
        roles = service.store.search("PartyRole", [])
        for role in roles:
            for identifier in role.get("identifier") or []:
                own = {"system": ROLE_SYSTEM, "value": f"R-{identifier['value']}"}
                renamed[(identifier["system"], identifier["value"])] = own
            role["identifier"] = [renamed[(i["system"], i["value"])] for i in role.get("identifier") or []]
        documents = service.store.search("DocumentReference", [])
        for document in documents:
            for participant in document.get("participant") or []:
                named = participant.get("identifier") if isinstance(participant, dict) else None
                if participant.get("type") == "PartyRole" and isinstance(named, dict):
                    participant["identifier"] = renamed.get((str(named.get("system")), str(named.get("value"))), named)
        service.load([*roles, *documents])

    on_startup(app, stored)
