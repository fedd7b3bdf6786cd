"""The server's side of an exchange, as far as the contract fixes it: the status among the operation's answers, the
Retry-After of a 429, the media type of an answer the contract shows, and its body: a list read's envelope and each
item as a served resource, a created or updated resource, the `{ message }` and `{ items }` of the document writes,
the 202 of a report order and the Problem Details of its 400. Error bodies elsewhere are not shown: not judged."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from conformance.catalogue.operations import REPORTS
from conformance.exchange_judge.bodies import media_type, read_body
from conformance.exchange_judge.exchange import SERVER, ExchangeFinding, HttpExchange, finding, found_in
from profiles.issues import Issue
from profiles.openapi_index import Operation, openapi_document
from profiles.validator import Validator

__all__ = ["ACCEPTED_400_TYPES", "response_findings"]

# The contract asks, on 400, for "the standard status-code reference URI for 400" without spelling it
# out. The standard that defines status 400 is RFC 9110 (section 15.5.1), which obsoleted RFC 7231
# (section 6.5.1, still the default `type` of widespread frameworks such as ASP.NET Core). Each RFC is
# published at the same paths on tools.ietf.org (now a redirect), datatracker.ietf.org and the RFC
# Editor's site; all of these name the same section, so each is "the" reference URI. An http:// form
# of any of them is read as its https:// form (older frameworks wrote http://tools.ietf.org/...).
ACCEPTED_400_TYPES = frozenset(
    {
        # RFC 9110, section 15.5.1 "400 Bad Request"
        "https://tools.ietf.org/html/rfc9110#section-15.5.1",
        "https://datatracker.ietf.org/doc/html/rfc9110#section-15.5.1",
        "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1",
        "https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.1",
        "https://httpwg.org/specs/rfc9110.html#status.400",
        # RFC 7231, section 6.5.1 "400 Bad Request" (obsoleted by RFC 9110 in 2022)
        "https://tools.ietf.org/html/rfc7231#section-6.5.1",
        "https://datatracker.ietf.org/doc/html/rfc7231#section-6.5.1",
        "https://www.rfc-editor.org/rfc/rfc7231#section-6.5.1",
        "https://www.rfc-editor.org/rfc/rfc7231.html#section-6.5.1",
    }
)
FORMAT_REQUIREMENT = "ERIS-GEN-001"
""""The payload format is JSON.\""""
PROBLEM_REQUIREMENT = "ERIS-ERR-001"
""""400 | malformed body or missing publicKeyPem; Problem Details format, type is the standard status-code reference
URI for 400\" (POST /v1/reports)."""
REPORT_STATUS_REQUIREMENT = "ERIS-ERR-300"
""""Status codes are in the Errors part\" (202, 400, 401, 403, 404, 429, 500, 5xx of POST /v1/reports)."""
WRITE_REQUIREMENT = "ERIS-WRITE-001"
""""Writes answer 200.\""""
RETRY_AFTER_REQUIREMENT = "ERIS-ERR-307"
""""exceeding it gives 429 with a Retry-After header" (Limits): of the gateway, so of every operation."""
ENVELOPE_REQUIREMENT = "ERIS-READ-001"
PAGING_REQUIREMENT = "ERIS-READ-002"
_RETRY_AFTER = re.compile(
    r"[0-9]+|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} "
    r"[0-9]{2}:[0-9]{2}:[0-9]{2} GMT"
)
"""RFC 9110 10.2.3: delay-seconds or an HTTP-date (components/headers/Retry-After of openapi.json)."""
_OPERATIONS_OWN_ANSWERS = frozenset({"WriteMessage"})
"""Answers whose shape is the operation's row itself ("200 `{ message }`" of POST /v1/document-references): their
issues fail the operation's requirement, not the one the validator's data gives the type (that of the body sent)."""
_VALUE_SET_ASKED = ("url", "system")
"""GET /v1/value-sets "with url (alias system)" answers ValueSet[]; without, the listing of { url, version }."""


