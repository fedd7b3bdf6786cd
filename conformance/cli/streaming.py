"""Reading a JSON text as a stream, for `eris validate`: the items of a top-level array one at a time, NDJSON line
by line, so that memory stays flat whatever the size of stdin or of an array file (a document that is one large
object is still read whole). Every value is read by the strict intake (`profiles.strict_json`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Protocol

from profiles import strict_json

__all__ = ["BUFFER_CHARS", "StreamProblem", "TextSource", "stream_values"]

BUFFER_CHARS = 1 << 20
_CUT_SLACK = 16
"""A decoding error this close to the end of the buffer may be a value cut by the buffer: read more and retry."""


class TextSource(Protocol):
    """Where the text comes from: a text file, or the text of bytes decoded as read (cli/decoded_text.py)."""

    def read(self, size: int, /) -> str: ...


class StreamProblem(Exception):
    """The text cannot be read further; `line` and `column` (1-based) where known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def stream_values(handle: TextSource) -> Iterator[tuple[str, Any, int | None]]:
    """(kind, value, position) for each value of the text: ("item", value, index) for the items of a top-level
    array; ("line", value, line number) for NDJSON; ("document", value, None) for one document. Raises
    StreamProblem where the text stops being readable (what came before it was yielded)."""
    head = handle.read(BUFFER_CHARS).removeprefix("\ufeff")
    start = _first_value(head)
    if start < len(head) and head[start] == "[":
        yield from _array_items(handle, head, start + 1)
    else:
        yield from _documents(handle, head)


def _first_value(text: str) -> int:
    return len(text) - len(text.lstrip(" \t\r\n"))


class _Buffer:
    """Text read so far and not yet consumed; grows by BUFFER_CHARS, drops what was consumed."""

    def __init__(self, handle: TextSource, text: str, position: int) -> None:
        self.handle, self.text, self.position, self.ended = handle, text, position, False

    def more(self) -> bool:
        if self.ended:
            return False
        chunk = self.handle.read(BUFFER_CHARS)
        if not chunk:
            self.ended = True
            return False
        self.text = self.text[self.position :] + chunk
        self.position = 0
        return True

    def next_char(self) -> str:
        """The next character that is not whitespace (not consumed), "" at the end of the text."""
        while True:
            # a search from the position, not a strip of the rest: that copied the buffer (1 MiB) for every item
            found = _NOT_SPACE.search(self.text, self.position)
            self.position = found.start() if found else len(self.text)
            if self.position < len(self.text) or not self.more():
                return self.text[self.position : self.position + 1]

    def value(self) -> Any:
        while True:
            try:
                value, end = strict_json.decode_at(self.text, self.position)
            except json.JSONDecodeError as error:
                cut = error.pos >= len(self.text) - _CUT_SLACK or error.msg.startswith("Unterminated string")
                if cut and self.more():
                    continue
                raise StreamProblem(f"invalid JSON: {error.msg}") from None
            except strict_json.StrictJSONError as error:
                raise StreamProblem(f"invalid JSON: {error.message}") from None
            if _may_go_on(value, self.text, end) and self.more():  # a number cut by the buffer ("0." "1e")
                continue
            self.position = end
            return value


_NOT_SPACE = re.compile(r"[^ \t\r\n]")
_NUMBER_CHARS = frozenset("0123456789.eE+-")


def _may_go_on(value: Any, text: str, end: int) -> bool:
    """Whether a value read up to `end` may be longer: nothing after it yet, or a number followed only by
    characters that could still belong to it. (The rest of the buffer is not copied for a value that is no
    number: that copy cost more than reading the item.)"""
    if end >= len(text):
        return True
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return is_number and all(ch in _NUMBER_CHARS for ch in text[end:])


def _array_items(handle: TextSource, head: str, after_bracket: int) -> Iterator[tuple[str, Any, int | None]]:
    buffer = _Buffer(handle, head, after_bracket)
    index = 0
    if buffer.next_char() == "]":
        buffer.position += 1
    else:
        while True:
            yield "item", buffer.value(), index
            index += 1
            separator = buffer.next_char()
            buffer.position += 1
            if separator == "]":
                break
            if separator != ",":
                found = f"{separator!r}" if separator else "the end of the text"
                raise StreamProblem(f"invalid JSON: expected ',' or ']' after item {index - 1}, found {found}")
    if buffer.next_char():
        raise StreamProblem("invalid JSON: text after the closing ']' of the array")


def _documents(handle: TextSource, head: str) -> Iterator[tuple[str, Any, int | None]]:
    """One document, or NDJSON: the first line decides (a whole value on it, and more lines after, is NDJSON)."""
    lines = _lines(handle, head)
    first = next(lines, None)
    if first is None:
        raise StreamProblem("invalid JSON: Expecting value", 1)
    try:
        value = strict_json.loads(first)
    except strict_json.StrictJSONError:  # not a whole value on one line: one document over several lines
        rest = "".join(lines)
        try:
            yield "document", strict_json.loads(first + rest), None
        except strict_json.StrictJSONError as error:
            if not error.trailing:
                raise StreamProblem(f"invalid JSON: {error.message}", error.line, error.column) from None
            several = "invalid JSON: several values, not one per line (NDJSON)"
            raise StreamProblem(several, error.line, error.column) from None
        return
    number = 1
    following = _next_value_line(lines, number)
    if following is None:
        yield "document", value, None
        return
    yield "line", value, 1
    while following is not None:
        number, text = following
        try:
            yield "line", strict_json.loads(text), number
        except strict_json.StrictJSONError as error:
            yield "problem", f"invalid JSON: {error.message}", number
        following = _next_value_line(lines, number)


def _next_value_line(lines: Iterator[str], number: int) -> tuple[int, str] | None:
    for line in lines:
        number += 1
        if line.strip():
            return number, line
    return None


def _lines(handle: TextSource, head: str) -> Iterator[str]:
    """The lines of the text, each with its newline (so that they join back into the text)."""
    pending = head
    while True:
        *complete, pending = pending.split("\n")
        yield from (line + "\n" for line in complete)
        chunk = handle.read(BUFFER_CHARS)
        if not chunk:
            break
        pending += chunk
    if pending:
        yield pending
