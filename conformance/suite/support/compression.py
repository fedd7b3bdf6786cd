"""Opening data compressed before encryption: the algorithm is not shown by the contract, so every common one
is tried."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa

__all__ = ["Decompressed", "decompressions"]


# --- compression (its algorithm is not shown: every common one is tried) ------------------------------------


@dataclass(frozen=True)
class Decompressed:
    algorithm: str
    data: bytes


def _zlib_whole(data: bytes, wbits: int) -> bytes:
    decompressor = zlib.decompressobj(wbits)
    out = decompressor.decompress(data)
    if not decompressor.eof or decompressor.unused_data:
        raise ValueError("not one complete stream")
    return out


def _arrow_stream(codec: str) -> Callable[[bytes], bytes]:
    def read(data: bytes) -> bytes:
        with pa.CompressedInputStream(pa.BufferReader(data), codec) as stream:
            return stream.read()

    return read


def _varint(data: bytes) -> int:
    value = shift = 0
    for byte in data[:5]:
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value
        shift += 7
    raise ValueError("bad varint")


def _snappy_framed(data: bytes) -> bytes:
    """The snappy framing format (chunks: type, 3-byte length; CRCs are not checked here)."""
    codec = pa.Codec("snappy")
    out = bytearray()
    position = 0
    while position < len(data):
        if position + 4 > len(data):
            raise ValueError("truncated snappy frame")
        kind, length = data[position], int.from_bytes(data[position + 1 : position + 4], "little")
        chunk = data[position + 4 : position + 4 + length]
        if len(chunk) != length:
            raise ValueError("truncated snappy frame")
        if kind == 0x00:
            raw = chunk[4:]
            out += codec.decompress(raw, decompressed_size=_varint(raw), asbytes=True)
        elif kind == 0x01:
            out += chunk[4:]
        elif kind in (0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x7F):
            raise ValueError("reserved unskippable snappy chunk")
        position += 4 + length
    return bytes(out)


def _zip_single(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) != 1:
            raise ValueError(f"a zip archive of {len(members)} files")
        return archive.read(members[0])


def _is_zlib_header(data: bytes) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and data[0] >> 4 <= 7 and (data[0] << 8 | data[1]) % 31 == 0


# (name, recognised by its magic number, decompress): tried in this order; the ones without a magic
# number last, and only their complete decoding counts.
_ALGORITHMS: list[tuple[str, Callable[[bytes], bool], Callable[[bytes], bytes]]] = [
    ("gzip", lambda d: d[:2] == b"\x1f\x8b", gzip.decompress),
    ("zstd", lambda d: d[:4] == b"\x28\xb5\x2f\xfd", _arrow_stream("zstd")),
    ("zlib", _is_zlib_header, lambda d: _zlib_whole(d, 15)),
    ("bzip2", lambda d: d[:3] == b"BZh", bz2.decompress),
    ("xz", lambda d: d[:6] == b"\xfd7zXZ\x00", lambda d: lzma.decompress(d, format=lzma.FORMAT_XZ)),
    ("lz4 frame", lambda d: d[:4] == b"\x04\x22\x4d\x18", _arrow_stream("lz4")),
    ("snappy framed", lambda d: d[:10] == b"\xff\x06\x00\x00sNaPpY", _snappy_framed),
    ("zip (one file)", lambda d: d[:4] == b"PK\x03\x04", _zip_single),
    ("lzma (alone)", lambda d: d[:1] == b"\x5d", lambda d: lzma.decompress(d, format=lzma.FORMAT_ALONE)),
    ("raw deflate", lambda d: True, lambda d: _zlib_whole(d, -15)),
    ("brotli", lambda d: True, _arrow_stream("brotli")),
]


def decompressions(data: bytes) -> Iterator[Decompressed]:
    """Every known algorithm that opens `data` completely, with what it gives."""
    for name, recognised, decompress in _ALGORITHMS:
        if not recognised(data):
            continue
        try:
            opened = decompress(data)
        except Exception:  # each library has its own error types; any of them means "not this one"
            continue
        if opened:
            yield Decompressed(name, bytes(opened))