def response_findings(
    exchange: HttpExchange, operation: Operation, validator: Validator, requirement: str | None
) -> Iterator[ExchangeFinding]:
    if exchange.status == 0:
        message = "no answer was recorded (status 0: the exchange was cut or failed before an answer came)"
        yield finding(SERVER, "status", "answer-not-recorded", message, None)
        return
    yield from _status_findings(exchange, requirement)
    shown = _shown_media_types(operation, exchange.status)
    if not shown:
        return  # the contract does not show this answer's body
    format_requirement = PROBLEM_REQUIREMENT if _is_report_problem(exchange) else FORMAT_REQUIREMENT
    received = media_type(exchange.response_headers)
    if received is None:
        message = f"answered {exchange.status} without Content-Type; the contract shows {', '.join(shown)}"
        yield finding(SERVER, "response headers", "content-type-missing", message, format_requirement, "/content-type")
    elif received not in shown:
        message = f"answered {exchange.status} as {received}, not {', '.join(shown)}"
        code = "content-type-not-documented"
        yield finding(SERVER, "response headers", code, message, format_requirement, "/content-type")
    if not exchange.response_body_complete:
        message = f"the {exchange.status} answer's body was not recorded whole: it is not judged"
        yield finding(SERVER, "response body", "body-not-recorded", message, None)
        return
    read = read_body(exchange.response_body, exchange.response_headers)
    if read.data is None:
        yield finding(SERVER, "response body", "body-encoding-unread", f"the answer: {read.problem}", None)
        return
    document, problem = read.json()
    if problem is not None:
        message = f"answered {exchange.status} with a body that is not JSON: {problem}"
        yield finding(SERVER, "response body", "answer-not-json", message, format_requirement)
        return
    yield from _body_findings(exchange, operation, document, validator, requirement)


def _status_findings(exchange: HttpExchange, requirement: str | None) -> Iterator[ExchangeFinding]:
    status = exchange.status
    if exchange.label == REPORTS:
        if not _documented_status(REPORTS, status):
            message = f"answered {status}, not one of the Errors part's codes of POST /v1/reports"
            yield finding(SERVER, "status", "status-not-an-answer", message, REPORT_STATUS_REQUIREMENT)
    elif status >= 500:
        message = f"answered {status}: a failure of the service, which the contract lists only for POST /v1/reports"
        yield finding(SERVER, "status", "server-error", message, requirement)
    elif 200 <= status < 300 and status != 200:
        message = f"answered {status}: the contract's answer to {exchange.label} is 200"
        write = exchange.method.upper() in ("POST", "PATCH")
        yield finding(SERVER, "status", "success-not-200", message, WRITE_REQUIREMENT if write else requirement)
    if status == 429:
        retry_after = exchange.response_headers.get("retry-after")
        if retry_after is None:
            message = "answered 429 without a Retry-After header to back off by"
            yield finding(SERVER, "response headers", "retry-after-missing", message, RETRY_AFTER_REQUIREMENT)
        elif not _RETRY_AFTER.fullmatch(retry_after.strip()):
            message = f"Retry-After {retry_after!r} is neither delay-seconds nor an HTTP-date"
            code = "retry-after-malformed"
            yield finding(SERVER, "response headers", code, message, RETRY_AFTER_REQUIREMENT, "/retry-after")


def _is_report_problem(exchange: HttpExchange) -> bool:
    return exchange.label == REPORTS and exchange.status == 400


def _body_findings(
    exchange: HttpExchange, operation: Operation, document: Any, validator: Validator, requirement: str | None
) -> Iterator[ExchangeFinding]:
    if operation.is_list_read and exchange.status == 200:
        yield from _list_findings(exchange, operation, document, validator, requirement)
        return
    if _is_report_problem(exchange):
        yield from _problem_findings(document, validator)
        return
    answered = _answered_type(operation, exchange.status)
    if answered is not None and answered in validator.contract.resources:
        for issue in validator.validate(document, resource_type=answered):
            if answered in _OPERATIONS_OWN_ANSWERS:
                yield found_in(SERVER, "response body", _placed(issue, requirement))
            else:
                yield found_in(SERVER, "response body", issue, requirement=requirement)
    if operation.path.endswith("/$document-content") and exchange.status == 200:
        yield from _single_attachment(document, requirement)
    elif exchange.label == "PATCH /v1/document-references" and exchange.status == 200 and not _has_items(document):
        message = "PATCH /v1/document-references answers 200 { items: [...] }; this answer has no items array"
        yield finding(SERVER, "response body", "answer-shape", message, requirement)


def _has_items(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("items"), list)


def _list_findings(
    exchange: HttpExchange, operation: Operation, document: Any, validator: Validator, requirement: str | None
) -> Iterator[ExchangeFinding]:
    for issue in validator.validate(document, resource_type="ReadEnvelope"):
        yield found_in(SERVER, "response body", issue, requirement=ENVELOPE_REQUIREMENT)
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(items, list):
        return
    count = _last_whole_number(exchange.query, "count")
    if count is not None and len(items) > count:
        message = f"answered {len(items)} items to count={count}"
        yield finding(SERVER, "response body", "items-beyond-count", message, PAGING_REQUIREMENT, "/items")
    item_type = _item_type(exchange, operation)
    for position, item in enumerate(items):
        for issue in validator.validate(item, resource_type=item_type):
            yield found_in(SERVER, "response body", issue, f"/items/{position}", requirement)


