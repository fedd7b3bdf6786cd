"""Write bodies of the operations of `schemas/openapi.json` (POST and PATCH), each drawn for the
writable profile the operation takes and the identifiers the service assigns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.identifiers import is_installation, own_namespaces, values_of
from conformance.generation.strategies.primitives import base64_data, tokens
from conformance.generation.strategies.reports import report_order
from conformance.generation.strategies.resources import IdentifierPolicy, payloads
from profiles import Contract
from profiles.openapi_index import openapi_document
from profiles.validator import RESOURCE, WRITE

_WRITE_METHODS = ("post", "patch", "put")
_SOURCE_SYSTEM_REJECTION = "422"


@dataclass(frozen=True)
class WriteOperation:
    """A write of the contract as `openapi.json` describes it."""

    operation_id: str
    method: str
    path: str
    resource_type: str
    profile: str | None
    success_status: int
    query_parameters: tuple[str, ...]
    """Query parameters the operation requires (the resource a PATCH changes)."""
    may_be_rejected_by_source: bool
    """The operation answers 422 when the source system rejects the document."""
    context: str
    """The validator context of the body: a write of a writable resource type, else (a report order)
    the body checked as itself."""

    @property
    def creates(self) -> bool:
        return self.method == "POST"


@cache
def _openapi() -> dict[str, Any]:
    return openapi_document()


def write_operations(contract: Contract) -> tuple[WriteOperation, ...]:
    """Every POST and PATCH of `openapi.json`, with the profile each takes: the only writable profile of
    its resource type, or the writable profile its request body's description names."""
    found = []
    for path, operations in _openapi()["paths"].items():
        for method, operation in operations.items():
            if method not in _WRITE_METHODS:
                continue
            body = operation["requestBody"]
            resource_type = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
            found.append(
                WriteOperation(
                    operation_id=operation["operationId"],
                    method=method.upper(),
                    path=path,
                    resource_type=resource_type,
                    profile=_written_profile(contract, resource_type, body.get("description", "")),
                    success_status=min(int(code) for code in operation["responses"] if code.startswith("2")),
                    query_parameters=tuple(
                        p["name"]
                        for p in operation.get("parameters", [])
                        if p.get("in") == "query" and p.get("required")
                    ),
                    may_be_rejected_by_source=_SOURCE_SYSTEM_REJECTION in operation["responses"],
                    context=WRITE if contract.resources[resource_type].writable else RESOURCE,
                )
            )
    return tuple(found)


def _written_profile(contract: Contract, resource_type: str, description: str) -> str | None:
    writable = [p.name for p in contract.profiles_of(resource_type) if p.writable]
    if len(writable) <= 1:
        return writable[0] if writable else None
    named = [name for name in writable if name in description]
    if len(named) != 1:
        raise ValueError(f"cannot tell which of {writable} the write of {resource_type} takes: {description!r}")
    return named[0]


def write_operation(contract: Contract, operation_id: str) -> WriteOperation:
    for operation in write_operations(contract):
        if operation.operation_id == operation_id:
            return operation
    known = ", ".join(o.operation_id for o in write_operations(contract))
    raise ValueError(f"{operation_id!r} is not a write of openapi.json; writes: {known}")


def _names_its_target(contract: Contract, operation: WriteOperation) -> bool:
    """The body itself says which resource it changes (an `identifier` the write rules require)."""
    if operation.creates or operation.profile is None:
        return False
    return any(
        spec["rule"] == "required" and spec["path"] == "" and spec["element"] == "identifier"
        for spec in contract.profiles[operation.profile].rules
        if WRITE in spec.get("contexts", (WRITE,))
    )


def _default_target(contract: Contract, operation: WriteOperation) -> st.SearchStrategy[dict[str, str]]:
    profiles = [contract.profiles[operation.profile]] if operation.profile else []
    namespaces = [ns for ns in own_namespaces(contract, operation.resource_type, profiles) if is_installation(ns)]
    return st.sampled_from(namespaces).flatmap(
        lambda ns: values_of(ns).map(lambda value: {"system": ns.system, "value": value})
    )


def _with_content(body: dict[str, Any], attachment: dict[str, Any]) -> dict[str, Any]:
    return {**body, "attachment": [attachment, *body.get("attachment", [])]}


def valid_write(
    contract: Contract,
    operation: str | WriteOperation,
    *,
    target: Mapping[str, str] | st.SearchStrategy[Mapping[str, str]] | None = None,
    **report_options: Any,
) -> st.SearchStrategy[dict[str, Any]]:
    """Bodies of the write `operation` (an operationId of openapi.json, e.g. "createParty") that the
    validator accepts as a write of the profile the operation takes.

    Creates leave the value of the identifier the service assigns out (at most one such identifier).
    `target`: the identifier of the resource a write changes, for writes whose body names it
    (updateDocumentReference); default: a value drawn in the type's own namespace. Writes addressed
    by query parameters (updateParty, updateFixedAssetDocument) take their target in the query.
    A write the source system may reject (createDocumentReference) carries content: an attachment
    holding data. `report_options` go to `report_order` for orderReport."""
    chosen = operation if isinstance(operation, WriteOperation) else write_operation(contract, operation)
    if chosen.resource_type == "ReportOrder":
        return report_order(contract, **report_options)
    if report_options:
        raise TypeError(f"{chosen.operation_id} takes no report options: {', '.join(report_options)}")
    names_target = _names_its_target(contract, chosen)
    if target is not None and not names_target:
        raise ValueError(f"{chosen.operation_id} is addressed by {', '.join(chosen.query_parameters)}, not by its body")
    profiles = [contract.profiles[chosen.profile]] if chosen.profile else []
    assigned = tuple(
        ns.key
        for ns in own_namespaces(contract, chosen.resource_type, profiles)
        if chosen.creates and is_installation(ns)
    )

    targets = None
    if names_target:
        if isinstance(target, st.SearchStrategy):
            targets = target
        else:
            targets = st.just(target) if target is not None else _default_target(contract, chosen)
    policy = IdentifierPolicy(assigned=assigned, target=targets)
    drawn = payloads(contract, chosen.resource_type, profile=chosen.profile, context=WRITE, identifiers=policy)
    if chosen.may_be_rejected_by_source:
        # the source system (the HR inbox) rejects a document without content; a body meant to be
        # accepted carries a scan
        scans = st.fixed_dictionaries({"contentType": tokens(), "data": base64_data(min_bytes=1)})
        drawn = st.builds(_with_content, drawn, scans)
    return drawn
