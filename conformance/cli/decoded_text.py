"""The text of a binary input (a file, stdin) decoded as UTF-8 as it is read, for conformance.cli.streaming: bytes
that are not UTF-8 are named by their offset in the whole input, not in the block being decoded."""

from __future__ import annotations

import codecs
from typing import BinaryIO

from conformance.cli.streaming import BUFFER_CHARS

__all__ = ["UTF16_MARKS", "DecodedText", "NotUtf8Text"]

UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
"""The first two bytes of UTF-16 text as Windows editors save it ("Unicode")."""


class NotUtf8Text(ValueError):
    """Bytes that are not UTF-8 at `offset` (from 0) of an input; the message says where, and what the input
    seems to be when it begins with the mark of UTF-16 text (what a Windows editor saves as "Unicode")."""

    def __init__(self, offset: int, found: bytes, beginning: bytes) -> None:
        if offset == 0 and beginning[:2] in UTF16_MARKS:
            mark = beginning[:2].hex(" ").upper()
            message = f"not UTF-8 text: it begins with {mark}, the byte order mark of UTF-16 text (save it as UTF-8)"
        else:
            message = f"not UTF-8 text: byte {offset} is {found[:1].hex().upper()} (hex)"
        super().__init__(message)
        self.offset = offset


class DecodedText:
    """The text of `handle`, whose first bytes `head` were already read from it."""

    def __init__(self, handle: BinaryIO, head: bytes = b"") -> None:
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.head: bytes | None = head
        self.bytes_read = len(head)
        """Bytes read from the input so far, `head` included."""
        self._decoded = 0

    def read(self, size: int = -1) -> str:
        if self.head is not None:
            head, self.head = self.head, None
            text = self._decode(head, final=False)
            if text:
                return text
        while True:
            chunk = self.handle.read(BUFFER_CHARS)
            self.bytes_read += len(chunk)
            text = self._decode(chunk, final=not chunk)
            if text or not chunk:
                return text

    def _decode(self, chunk: bytes, final: bool) -> str:
        held = len(self.decoder.getstate()[0])  # the bytes of a character cut by the last chunk, decoded with these
        try:
            text = self.decoder.decode(chunk, final=final)
        except UnicodeDecodeError as error:
            start = self._decoded - held
            raise NotUtf8Text(start + error.start, error.object[error.start : error.end], error.object[:2]) from None
        self._decoded += len(chunk)
        return text
