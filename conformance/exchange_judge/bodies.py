"""A body as the judge reads it: its Content-Encoding undone (a proxy sees the bytes as sent; a HAR recorder keeps
them decoded, with the header still there), then JSON by the strict intake."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from profiles import fast_json, strict_json

__all__ = ["MAX_DECODED_BYTES", "ReadBody", "media_type", "read_body"]

MAX_DECODED_BYTES = 64 << 20
"""A compressed body is judged only up to this size once decompressed: a bomb stops here."""
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class ReadBody:
    data: bytes | None
    """The bytes with the Content-Encoding undone; None when it could not be (see `problem`)."""
    problem: str | None = None

    def json(self) -> tuple[Any, str | None]:
        """(value, None), or (None, why it is not JSON)."""
        if self.data is None:
            return None, self.problem
        try:
            return fast_json.loads(self.data), None
        except strict_json.StrictJSONError as error:
            return None, error.message
        except UnicodeDecodeError as error:
            return None, f"not UTF-8 (byte {error.start})"


def media_type(headers: Mapping[str, str]) -> str | None:
    """The media type of Content-Type, lower case, without parameters; None without the header."""
    value = headers.get("content-type")
    return None if value is None else value.split(";", 1)[0].strip().lower()


def read_body(body: bytes, headers: Mapping[str, str]) -> ReadBody:
    encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",") if e.strip()]
    data = body
    for encoding in reversed(encodings):  # the last one applied is undone first
        if encoding == "identity":
            continue
        if encoding in ("gzip", "x-gzip") and data.startswith(_GZIP_MAGIC):
            decoded = _inflate(data, zlib.MAX_WBITS | 16)
        elif encoding == "deflate" and data[:1] == b"\x78":
            decoded = _inflate(data, zlib.MAX_WBITS)
        elif encoding in ("gzip", "x-gzip", "deflate", "br", "zstd", "compress") and _looks_decoded(data):
            continue  # a recorder kept the body decoded and the header as it was
        else:
            return ReadBody(None, f"Content-Encoding {encoding} could not be undone")
        if decoded is None:
            return ReadBody(None, f"the {encoding} body is corrupt or inflates past {MAX_DECODED_BYTES >> 20} MiB")
        data = decoded
    return ReadBody(data)


def _looks_decoded(data: bytes) -> bool:
    return not data or data.lstrip()[:1] in (b"{", b"[", b'"') or data.isascii()


def _inflate(data: bytes, wbits: int) -> bytes | None:
    inflater = zlib.decompressobj(wbits)
    try:
        decoded = inflater.decompress(data, MAX_DECODED_BYTES)
    except zlib.error:
        return None
    if inflater.unconsumed_tail or not inflater.eof:
        return None
    return decoded
