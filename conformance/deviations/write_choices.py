"""Deviations of writes and of served forms the contract leaves open: null for an element with no value, a write
namespace other than the profile's default; and the faults that only a suite exercising them catches (a namespace
a POST names ignored, a POST that updates by NIP, a PESEL kept outside {pesel_system})."""

from __future__ import annotations

from functools import cache
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    json_of,
    on_startup,
    path_is,
    resources_in,
    rewrite_json_answer,
    rewrite_json_body,
    rewrite_notifications,
)
from reference_impl.problems import problem
from reference_impl.state import SERVICE
from reference_impl.writes import updated_party

PARTIES = "/v1/parties"

# -- null for an element without a value: Java's and .NET's serialisers write every field of a class -----------


@cache
def _elements(schema_name: str) -> tuple[tuple[tuple[str, str | None], ...], frozenset[str]]:
    """The elements a schema of schemas/ names, through its $ref chain, each with the schema file its values take
    (None when not a single other file), and the elements it requires. An element whose schema is false (a
    Notification has no identifier) is not one."""
    from schemas import load_schemas

    documents = load_schemas()
    elements: dict[str, str | None] = {}
    forbidden: set[str] = set()
    required: set[str] = set()
    name: str | None = schema_name
    while name is not None and name in documents:
        schema = documents[name]
        for element, subschema in (schema.get("properties") or {}).items():
            if element in elements or element in forbidden:
                continue  # the type's own schema decides over its base's
            if subschema is False:
                forbidden.add(element)
            else:
                elements[element] = _file_of(subschema)
        required |= set(schema.get("required") or ())
        name = _file_of(schema)
    return tuple(elements.items()), frozenset(required)


