"""Compression before encryption (`compression: true` of a report order).

The contract leaves the algorithm open ("not shown"). eris uses gzip (RFC 1952: DEFLATE with a
CRC-32 trailer), level 6: every platform can open it (`gzip -d`, Python's `gzip`, pyarrow's
`CompressedInputStream(..., "gzip")`), and it streams in both directions.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from typing import Protocol

__all__ = ["ALGORITHM", "ClosingSink", "GzipWriter", "gunzip_chunks"]

ALGORITHM = "gzip"
_GZIP_WBITS = 31  # zlib's way of asking for the gzip container rather than the bare zlib one
_LEVEL = 6


class ClosingSink(Protocol):
    """Where a GzipWriter writes: a binary stream, closed with it (a file, or reports.crypto.ArtifactEncryptor)."""

    def write(self, data: bytes, /) -> object: ...

    def close(self) -> None: ...


class GzipWriter(io.RawIOBase):
    """A write-only stream that gzips into `destination` and closes it when closed (so that closing
    the outermost stream of generate -> gzip -> encrypt finishes every layer)."""

    def __init__(self, destination: ClosingSink) -> None:
        super().__init__()
        self._destination = destination
        self._compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, _GZIP_WBITS)

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        if self.closed:
            raise ValueError("write to a closed compressor")
        compressed = self._compressor.compress(data)
        if compressed:
            self._destination.write(compressed)
        return memoryview(data).nbytes

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._destination.write(self._compressor.flush())
            self._destination.close()
        finally:
            super().close()


def gunzip_chunks(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Decompress a gzip stream given in pieces; ValueError when it is not gzip or is cut short."""
    decompressor = zlib.decompressobj(_GZIP_WBITS)
    try:
        for chunk in chunks:
            while chunk:
                # bounded output per call: a small chunk can expand a thousandfold
                piece = decompressor.decompress(chunk, 1 << 20)
                if piece:
                    yield piece
                chunk = decompressor.unconsumed_tail
        rest = decompressor.flush()
    except zlib.error as error:
        raise ValueError(f"the decrypted report is not gzip data ({error}); was it ordered with compression?") from None
    if rest:
        yield rest
    if not decompressor.eof:
        raise ValueError("the decrypted report ends before the end of its gzip stream")