def _item_type(exchange: HttpExchange, operation: Operation) -> str:
    if operation.path == "/v1/value-sets" and any(name in _VALUE_SET_ASKED and value for name, value in exchange.query):
        return "ValueSet"  # an empty url asks for no set: a service may answer the listing
    return operation.item_type or "ReadEnvelope"


def _problem_findings(document: Any, validator: Validator) -> Iterator[ExchangeFinding]:
    for issue in validator.validate(document, resource_type="ProblemDetails"):
        if issue.is_error:
            yield found_in(SERVER, "response body", issue, requirement=PROBLEM_REQUIREMENT)
    if not isinstance(document, dict):
        return
    problem_type = document.get("type")
    normalised = re.sub(r"^http://", "https://", problem_type) if isinstance(problem_type, str) else problem_type
    if normalised not in ACCEPTED_400_TYPES:
        message = (
            f"the 400 Problem Details type is {problem_type!r}, not the standard reference URI of status 400 (for "
            "example https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1)"
        )
        yield finding(SERVER, "response body", "problem-type-not-400", message, PROBLEM_REQUIREMENT, "/type")
    if "status" in document and document["status"] != 400:
        message = f"the 400 Problem Details status is {document['status']!r}, not 400"
        yield finding(SERVER, "response body", "problem-status-not-400", message, PROBLEM_REQUIREMENT, "/status")


def _placed(issue: Issue, requirement: str | None) -> Issue:
    return Issue(issue.severity, issue.code, issue.location, issue.message, requirement if issue.is_error else None)


def _single_attachment(document: Any, requirement: str | None) -> Iterator[ExchangeFinding]:
    """ "Response 200: a FixedAssetDocument with exactly one attachment[] holding contentType and data (base64).\""""
    attachments = document.get("attachment") if isinstance(document, dict) else None
    if not isinstance(attachments, list) or len(attachments) != 1:
        held = len(attachments) if isinstance(attachments, list) else "no"
        message = f"$document-content answers exactly one attachment; this answer has {held}"
        yield finding(SERVER, "response body", "answer-shape", message, requirement, "/attachment")
        return
    attachment = attachments[0]
    missing = [name for name in ("contentType", "data") if not isinstance(attachment, dict) or name not in attachment]
    if missing:
        message = f"the attachment of $document-content holds contentType and data; it lacks {' and '.join(missing)}"
        yield finding(SERVER, "response body", "answer-shape", message, requirement, "/attachment/0")


def _last_whole_number(query: tuple[tuple[str, str], ...], name: str) -> int | None:
    values = [value for key, value in query if key == name]
    if not values or not (values[-1].isascii() and values[-1].isdigit()):
        return None
    return int(values[-1])


@cache
def _responses(method: str, path: str) -> Mapping[str, Any]:
    operation = openapi_document()["paths"].get(path, {}).get(method.lower(), {})
    return operation.get("responses", {})


def _response(method: str, path: str, status: int) -> Mapping[str, Any] | None:
    """The operation's own answer of `status` (by its code, or its class such as 5XX); None for an answer the contract
    does not list (the `default` of openapi.json says only that the rest is not shown)."""
    responses = _responses(method, path)
    return responses.get(str(status)) or responses.get(f"{str(status)[:1]}XX")


def _documented_status(label: str, status: int) -> bool:
    method, path = label.split(" ", 1)
    return _response(method, path, status) is not None


def _shown_media_types(operation: Operation, status: int) -> tuple[str, ...]:
    response = _response(operation.method, operation.path, status)
    return tuple(response.get("content", {})) if response is not None else ()


def _answered_type(operation: Operation, status: int) -> str | None:
    """The schema an answer of `status` is (its $ref, or the first $ref of an allOf); None for an inline shape."""
    response = _response(operation.method, operation.path, status) or {}
    for content in response.get("content", {}).values():
        schema = content.get("schema", {})
        parts = [schema, *schema.get("allOf", ())]
        reference = next((part["$ref"] for part in parts if "$ref" in part), None)
        if isinstance(reference, str):
            return str(reference.rsplit("/", 1)[-1])
    return None
