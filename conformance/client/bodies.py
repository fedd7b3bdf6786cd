"""The recorded bodies of exchanges, as a person (report.html) or a HAR viewer (traffic.har) reads them."""

from __future__ import annotations

import base64
import binascii

__all__ = ["RecordedBody", "header", "recorded_body"]

_TEXT_TYPES = ("text/", "json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "csv")


def header(headers: dict[str, str], name: str) -> str:
    """A header's value by case-insensitive name ("" when absent)."""
    wanted = name.lower()
    return next((value for key, value in headers.items() if key.lower() == wanted), "")


class RecordedBody:
    """One body as kept by conformance.client.traffic: at most BODY_LIMIT bytes of `size`."""

    def __init__(self, data: bytes, size: int, content_type: str) -> None:
        self.data = data
        self.size = size
        self.content_type = content_type
        self.truncated = size >= 0 and len(data) < size
        self.text = _as_text(data, content_type, self.truncated)
        """The body decoded as UTF-8 when it is text (by its content type, or, without one, by its bytes)."""

    @property
    def mime_type(self) -> str:
        return self.content_type.split(";", 1)[0].strip() or ("text/plain" if self.text else "")

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")


def recorded_body(encoded: str, size: int, headers: dict[str, str]) -> RecordedBody:
    """The body of a recorded exchange: `encoded` is base64 (Exchange.request_body/response_body)."""
    try:
        data = base64.b64decode(encoded or "", validate=True)
    except (binascii.Error, ValueError):
        data = b""
    return RecordedBody(data, size, header(headers, "content-type"))


def _as_text(data: bytes, content_type: str, truncated: bool) -> str | None:
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind and not any(marker in kind for marker in _TEXT_TYPES):
        return None
    # A body cut at the record limit may end inside a UTF-8 sequence of up to 4 bytes.
    for cut in range(4 if truncated else 1):
        try:
            text = data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if kind or "\x00" not in text:
            return text
        return None
    return None
