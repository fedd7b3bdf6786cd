"""Reading payloads for `eris validate`: files, folders, stdin; one resource, an array, or NDJSON."""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.cli.decoded_text import DecodedText, NotUtf8Text
from conformance.cli.streaming import StreamProblem, TextSource, stream_values
from profiles import fast_json, strict_json

NDJSON_SUFFIXES = (".ndjson", ".jsonl")
JSON_SUFFIXES = (".json", *NDJSON_SUFFIXES)


@dataclass(frozen=True, slots=True)
class Payload:
    """One resource to validate. `prefix` is the JSON Pointer of the resource inside its file
    (an array element); `line` is its line in an NDJSON file."""

    source: str
    data: Any
    prefix: str = ""
    line: int | None = None

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source

    def __reduce__(self) -> tuple[type[Payload], tuple[Any, ...]]:
        return Payload, (self.source, self.data, self.prefix, self.line)  # as Issue's: sent back by --jobs workers


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """An input that could not be read as JSON; nothing of it was validated."""

    source: str
    message: str
    line: int | None = None
    column: int | None = None

    @property
    def label(self) -> str:
        parts = [self.source, *(str(n) for n in (self.line, self.column) if n is not None)]
        return ":".join(parts)


EMPTY_FOLDER = "folder holds no .json, .ndjson or .jsonl file"


def json_files(folder: Path, skip: Path | None = None) -> list[Path]:
    """The .json, .ndjson and .jsonl files below `folder` (symbolic links to folders not followed), in the order
    of their path's parts; never `skip` (the report being written)."""
    return [Path(name) for name in json_file_names(folder, skip)]


def json_file_names(folder: Path, skip: Path | None = None) -> list[str]:
    """json_files as the names of the files. os.scandir, not Path.rglob: the type of an entry comes with the listing,
    so a folder of a hundred thousand files costs no stat of each (and no Path of each: 20,000 cost 60 ms). Each
    folder's entries sorted by name and folders entered where they sort: the order of the paths' parts, without
    sorting every path."""
    found: list[str] = []
    pending: list[Iterator[os.DirEntry[str]]] = [_sorted_entries(str(folder))]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
        elif entry.is_dir(follow_symlinks=False):
            pending.append(_sorted_entries(entry.path))
        elif _has_json_suffix(entry.name) and entry.is_file() and (skip is None or not _is_skipped(entry, skip)):
            found.append(entry.path)
    return found


def _sorted_entries(folder: str) -> Iterator[os.DirEntry[str]]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return iter(())  # an unreadable folder holds nothing we can read (as rglob found nothing there)
    entries.sort(key=_name)
    return iter(entries)


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _has_json_suffix(name: str) -> bool:
    """os.path.splitext(name)[1].lower() in JSON_SUFFIXES, without splitext: a suffix after a non-dot character."""
    dot = name.rfind(".")
    return name[dot:].lower() in JSON_SUFFIXES and len(name) - len(name.lstrip(".")) < dot


def _is_skipped(entry: os.DirEntry[str], skip: Path) -> bool:
    """Whether the entry is the file `skip` (resolved): only an entry of its name or a link can be."""
    return (entry.name == skip.name or entry.is_symlink()) and Path(entry.path).resolve() == skip


def iter_payloads(paths: Iterable[str], *, skip: Path | None = None) -> Iterator[Payload | ReadProblem]:
    """Every payload of every input, in order, with a ReadProblem for what cannot be read.
    `skip` (the report being written) is never read as an input."""
    for path in paths:
        if path == "-":
            yield from from_stream("<stdin>", DecodedText(sys.stdin.buffer))
            continue
        target = Path(path)
        if target.is_dir():
            files = json_files(target, skip)
            if not files:
                yield ReadProblem(path, EMPTY_FOLDER)
            for file in files:
                yield from _from_file(file)
        elif target.is_file():
            yield from _from_file(target)
        else:
            yield ReadProblem(path, "no such file or folder")


def _from_file(path: Path) -> Iterator[Payload | ReadProblem]:
    source = str(path)
    try:
        if path.suffix.lower() in NDJSON_SUFFIXES:
            with path.open("rb") as lines:
                yield from ndjson_payloads(source, _without_bom(lines))
            return
        handle = path.open("rb")
    except OSError as error:
        yield ReadProblem(source, f"cannot be read: {error.strerror}")
        return
    with handle:
        yield from from_stream(source, DecodedText(handle))


def from_stream(source: str, handle: TextSource) -> Iterator[Payload | ReadProblem]:
    """Every payload of a JSON text read as a stream (see conformance.cli.streaming): memory stays flat."""
    try:
        for kind, value, position in stream_values(handle):
            if kind == "item":
                yield Payload(source, value, prefix=f"/{position}")
            elif kind == "line":
                yield Payload(source, value, line=position)
            elif kind == "problem":
                yield ReadProblem(source, value, position)
            else:
                yield Payload(source, value)
    except StreamProblem as problem:
        yield ReadProblem(source, problem.message, problem.line, problem.column)
    except NotUtf8Text as error:
        yield ReadProblem(source, str(error))
    except OSError as error:
        yield ReadProblem(source, f"cannot be read: {error.strerror}")


def ndjson_payloads(source: str, lines: Iterable[bytes], first_line: int = 1) -> Iterator[Payload | ReadProblem]:
    """The payloads of NDJSON lines (bytes, each read on its own: a line that is not UTF-8 or not JSON is a problem
    of that line only), numbered from `first_line`; blank lines are skipped and counted. (A run of lines in memory
    is read faster, all at once, by conformance.cli.checking.)"""
    loads = fast_json.loads
    for number, raw in enumerate(lines, start=first_line):
        line = raw.rstrip(b"\r\n")
        try:
            yield Payload(source, loads(line), line=number)
        except strict_json.StrictJSONError as error:
            if line.strip():  # a blank line is no value, and no problem either
                yield ReadProblem(source, f"invalid JSON: {error.message}", number, error.column)


def _without_bom(lines: Iterable[bytes]) -> Iterator[bytes]:
    first = True
    for line in lines:
        yield line.removeprefix(codecs.BOM_UTF8) if first else line
        first = False
