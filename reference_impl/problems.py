"""Problem Details (RFC 9457) answers. `type` is the status code's reference URI in RFC 9110 (RFC 6585
for 429): the contract asks for "the standard status-code reference URI" on 400."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

PROBLEM_JSON = "application/problem+json"
STATUS_TYPES = {
    400: "https://tools.ietf.org/html/rfc9110#section-15.5.1",
    401: "https://tools.ietf.org/html/rfc9110#section-15.5.2",
    403: "https://tools.ietf.org/html/rfc9110#section-15.5.4",
    404: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
    405: "https://tools.ietf.org/html/rfc9110#section-15.5.6",
    409: "https://tools.ietf.org/html/rfc9110#section-15.5.10",
    413: "https://tools.ietf.org/html/rfc9110#section-15.5.14",
    415: "https://tools.ietf.org/html/rfc9110#section-15.5.16",
    422: "https://tools.ietf.org/html/rfc9110#section-15.5.21",
    429: "https://tools.ietf.org/html/rfc6585#section-4",
    500: "https://tools.ietf.org/html/rfc9110#section-15.6.1",
}
TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


def problem(status: int, detail: str, *, headers: dict[str, str] | None = None, **extra: Any) -> web.Response:
    body = {
        "type": STATUS_TYPES.get(status, "about:blank"),
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        **extra,
    }
    return web.Response(
        status=status, text=json.dumps(body, ensure_ascii=False), content_type=PROBLEM_JSON, headers=headers
    )