def _file_of(schema: Any) -> str | None:
    """The schema file that `schema`, or the items of an array it describes, refers to."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("items"), dict):
        schema = schema["items"]
    reference = schema.get("$ref")
    return reference.removesuffix(".schema.json") if isinstance(reference, str) and "#" not in reference else None


def _nulls_for_absent(value: dict[str, Any], schema_name: str, *, depth: int) -> None:
    """Null for each element of `value` that its schema names, does not require, and `value` does not have; and, one
    level down, the same inside the optional elements it has (never inside an element the contract requires)."""
    elements, required = _elements(schema_name)
    for element, element_schema in elements:
        if element in required:
            continue
        if element not in value:
            value[element] = None
        elif depth > 0 and element_schema is not None:
            present = value[element]
            for inner in present if isinstance(present, list) else [present]:
                if isinstance(inner, dict):
                    _nulls_for_absent(inner, element_schema, depth=depth - 1)


def with_nulls_for_absent(resource: dict[str, Any]) -> dict[str, Any]:
    resource_type = resource.get("resourceType")
    if isinstance(resource_type, str):
        _nulls_for_absent(resource, resource_type, depth=1)
    return resource


@deviation(
    "null-for-absent-elements",
    "every served resource carries null for each optional element it has no value for (comment, number, partOf, "
    "owner, description, validTo, issueDate...), at its top level and inside its optional elements, in the answers "
    "of reads and writes and in pushed notifications; a null in a write body is read as the element left out",
)
def null_for_absent_elements(app: web.Application, settings: Any) -> None:
    def served(body: Any, request: web.Request, status: int) -> Any:
        if 200 <= status < 300:
            for resource in resources_in(body):
                with_nulls_for_absent(resource)
        return body

    rewrite_json_answer(app, lambda r: r.path.startswith("/v1/") and r.path != "/v1/reports", served)
    rewrite_notifications(app, lambda notification, app: with_nulls_for_absent(notification))


# -- the namespace of a write: "If present it selects the installation that registers the party" ----------------


@deviation(
    "write-namespace-ignored",
    "POST /v1/parties with a namespace other than the profile's default registers the party in the default "
    "namespace anyway",
    breaks="ERIS-PARTY-013",
)
def write_namespace_ignored(app: web.Application, settings: Any) -> None:
    def to_the_default(body: dict[str, Any], request: web.Request) -> dict[str, Any]:
        contract = request.app[SERVICE].contract
        default = contract.namespace_systems("contractor")[0]
        contractor = {
            system
            for key in contract.profiles["Contractor"].identifier_namespaces
            for system in contract.namespace_systems(key)
        }
        for identifier in body.get("identifier") or []:
            if isinstance(identifier, dict) and identifier.get("system") in contractor - {default}:
                identifier["system"] = default
        return body

    rewrite_json_body(app, path_is("POST", PARTIES), to_the_default)


@deviation(
    "post-copy-namespace-registered-in-the-register",
    "POST /v1/parties naming the warehouse-copy namespace of Contractors is accepted, and the party registered in the "
    "accounting register instead (a second register still registers it there)",
    breaks="ERIS-PARTY-013",
)
def post_copy_namespace_registered_in_the_register(app: web.Application, settings: Any) -> None:
    def to_the_register(body: dict[str, Any], request: web.Request) -> dict[str, Any]:
        contract = request.app[SERVICE].contract
        copies = set(contract.namespace_systems("contractor-warehouse"))
        for identifier in body.get("identifier") or []:
            if isinstance(identifier, dict) and identifier.get("system") in copies:
                identifier["system"] = contract.namespace_systems("contractor")[0]
        return body

    rewrite_json_body(app, path_is("POST", PARTIES), to_the_register)


@deviation(
    "party-posts-refuse-the-copy-and-known-numbers",
    "POST /v1/parties naming the warehouse-copy namespace answers 422 (parties are registered in the accounting "
    "registers only), and one carrying a NIP or REGON that an existing party holds answers 409",
)
def party_posts_refuse_the_copy_and_known_numbers(app: web.Application, settings: Any) -> None:
    async def refuse(request: web.Request, handler: Handler) -> web.StreamResponse:
        body = await json_of(request) if path_is("POST", PARTIES)(request) else None
        if not isinstance(body, dict):
            return await handler(request)
        service = request.app[SERVICE]
        values = service.contract.installation.values
        copies = set(service.contract.namespace_systems("contractor-warehouse"))
        numbers = {values["nip_system"], values["regon_system"]}
        for identifier in [i for i in body.get("identifier") or [] if isinstance(i, dict)]:
            system, value = identifier.get("system"), identifier.get("value")
            if system in copies:
                return problem(422, f"parties are not registered in {system}, the warehouse copy of contractor ids")
            if system in numbers and isinstance(value, str) and value:
                conditions = service.queries.conditions("Party", {"identifier": [f"{system}|{value}"]})
                if service.store.search("Party", conditions, count=1):
                    return problem(409, f"a party with {system}|{value} exists: PATCH it")
        return await handler(request)

    add_middleware(app, refuse)


# -- POST always creates: "Updating an existing one is PATCH only" -----------------------------------------------


@deviation(
    "post-party-upserts-by-nip",
    "POST /v1/parties whose body carries the NIP of an existing party updates that party (and answers it) instead of "
    "creating a new one; other identifiers of a body change nothing",
    breaks="ERIS-PARTY-014",
)
def post_party_upserts_by_nip(app: web.Application, settings: Any) -> None:
    async def upsert(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not path_is("POST", PARTIES)(request):
            return await handler(request)
        body = await json_of(request)
        service = request.app[SERVICE]
        nip = service.contract.installation.values["nip_system"]
        numbers = [
            f"{nip}|{i['value']}"
            for i in (body.get("identifier") or [] if isinstance(body, dict) else [])
            if isinstance(i, dict) and i.get("system") == nip and isinstance(i.get("value"), str) and i["value"]
        ]
        if not numbers or not isinstance(body, dict):
            return await handler(request)
        found = service.store.search("Party", service.queries.conditions("Party", {"identifier": numbers[:1]}), count=1)
        if not found:
            return await handler(request)
        party = updated_party(service, found[0], body)  # the merge of the service's own PATCH
        with service.store.transaction():
            service.save(party, "updated")
        return web.json_response(party)

    add_middleware(app, upsert)


# -- the PESEL namespace: "{pesel_system} (PESEL, Employee)" ------------------------------------------------------


@deviation(
    "employee-pesel-in-a-vendor-system",
    "Employees keep (and serve) their PESEL in system https://vendor.example/pesel, not in {pesel_system}: what a "
    "target description naming the wrong pesel_system looks like",
    breaks="ERIS-PARTY-008",
)
def employee_pesel_in_a_vendor_system(app: web.Application, settings: Any) -> None:
    def moved(app: web.Application) -> None:
        service = app[SERVICE]
        pesel = service.contract.installation.values["pesel_system"]
        employee = service.contract.profiles["Employee"].url
        employees = service.store.search("Party", service.queries.conditions("Party", {"profile": [employee]}))
        for party in employees:
            for identifier in party.get("identifier") or []:
                if isinstance(identifier, dict) and identifier.get("system") == pesel:
                    identifier["system"] = "https://vendor.example/pesel"
        service.load(employees)

    on_startup(app, moved)
