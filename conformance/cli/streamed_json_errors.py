"""Why a streamed JSON text (a HAR file read by ijson) stops being JSON, and where, in words.

ijson's C backend (yajl) reports an error as yajl writes it: a line of its own words, then the text around the error
with a caret under it, as bytes where the text is not UTF-8 (`b'lexical error: invalid char in json text.\\n ...'`).
A person reading the report needs the problem and where it is: the words are put in ours, and the position found by
finding that text in the block the parser was reading.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["PositionedStream", "described"]

_PROBLEMS = {
    "invalid char in json text": "a character that begins no JSON value",
    "invalid string in json text": "a word that is no JSON value (true, false and null are)",
    "invalid bytes in UTF8 string": "bytes that are not UTF-8 in a string",
    "invalid character inside string": "a control character in a string (JSON escapes them)",
    "inside a string, '\\' occurs before a character which it may not": "an escape JSON does not know in a string",
    "invalid (non-hex) character occurs after '\\u' inside string": "'\\u' without four hexadecimal digits after it",
    "probable comment found in input text, comments are not enabled": "a comment (JSON has none)",
    "premature EOF": "the text ends before its JSON does",
    "trailing garbage": "text after the end of the JSON document",
    "invalid object key (must be a string)": "a member name that is not a string",
    "object key and value must be separated by a colon (':')": "no ':' between a member's name and its value",
    "after key and value, inside map, I expect ',' or '}'": "no ',' or '}' after a member of an object",
    "after array element, I expect ',' or ']'": "no ',' or ']' after an item of an array",
    "unallowed token at this point in JSON text": "a character where no value may be",
}
_CARET = 40
"""yajl's caret column: the text around the error is written so that the error's byte comes just before it."""
_AROUND = 30
"""The bytes of text yajl writes on each side of the error (fewer at the start and the end of its block)."""


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class PositionedStream:
    """A binary stream that knows where the block it last gave begins: bytes and lines before it."""

    def __init__(self, stream: _Readable) -> None:
        self.stream = stream
        self.block = b""
        self.start = self.lines = self.line_start = 0
        """The block's first byte, the newlines before it, and the first byte of the line it begins in."""

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        if data:
            block = self.block
            self.start += len(block)
            newlines = block.count(b"\n")
            if newlines:
                self.lines += newlines
                self.line_start = self.start - len(block) + block.rindex(b"\n") + 1
            self.block = data
        return data

    def position(self, offset: int) -> str:
        """The byte at `offset` of the block, in words."""
        before = self.block[:offset]
        newlines = before.count(b"\n")
        line_start = self.start + before.rindex(b"\n") + 1 if newlines else self.line_start
        byte = self.start + offset
        return f"line {self.lines + newlines + 1}, column {byte - line_start + 1} (byte {byte + 1})"

    def end(self) -> str:
        end = self.start + len(self.block)
        return f"at its end (byte {end})" if end else "at its start: it is empty"


def described(message: str | bytes, stream: PositionedStream) -> str:
    """An error of ijson over `stream`, as a sentence: the problem, and where it is as far as it can be found."""
    raw = message if isinstance(message, bytes) else message.encode("utf-8", "backslashreplace")
    head, _, rest = raw.partition(b"\n")
    words = head.decode("utf-8", "replace").strip().removesuffix(".")
    for prefix in ("lexical error: ", "parse error: "):
        words = words.removeprefix(prefix)
    problem = _PROBLEMS.get(words, words or "it is cut short")
    if words == "premature EOF":
        return f"{problem}, {stream.end()}"
    offset = _offset(rest.partition(b"\n")[0], stream.block)
    return problem if offset is None else f"{problem}, near {stream.position(offset)}"


def _offset(around: bytes, block: bytes) -> int | None:
    """Where in `block` the error is that `around` shows (yajl writes newlines as spaces): the offset of its byte."""
    if len(around) < _CARET:
        return None
    shown = block.translate(_NEWLINES_AS_SPACES)
    after = around[_CARET:]
    for at in range(_AROUND):  # near the block's start: fewer bytes before the error, more spaces before them
        if around == b" " * (_CARET - at) + shown[: at + len(after)]:
            return max(at - 1, 0)
    found = shown.find(around[_CARET - _AROUND :])
    return None if found < 0 else found + _AROUND - 1


_NEWLINES_AS_SPACES = bytes.maketrans(b"\r\n", b"  ")
