"""What the judge of an exchange takes and gives: one HTTP exchange as recorded (by the suite's client, a HAR file, the
proxy), and the findings about it, each located (which side, which part of the exchange, a JSON Pointer into that
part) and tied to the contract requirement it enforces where one applies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from profiles.issues import Issue, Severity

__all__ = [
    "CLIENT",
    "CODES",
    "SERVER",
    "ExchangeFinding",
    "HttpExchange",
    "Part",
    "Side",
    "finding",
    "found_in",
    "headers_of",
]

Side = Literal["client", "server"]
CLIENT: Side = "client"
SERVER: Side = "server"
"""The client made the request; the server made the answer: each finding is one side's."""

Part = Literal["exchange", "query", "request headers", "request body", "status", "response headers", "response body"]


def headers_of(pairs: Iterable[tuple[str, str]] | Mapping[str, str]) -> dict[str, str]:
    """Headers by lower-case name; a header given twice keeps both values, joined by a comma (RFC 9110 5.3)."""
    found: dict[str, str] = {}
    for name, value in pairs.items() if isinstance(pairs, Mapping) else pairs:
        key = name.lower()
        found[key] = f"{found[key]}, {value}" if key in found else value
    return found


@dataclass(frozen=True, slots=True)
class HttpExchange:
    """One request and its answer. Bodies are the bytes as sent, or as a recorder kept them: `*_body_complete` is
    False when the record holds less than was sent (a cut or missing body: not judged)."""

    method: str
    path: str
    """The path after the base URL, without the query: /v1/parties."""
    query: tuple[tuple[str, str], ...] = ()
    """The query parameters in their order, a repeated one as often as it was given."""
    request_headers: Mapping[str, str] = field(default_factory=dict)
    """By lower-case name (headers_of)."""
    request_body: bytes = b""
    status: int = 0
    response_headers: Mapping[str, str] = field(default_factory=dict)
    """By lower-case name (headers_of)."""
    response_body: bytes = b""
    request_body_complete: bool = True
    response_body_complete: bool = True

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


@dataclass(frozen=True, slots=True)
class ExchangeFinding:
    """One issue of an exchange: `issue.location` is a JSON Pointer into `part` (a body, or the query as an object
    of its parameters); `issue.requirement` the requirement it enforces, where one applies."""

    side: Side
    part: Part
    issue: Issue

    @property
    def where(self) -> str:
        return f"{self.part}{self.issue.location}"

    def to_dict(self) -> dict[str, object]:
        return {"side": self.side, "part": self.part, **self.issue.to_dict()}


@dataclass(frozen=True)
class _Code:
    severity: Severity
    summary: str


CODES: Mapping[str, _Code] = {
    code: _Code(Severity(severity), summary)
    for code, severity, summary in (
        ("path-outside-contract", "information", "the path or method is not an operation of the contract: not judged"),
        ("body-not-recorded", "information", "the record holds a cut body, or none, of a body that was sent"),
        ("answer-not-recorded", "information", "the record holds no answer (status 0): only the request is judged"),
        ("body-encoding-unread", "warning", "the body's Content-Encoding could not be undone: the body is not judged"),
        ("query-parameter-unknown", "warning", "the operation has no query parameter of that name"),
        ("query-parameter-missing", "error", "a query parameter the operation requires is missing"),
        ("query-parameter-malformed", "error", "a filter's value is not of the form system|value (code|value)"),
        ("query-parameter-bare-code", "warning", "a coded filter's value is a code without its system"),
        ("paging-out-of-range", "error", "count or offset is not a whole number of 0 or more"),
        ("request-body-missing", "error", "a write without a body"),
        ("request-not-json", "error", "the request body is not JSON"),
        ("request-content-type", "error", "the request's Content-Type is not the one the contract requires"),
        ("authorization-missing", "error", "a request that requires a Bearer token carries none"),
        ("status-not-an-answer", "error", "the status is not one of the operation's answers in the contract"),
        ("success-not-200", "error", "a success other than the 200 the contract gives the operation"),
        ("server-error", "error", "a 5xx where the contract lists none"),
        ("content-type-missing", "error", "the answer has no Content-Type, though the contract shows its media type"),
        ("content-type-not-documented", "error", "the answer's Content-Type is not the media type the contract shows"),
        ("answer-not-json", "error", "the answer is not JSON, though the contract shows a JSON answer"),
        ("answer-shape", "error", "the answer is not of the shape the contract gives the operation"),
        ("items-beyond-count", "error", "a page holds more items than count asked for"),
        ("problem-type-not-400", "error", "the 400 Problem Details type is not the standard reference URI of 400"),
        ("problem-status-not-400", "error", "the 400 Problem Details status member is not 400"),
        ("retry-after-missing", "error", "a 429 without a Retry-After header"),
        ("retry-after-malformed", "error", "a Retry-After that is neither delay-seconds nor an HTTP-date"),
    )
}
"""The judge's own codes (the bodies' issues are the validator's, with its codes: profiles/issue-codes.json)."""


def finding(
    side: Side, part: Part, code: str, message: str, requirement: str | None, location: str = ""
) -> ExchangeFinding:
    """A finding of one of the judge's own CODES."""
    return ExchangeFinding(side, part, Issue(CODES[code].severity, code, location, message, requirement))


def found_in(side: Side, part: Part, issue: Issue, prefix: str = "", requirement: str | None = None) -> ExchangeFinding:
    """A validator's issue of a body as a finding of the exchange: its pointer under `prefix` (an item of a list),
    its requirement its own, else `requirement` (the operation's)."""
    own = issue.requirement or (requirement if issue.is_error else None)
    if prefix or own != issue.requirement:
        issue = Issue(issue.severity, issue.code, prefix + issue.location, issue.message, own)
    return ExchangeFinding(side, part, issue)
