"""The bytes of a unit of `eris validate` that the process checking it reads itself (conformance.cli.checking): the
lines of an NDJSON file that begin in a span of it, and a small file whole."""

from __future__ import annotations

import codecs
import os

__all__ = ["file_bytes", "read_span"]


def read_span(source: str, start: int, end: int | None) -> bytes:
    """The bytes of the lines of `source` that begin at a byte from `start` up to `end` (None: the end of the file),
    their newlines included (and no byte-order mark)."""
    with open(source, "rb") as handle:
        if start == 0:
            data = handle.read(-1 if end is None else end)
        else:
            handle.seek(start - 1)  # the byte before the span tells whether a line begins at its first byte
            data = handle.read(-1 if end is None else end - start + 1)
            cut = data.find(b"\n")
            if cut < 0:
                return b""  # inside one line begun before the span
            data = data[cut + 1 :]
        if end is not None and data and not data.endswith(b"\n"):
            rest = [data]  # the last line goes on past the span: read it to its end
            while more := handle.read(_LINE_REST_BYTES):
                cut = more.find(b"\n")
                if cut >= 0:
                    rest.append(more[: cut + 1])
                    break
                rest.append(more)
            data = b"".join(rest)
    return data.removeprefix(codecs.BOM_UTF8) if start == 0 else data


_LINE_REST_BYTES = 1 << 16


def file_bytes(path: str) -> bytes | None:
    """The bytes of a small file, None when it cannot be read (os.open and os.read: half the cost of open().read(),
    which asks the file's size and wraps a buffer around it)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        parts = []
        while part := os.read(descriptor, _READ_BYTES):
            parts.append(part)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return b"".join(parts)


_READ_BYTES = 1 << 16
