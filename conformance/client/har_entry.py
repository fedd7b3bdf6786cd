"""One HAR 1.2 entry from the parts of an exchange: the shape that the suite's traffic.har and `eris proxy --har`
both write (http://www.softwareishard.com/blog/har-12-spec/). Each caller says how its bodies are kept."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any

__all__ = ["har_entry_of", "name_values"]


def name_values(pairs: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """Headers or query parameters as HAR writes them: a list of {name, value}."""
    return [{"name": name, "value": value} for name, value in pairs]


def har_entry_of(
    *,
    method: str,
    url: str,
    request_headers: Iterable[tuple[str, str]],
    query: Iterable[tuple[str, str]],
    request_body_size: int,
    post_data: dict[str, Any] | None,
    status: int,
    response_headers: Iterable[tuple[str, str]],
    content: dict[str, Any],
    response_body_size: int,
    started: float,
    seconds: float,
) -> dict[str, Any]:
    """The entry. `post_data` is the request's postData (None: no body); `content` the response's content object
    (size, mimeType, text and its encoding); `started` a POSIX time, `seconds` the exchange's duration."""
    milliseconds = round(seconds * 1000, 3)
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": name_values(request_headers),
        "queryString": name_values(query),
        "headersSize": -1,
        "bodySize": request_body_size,
    }
    if post_data is not None:
        request["postData"] = post_data
    return {
        "startedDateTime": datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds"),
        "time": milliseconds,
        "request": request,
        "response": {
            "status": status,
            "statusText": _reason(status),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": name_values(response_headers),
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": response_body_size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": milliseconds, "receive": 0},
    }


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
