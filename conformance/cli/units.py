"""The inputs of `eris validate` cut into units of work (conformance.cli.checking), read as a stream: memory holds a
few units whatever the size of the input.

NDJSON (a .ndjson/.jsonl file, or stdin and .json files whose first line is a whole value with more lines after it,
as conformance.cli.streaming decides) goes out as spans of the file, read and parsed where they are checked (stdin as
runs of whole lines read here); small files go out by name, in batches; a large JSON document or array is read here,
as before, its items sent out in batches.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from conformance.cli.checking import FileBatch, Lines, Payloads, Span, Unit
from conformance.cli.decoded_text import DecodedText
from conformance.cli.inputs import EMPTY_FOLDER, NDJSON_SUFFIXES, Payload, ReadProblem, from_stream, json_file_names
from profiles import fast_json, strict_json

__all__ = ["LINES_BYTES", "units"]

LINES_BYTES = 1 << 20
"""NDJSON bytes of one unit (a span of a file, or lines of stdin): about a thousand payloads, enough to make sending
it to a worker cheap."""
TAIL_SPANS = 3
"""The run's last spans, this many, are each cut in four, so that the processes of --jobs end together: a whole span
taken last by one of them kept it ~15 ms (2% of a run of 100,000 payloads) after the other had ended; a quarter
span, ~4 ms. Only the run's: cut at the end of every file, a folder of 2 MB NDJSON files took 8% longer."""
HEAD_BYTES = 1 << 20
"""The first bytes of stdin or a large .json file, read to tell NDJSON (a whole value on the first line) from one
document."""
FILES_PER_BATCH = 256
"""Small files a unit: 64 spent a fifth of the command's CPU under --jobs 2 on sending units and taking results."""
BATCH_BYTES = 1 << 20
"""A batch of files ends at this many bytes too, as a unit of lines does."""
PAYLOADS_PER_BATCH = 256
SMALL_FILE_BYTES = 1 << 20
_BOM = codecs.BOM_UTF8


def units(paths: Iterable[str], *, skip: Path | None = None) -> Iterator[Unit]:
    """The units of every input, in input order (the order of conformance.cli.inputs.iter_payloads); the last
    TAIL_SPANS, where they are spans of a file, each cut in four."""
    held: deque[Span] = deque()  # the spans that may be the run's last, each a few bytes
    for unit in _units(paths, skip):
        if type(unit) is not Span:  # not held: stdin's lines go on as they are read
            yield from held
            held.clear()
            yield unit
            continue
        held.append(unit)
        if len(held) > TAIL_SPANS:
            yield held.popleft()
    for span in held:
        yield from _quartered(span)


def _quartered(span: Span) -> Iterator[Span]:
    """The span in four, cut at any byte as spans are (the last one of a file to its end, as it is now)."""
    end = span.end
    if end is None:
        try:
            end = os.stat(span.source).st_size
        except OSError:
            end = span.start  # its reader will say why it cannot be read
    quarter = (end - span.start) // 4
    if quarter < 1:
        yield span
        return
    for part in range(3):
        yield Span(span.source, span.start + part * quarter, span.start + (part + 1) * quarter)
    yield Span(span.source, span.start + 3 * quarter, span.end)


def _units(paths: Iterable[str], skip: Path | None) -> Iterator[Unit]:
    for path in paths:
        if path == "-":
            yield from _stream_units("<stdin>", sys.stdin.buffer, by_name=False)
            continue
        target = Path(path)
        if target.is_dir():
            files = json_file_names(target, skip)
            if not files:
                yield Payloads((ReadProblem(path, EMPTY_FOLDER),))
            yield from _file_units(files)
        elif target.is_file():
            yield from _file_units([str(target)])
        else:
            yield Payloads((ReadProblem(path, "no such file or folder"),))


