"""`traffic.har`: every exchange of every test of a certification run as an HTTP Archive (HAR 1.2), the
target's deliveries and notifications to the suite's receiver included, so that a vendor can replay or
inspect in any HAR viewer why a check failed."""

from __future__ import annotations

from datetime import UTC, datetime
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from conformance.bodies import RecordedBody, recorded_body
from conformance.traffic import Exchange

if TYPE_CHECKING:
    from conformance.certification.judgement import Certification

__all__ = ["har_entry", "to_har"]


def to_har(certification: Certification) -> dict[str, Any]:
    """The HAR document: entries in the order the exchanges started."""
    entries = [
        (exchange.started, har_entry(exchange, test.nodeid))
        for test in certification.outcomes
        for exchange in map(Exchange.from_dict, test.exchanges)
    ]
    entries.sort(key=lambda pair: pair[0])
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "eris", "version": certification.version},
            "comment": f"eris certification of {certification.base_url}: {certification.verdict}",
            "entries": [entry for _, entry in entries],
        }
    }


def har_entry(exchange: Exchange, nodeid: str) -> dict[str, Any]:
    """One HAR entry. `comment` and the custom `_eris_test`/`_eris_direction` fields say which test it
    belongs to and whether the suite sent it (outbound) or the target sent it to the receiver (inbound)."""
    milliseconds = round(exchange.duration * 1000, 3)
    request_body = recorded_body(exchange.request_body, exchange.request_body_size, exchange.request_headers)
    response_body = recorded_body(exchange.response_body, exchange.response_body_size, exchange.response_headers)
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": _headers(exchange.request_headers),
        "queryString": [{"name": n, "value": v} for n, v in parse_qsl(urlsplit(exchange.url).query, True)],
        "headersSize": -1,
        "bodySize": exchange.request_body_size,
    }
    if exchange.request_body_size > 0 or request_body.data:
        request["postData"] = {"mimeType": request_body.mime_type or "application/octet-stream", **_body(request_body)}
    return {
        "startedDateTime": datetime.fromtimestamp(exchange.started, UTC).isoformat(timespec="milliseconds"),
        "time": milliseconds,
        "request": request,
        "response": {
            "status": exchange.status,
            "statusText": _reason(exchange.status),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": _headers(exchange.response_headers),
            "content": {
                "size": exchange.response_body_size,
                "mimeType": response_body.mime_type or "application/octet-stream",
                **_body(response_body),
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": exchange.response_body_size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": milliseconds, "receive": 0},
        "comment": f"{exchange.direction} exchange of {nodeid}",
        "_eris_test": nodeid,
        "_eris_direction": exchange.direction,
    }


def _body(body: RecordedBody) -> dict[str, Any]:
    """`text` as text when the body is text, else base64 with `encoding`; a cut body says so in `comment`."""
    found: dict[str, Any] = (
        {"text": body.text} if body.text is not None else {"text": body.base64, "encoding": "base64"}
    )
    if body.truncated:
        kept = len(body.data)
        found["comment"] = f"first {kept} of {body.size} bytes kept" if kept else f"{body.size} bytes, not recorded"
    return found


def _headers(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers.items()]


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
