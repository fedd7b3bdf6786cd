"""HAR 1.2 entries and the exchanges the judge reads (conformance.exchange_judge): an entry of a recorder (a
browser's devtools, Playwright, mitmproxy, the suite's traffic.har) read as an exchange of the contract when its URL
is under the base URL; an exchange written back as an entry (`eris proxy --har`)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from conformance.client.har_entry import har_entry_of
from conformance.exchange_judge import HttpExchange, headers_of

__all__ = ["BaseUrl", "NotAnEntry", "entry_of_exchange", "exchange_of_entry"]


class NotAnEntry(ValueError):
    """The entry is not a HAR entry the judge can read; the message says what is wrong with it."""


@dataclass(frozen=True)
class BaseUrl:
    """Where the service's paths start: scheme, host and port, and a path prefix (https://erp.example/api)."""

    origin: str
    prefix: str = ""

    @classmethod
    def of(cls, url: str) -> BaseUrl:
        """ValueError for a URL without scheme and host."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{url!r} is not an http(s) URL with a host")
        return cls(f"{parts.scheme}://{parts.netloc}".lower(), parts.path.rstrip("/"))

    def path_of(self, url: str) -> str | None:
        """The path of `url` after the base URL (/v1/parties); None for a URL outside it."""
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}".lower() != self.origin:
            return None
        path = parts.path or "/"
        if not self.prefix:
            return path
        if path != self.prefix and not path.startswith(self.prefix + "/"):
            return None
        return path[len(self.prefix) :] or "/"


def exchange_of_entry(entry: Any, base: BaseUrl) -> HttpExchange:
    """The exchange of a HAR entry; a URL outside `base` keeps its whole URL as its path (the judge says it is outside
    the contract). NotAnEntry when the entry lacks what an exchange needs."""
    if not isinstance(entry, Mapping):
        raise NotAnEntry(f"an entry is a JSON object, not {type(entry).__name__}")
    request, response = entry.get("request"), entry.get("response")
    if not isinstance(request, Mapping) or not isinstance(response, Mapping):
        raise NotAnEntry("an entry has a request and a response object")
    method, url, status = request.get("method"), request.get("url"), response.get("status")
    if not isinstance(method, str) or not isinstance(url, str) or not url:
        raise NotAnEntry("the request has no method or no url")
    if isinstance(status, bool) or not isinstance(status, int | float) or status != int(status):
        raise NotAnEntry(f"the response status is {status!r}, not a whole number")
    path = base.path_of(url)
    request_body, request_complete = _request_body(request)
    response_body, response_complete = _response_body(response)
    return HttpExchange(
        method=method.upper(),
        path=path if path is not None else url.split("?", 1)[0],
        query=tuple(parse_qsl(urlsplit(url).query, keep_blank_values=True)),
        request_headers=headers_of(_headers(request)),
        request_body=request_body,
        status=int(status),
        response_headers=headers_of(_headers(response)),
        response_body=response_body,
        request_body_complete=request_complete,
        response_body_complete=response_complete,
    )


def _headers(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    headers = message.get("headers")
    if not isinstance(headers, list):
        return []
    return [
        (header["name"], header["value"])
        for header in headers
        if isinstance(header, Mapping) and isinstance(header.get("name"), str) and isinstance(header.get("value"), str)
    ]


def _request_body(request: Mapping[str, Any]) -> tuple[bytes, bool]:
    posted = request.get("postData")
    size = _size(request.get("bodySize"))
    if not isinstance(posted, Mapping):
        return b"", size == 0
    data = _decoded(posted)
    if data is None:
        return b"", False
    return data, size <= len(data)


def _response_body(response: Mapping[str, Any]) -> tuple[bytes, bool]:
    content = response.get("content")
    if not isinstance(content, Mapping):
        return b"", _size(response.get("bodySize")) == 0
    size = _size(content.get("size"))
    if "text" not in content:
        return b"", size == 0
    data = _decoded(content)
    if data is None:
        return b"", False
    return data, size <= len(data)


def _size(value: Any) -> int:
    """A HAR size; -1 (unknown) and anything that is not a number read as 0."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0


def _decoded(content: Mapping[str, Any]) -> bytes | None:
    """The bytes of `text` (base64 with `encoding: base64`); None when it cannot be read."""
    text = content.get("text")
    if not isinstance(text, str):
        return None if text is not None else b""
    if content.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
    return text.encode("utf-8", "surrogatepass")


def entry_of_exchange(
    exchange: HttpExchange,
    url: str,
    started: float,
    seconds: float,
    request_headers: list[tuple[str, str]],
    response_headers: list[tuple[str, str]],
) -> dict[str, Any]:
    """A HAR entry of an exchange as it passed (headers in their order and case, bodies whole: text when UTF-8, else
    base64). The response body is kept as it was sent: with its Content-Encoding, base64 when compressed."""
    mime = exchange.request_headers.get("content-type", "application/octet-stream")
    return har_entry_of(
        method=exchange.method,
        url=url,
        request_headers=request_headers,
        query=exchange.query,
        request_body_size=len(exchange.request_body),
        post_data={"mimeType": mime, **_text(exchange.request_body)} if exchange.request_body else None,
        status=exchange.status,
        response_headers=response_headers,
        content={
            "size": len(exchange.response_body),
            "mimeType": exchange.response_headers.get("content-type", ""),
            **_text(exchange.response_body),
        },
        response_body_size=len(exchange.response_body),
        started=started,
        seconds=seconds,
    )


def _text(body: bytes) -> dict[str, str]:
    try:
        return {"text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"text": base64.b64encode(body).decode("ascii"), "encoding": "base64"}