def _file_units(files: list[str]) -> Iterator[Unit]:
    batch: list[str] = []
    size = 0
    for file in files:
        file_size = _size(file)
        if file_size <= SMALL_FILE_BYTES:
            batch.append(file)
            size += file_size
            if len(batch) == FILES_PER_BATCH or size >= BATCH_BYTES:
                yield FileBatch(tuple(batch), size)
                batch, size = [], 0
            continue
        if batch:
            yield FileBatch(tuple(batch), size)
            batch, size = [], 0
        yield from _large_file(file)
    if batch:
        yield FileBatch(tuple(batch), size)


def _size(file: str) -> int:
    try:
        return os.stat(file).st_size
    except OSError:
        return 0  # read with the small files, whose reader says why it cannot be read


def _large_file(source: str) -> Iterator[Unit]:
    file = Path(source)
    try:
        handle = file.open("rb")
    except OSError as error:
        yield Payloads((ReadProblem(source, f"cannot be read: {error.strerror}"),))
        return
    with handle:
        if os.path.splitext(source)[1].lower() in NDJSON_SUFFIXES:
            yield from _spans(source, handle)
        else:
            yield from _stream_units(source, handle, by_name=True)


def _spans(source: str, handle: BinaryIO) -> Iterator[Span]:
    """The file cut every LINES_BYTES bytes, whatever is there: each span is read where it is checked. The last
    one goes on to the end of the file, however long it has grown."""
    size = os.fstat(handle.fileno()).st_size
    start = 0
    while start + LINES_BYTES < size:
        yield Span(source, start, start + LINES_BYTES)
        start += LINES_BYTES
    yield Span(source, start, None)


def _stream_units(source: str, handle: BinaryIO, *, by_name: bool) -> Iterator[Unit]:
    """Stdin or a large .json file (`by_name`: a file that a worker can open): NDJSON in spans of the file or in runs
    of lines read here, anything else read here (arrays item by item)."""
    try:
        head = handle.read(HEAD_BYTES)
    except OSError as error:
        yield Payloads((ReadProblem(source, f"cannot be read: {error.strerror}"),))
        return
    if _is_ndjson(head):
        if by_name:
            yield from _spans(source, handle)
        else:
            yield from _line_units(source, handle, head)
        return
    batch: list[Payload | ReadProblem] = []
    text = DecodedText(handle, head)
    reported = 0
    for item in from_stream(source, text):
        batch.append(item)
        if len(batch) == PAYLOADS_PER_BATCH:
            yield Payloads(tuple(batch), text.bytes_read - reported)
            batch, reported = [], text.bytes_read
    if batch or text.bytes_read > reported:
        yield Payloads(tuple(batch), text.bytes_read - reported)


def _is_ndjson(head: bytes) -> bool:
    """NDJSON as conformance.cli.streaming reads it: not an array, a whole value on the first line, another value
    on a line after it. A first line longer than `head`, or a second value not yet in it, leaves the decision to
    the streaming reader (which decides alike, only slower)."""
    text = head.removeprefix(_BOM)
    if text.lstrip(b" \t\r\n").startswith(b"["):
        return False
    end = text.find(b"\n")
    if end < 0:
        return False
    try:
        fast_json.loads(text[:end])
    except strict_json.StrictJSONError:
        return False
    return bool(text[end + 1 :].strip())


def _line_units(source: str, handle: BinaryIO, head: bytes) -> Iterator[Unit]:
    pending, first_line, started = head, 1, False
    while True:
        try:
            chunk = handle.read(LINES_BYTES)
        except OSError as error:
            yield Payloads((ReadProblem(source, f"cannot be read: {error.strerror}", first_line),))
            return
        data = pending + chunk
        if not started:
            data, started = data.removeprefix(_BOM), True
        if not chunk:
            if data:
                yield Lines(source, first_line, data)
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data  # a line longer than a read: read on
            continue
        yield Lines(source, first_line, data[:cut])
        first_line += data.count(b"\n", 0, cut) + 1
        pending = data[cut + 1 :]
