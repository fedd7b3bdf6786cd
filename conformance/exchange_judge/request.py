"""The client's side of an exchange: its query against the operation's parameters, the Authorization and
Content-Type that POST /v1/reports requires, and its body as the write (or the report order) the operation takes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from conformance.catalogue.operations import REPORTS
from conformance.exchange_judge.bodies import media_type, read_body
from conformance.exchange_judge.exchange import CLIENT, ExchangeFinding, HttpExchange, finding, found_in
from profiles.issues import Issue, Severity, pointer
from profiles.openapi_index import PAGING, Filter, Operation
from profiles.validator import RESOURCE, WRITE, Validator

__all__ = ["FILTERS_NOT_SHOWN", "request_findings"]

FILTERS_NOT_SHOWN = frozenset(
    {"/v1/fixed-assets", "/v1/asset-components", "/v1/cost-centers", "/v1/fixed-asset-allocations"}
)
"""Reads whose filters the contract leaves open: "Filter parameters of the fixed-asset, asset-component and
cost-center lists, and of the allocation list other than `category`: not shown." A parameter they do not list is the
installation's own, not the client's mistake."""
_PAIRED_KINDS = {"identifier": "system|value", "owner": "system|value", "reference": "system|value"}
_PAIRED_KINDS |= {"coded": "system|value", "attribute": "code|value"}
_PAIRED_NAMES = {"identifier": "system|value", "owner": "system|value"}
"""Parameters without a filter description whose form the contract still gives: PATCH's identifier (installation
namespace|value) and owner ({nip_system}|<NIP>), $document-content's identifier and owner (system|value)."""
FORM_REQUIREMENT = "ERIS-FILTER-004"
""""Filter parameters have the form system|value; for attribute the form is code|value.\""""
PAGING_REQUIREMENT = "ERIS-READ-002"
AUTHORIZATION_REQUIREMENT = "ERIS-AUTH-001"
"""POST /v1/reports: "Headers: Authorization: Bearer <ACCESS_TOKEN> (required); Content-Type: application/json
(required)". The catalogue has no requirement of its own for the Content-Type: that finding names none."""
_BODY_TYPES = {"Party": WRITE, "DocumentReference": WRITE, "FixedAssetDocument": WRITE, "ReportOrder": RESOURCE}
"""What a request body is validated as: the writes in the write context; the report order, which is no resource,
as itself."""


def request_findings(
    exchange: HttpExchange, operation: Operation, body_type: str | None, validator: Validator, requirement: str | None
) -> Iterator[ExchangeFinding]:
    yield from _query_findings(exchange, operation, requirement)
    if exchange.label == REPORTS:
        yield from _report_headers(exchange)
    if body_type is not None:
        yield from _body_findings(exchange, body_type, validator, requirement)


def _query_findings(exchange: HttpExchange, operation: Operation, requirement: str | None) -> Iterator[ExchangeFinding]:
    parameters = operation.query
    given = {name for name, _ in exchange.query}
    for name in operation.required:
        if name not in given:
            message = f"{exchange.label} requires the query parameter {name}, which is missing"
            yield finding(CLIENT, "query", "query-parameter-missing", message, requirement, pointer("", name))
    reported: set[str] = set()
    for name, value in exchange.query:
        where = pointer("", name)
        parameter = parameters.get(name)
        if parameter is None:
            if name not in reported:
                reported.add(name)
                yield _unknown(exchange, operation, name, requirement)
            continue
        if name in PAGING:
            if not (value.isascii() and value.isdigit()):
                message = f"{name}={value!r}: {name} is a whole number of 0 or more"
                yield finding(CLIENT, "query", "paging-out-of-range", message, PAGING_REQUIREMENT, where)
            continue
        form = _form(name, parameter.filter, parameters)
        if form is None or _paired(value):
            continue
        if parameter.filter is not None and parameter.filter.kind == "coded" and value and "|" not in value:
            # "Coded filters type and status are resolved against the vocabularies declared for the resource": a
            # bare code names none of them, which a service may or may not resolve
            message = f"{name}={value!r} is a bare code, not of the form {form}: the vocabulary is left to the service"
            yield finding(CLIENT, "query", "query-parameter-bare-code", message, FORM_REQUIREMENT, where)
            continue
        message = f"{name}={value!r} is not of the form {form}"
        yield finding(CLIENT, "query", "query-parameter-malformed", message, FORM_REQUIREMENT, where)


def _unknown(exchange: HttpExchange, operation: Operation, name: str, requirement: str | None) -> ExchangeFinding:
    known = ", ".join(operation.query) or "none"
    message = f"{exchange.label} has no query parameter {name} (its parameters: {known})"
    found = finding(CLIENT, "query", "query-parameter-unknown", message, requirement, pointer("", name))
    if operation.path not in FILTERS_NOT_SHOWN:
        return found
    issue = found.issue
    note = f"{message}; the contract does not show this list's filters"
    return ExchangeFinding(found.side, found.part, Issue(Severity.INFORMATION, issue.code, issue.location, note))


def _form(name: str, described: Filter | None, parameters: Mapping[str, object]) -> str | None:
    if described is not None and described.kind == "alias" and described.of in parameters:
        return None  # another name of a parameter: value sets' system is url's, a plain string
    if described is not None:
        return _PAIRED_KINDS.get(described.kind)
    return _PAIRED_NAMES.get(name)


def _paired(value: str) -> bool:
    system, bar, rest = value.partition("|")
    return bool(bar and system and rest)


def _report_headers(exchange: HttpExchange) -> Iterator[ExchangeFinding]:
    authorization = exchange.request_headers.get("authorization", "")
    if not authorization.lower().startswith("bearer ") or not authorization[7:].strip():
        message = "POST /v1/reports requires Authorization: Bearer <ACCESS_TOKEN>" + (
            f"; the request has Authorization {authorization.split(' ', 1)[0]!r}" if authorization else ""
        )
        yield finding(CLIENT, "request headers", "authorization-missing", message, AUTHORIZATION_REQUIREMENT)
    sent = media_type(exchange.request_headers)
    if sent != "application/json":
        message = f"POST /v1/reports requires Content-Type: application/json, not {sent or 'none'}"
        yield finding(CLIENT, "request headers", "request-content-type", message, None)


def _body_findings(
    exchange: HttpExchange, body_type: str, validator: Validator, requirement: str | None
) -> Iterator[ExchangeFinding]:
    if not exchange.request_body_complete:
        message = f"the request body ({body_type}) was not recorded whole: it is not judged"
        yield finding(CLIENT, "request body", "body-not-recorded", message, None)
        return
    if not exchange.request_body.strip():
        message = f"{exchange.label} takes a body ({body_type}); the request has none"
        yield finding(CLIENT, "request body", "request-body-missing", message, requirement)
        return
    read = read_body(exchange.request_body, exchange.request_headers)
    if read.data is None:
        yield finding(CLIENT, "request body", "body-encoding-unread", f"the request body: {read.problem}", None)
        return
    document, problem = read.json()
    if problem is not None:
        message = f"the request body is not JSON: {problem}"
        yield finding(CLIENT, "request body", "request-not-json", message, "ERIS-GEN-001")
        return
    context = _BODY_TYPES[body_type]
    for issue in validator.validate(document, resource_type=body_type, context=context):
        yield found_in(CLIENT, "request body", issue, requirement=requirement)
