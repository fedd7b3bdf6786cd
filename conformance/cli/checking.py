"""The work of `eris validate` cut into units that any process can check: a span of an NDJSON file (read by the
process that checks it), a run of NDJSON lines already read (stdin), a few small files, or payloads already read.
Each unit comes back as a `Checked`: how many payloads had nothing to report, and the payloads with issues and the
read problems, in input order. The same function checks a unit in the command's own process, in a worker of
`--jobs`, or in a Dask task (conformance.cli.dask_validate), so all three report alike.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol, TypeVar

from conformance.cli.inputs import NDJSON_SUFFIXES, Payload, ReadProblem, iter_payloads
from conformance.cli.unit_bytes import file_bytes, read_span
from profiles import fast_json, strict_json
from profiles.compiled_gate import Refusal
from profiles.issues import Issue
from profiles.validator import RESOURCE, Validator

__all__ = ["Checked", "Checker", "FileBatch", "Lines", "Payloads", "Span", "Unit", "renumbered"]


@dataclass(frozen=True, slots=True)
class Lines:
    """NDJSON lines of `source`, the first of them line `first_line`; whole lines only (UTF-8 bytes)."""

    source: str
    first_line: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Span:
    """The NDJSON lines of the file `source` that begin at a byte from `start` up to `end` (None: the end of the file),
    read by the process that checks them: the command's process only cuts the file, at any byte (a line that goes on
    past `end` is read to its end; one that began before `start` is left to the span before). Lines are numbered from
    1 in the span's result; `renumbered` adds the lines of the spans before it."""

    source: str
    start: int
    end: int | None


@dataclass(frozen=True, slots=True)
class FileBatch:
    """Files read whole by the process that checks them (small ones: the cost of a file is opening it)."""

    paths: tuple[str, ...]
    size: int = 0
    """Their bytes (for progress)."""


@dataclass(frozen=True, slots=True)
class Payloads:
    """Payloads and read problems the command's process already read (items of an array, a stream)."""

    items: tuple[Payload | ReadProblem, ...]
    size: int = 0
    """The bytes of the input they were read from, as far as known (for progress)."""


Unit = Lines | Span | FileBatch | Payloads
LINES_TOGETHER = 16
"""NDJSON lines parsed and checked together: enough to share the cost of a pass over their text, few enough for
their values to stay in the processor's cache."""
EXPLAIN_TOGETHER = 8
"""Refused payloads explained together (conformance.cli.checking.Checker._explained)."""
Reported = tuple[Payload, list[Issue]] | ReadProblem


@dataclass(slots=True)
class Checked:
    clean: int = 0
    """Payloads checked with no issue at all (only counted)."""
    reported: list[Reported] = field(default_factory=list)
    """Payloads with issues (their data reduced to the resourceType) and read problems, in input order."""
    size: int = 0
    """Bytes of input checked (for progress)."""
    span_start: int | None = None
    """For a Span: its start, and `lines` the lines it held (its findings numbered from 1 in the span)."""
    lines: int = 0

    def shift_lines(self, lines: int) -> None:
        """Its findings numbered by the lines of the file: `lines` came before its span."""
        if self.reported:
            self.reported = [_shifted(item, lines) for item in self.reported]


@dataclass(frozen=True)
class Checker:
    """Checks units against one validator with the options of the command."""

    validator: Validator
    resource_type: str | None = None
    profile: str | None = None
    context: str = RESOURCE

    def check(self, unit: Unit) -> Checked:
        if isinstance(unit, Span):
            return self._span(unit)
        if isinstance(unit, Lines):
            return self._lines(unit)
        if isinstance(unit, FileBatch):
            return self._files(unit)
        checked = Checked(size=unit.size)
        self._items(iter(unit.items), checked)
        return checked

    def _files(self, batch: FileBatch) -> Checked:
        """check() of small files: a file of one document (nearly all) costs its read, parse and gate, and no Payload
        unless it has issues; the documents the gate refuses are explained after the batch's others (as in
        _lines)."""
        checked = Checked(size=batch.size)
        passes_gate, clean = self._passes_gate, 0
        later: list[Any] = []  # in file order: a _Refused document to explain, or what a file already reported
        for path in batch.paths:
            data = file_bytes(path)
            if data is None:
                clean += self._reported_of(iter_payloads([path]), later)  # says why it cannot be read
                continue
            data = data.removeprefix(codecs.BOM_UTF8)
            if path.lower().endswith(NDJSON_SUFFIXES):
                lines = self._lines(Lines(path, 1, data))
                clean += lines.clean
                later.extend(lines.reported)
                continue
            try:
                value = fast_json.loads(data)
            except strict_json.StrictJSONError:
                # not plainly one document or an array (a broken text, several values in a .json file): the
                # streaming reader reads it again, and explains
                clean += self._reported_of(iter_payloads([path]), later)
                continue
            if type(value) is list:
                items = (Payload(path, item, prefix=f"/{index}") for index, item in enumerate(value))
                clean += self._reported_of(items, later)
            elif passes_gate(value):
                clean += 1
            else:
                later.append(_Refused(path, value))
        explain, reported = self._explain, checked.reported
        for item in later:
            if type(item) is not _Refused:
                reported.append(item)
                continue
            issues = explain(item.value)
            if issues:
                reported.append((Payload(item.path, _kept(item.value)), issues))
            else:
                clean += 1
        checked.clean += clean
        return checked

    def _reported_of(self, items: Iterator[Payload | ReadProblem], reported: list[Any]) -> int:
        """_items into `reported`; how many payloads had nothing to report."""
        checked = Checked()
        self._items(items, checked)
        reported.extend(checked.reported)
        return checked.clean

    def _items(self, items: Iterator[Payload | ReadProblem], checked: Checked) -> None:
        validate = self._validate
        for item in items:
            if isinstance(item, ReadProblem):
                checked.reported.append(item)
                continue
            issues = validate(item.data)
            if issues:
                checked.reported.append((_reduced(item), issues))
            else:
                checked.clean += 1

    def _span(self, span: Span) -> Checked:
        try:
            data = read_span(span.source, span.start, span.end)
        except OSError as error:
            problem = ReadProblem(span.source, f"cannot be read: {error.strerror}", 1)
            return Checked(reported=[problem], span_start=span.start, lines=1)
        if not data:  # no line begins in the span
            return Checked(span_start=span.start)
        lines = data.count(b"\n")
        if data.endswith(b"\n"):
            data = data[:-1]
        else:
            lines += 1  # the last line of the file, without a newline
        checked = self._lines(Lines(span.source, 1, data))
        checked.span_start, checked.lines = span.start, lines
        return checked

    def _lines(self, unit: Lines) -> Checked:
        """check() of NDJSON lines, the loop of millions of payloads: a few dozen lines parsed together
        (fast_json.loads_lines), their values put through the clean gate by one map and dropped; the values it refuses
        are explained after all the unit's lines, a Payload made only for a line with issues."""
        data, source, first_line = unit.data, unit.source, unit.first_line
        checked = Checked(size=len(data) + 1)
        passes_gate, gate_refusals, loads_lines = self._passes_gate, self._gate_refusals, fast_json.loads_lines
        lines = data.split(b"\n")
        later: list[
            tuple[int, Any, Refusal]
        ] = []  # (line, value the gate refused or ReadProblem, what is known), in order
        clean = 0
        for start in range(0, len(lines), LINES_TOGETHER):
            part = lines[start : start + LINES_TOGETHER]
            values, refused = loads_lines(part)
            if refused:
                problems = _line_problems(source, part, values, refused, first_line + start)
                for at, value in enumerate(values):
                    if at in problems:
                        if problems[at] is not None:  # None: a blank line
                            later.append((first_line + start + at, problems[at], False))
                    elif passes_gate(value):
                        clean += 1
                    else:
                        later.append((first_line + start + at, value, False))
                continue
            refusals = gate_refusals(values)
            clean += len(values) - len(refusals)
            if refusals:
                later.extend((first_line + start + at, values[at], held) for at, held in refusals)
                if len(later) >= EXPLAIN_TOGETHER:
                    clean += self._explained(source, later, checked.reported)
                    later = []
        checked.clean = clean + self._explained(source, later, checked.reported)
        return checked

    def _explained(self, source: str, later: list[tuple[int, Any, Refusal]], reported: list[Reported]) -> int:
        """The refused payloads of `later` explained into `reported`; how many had nothing to report. Explained
        together, apart from the others (interleaved with them, each cost twice as much: the two paths' code and
        data evicting each other), but a few at a time: the more refused payloads' values are kept, the more of them
        have left the processor's caches by the time they are explained."""
        explain, clean = self._explain, 0
        for line, item, known in later:
            if type(item) is ReadProblem:
                reported.append(item)
                continue
            issues = explain(item, known=known)
            if issues:
                reported.append((Payload(source, _kept(item), "", line), issues))
            else:
                clean += 1
        return clean

    @property
    def _passes_gate(self) -> Callable[[Any], bool]:
        return self._with_options(self.validator.passes_gate)

    @property
    def _gate_refusals(self) -> Callable[[list[Any]], list[tuple[int, Refusal]]]:
        return self._with_options(self.validator.gate_refusals)

    @property
    def _explain(self) -> Callable[..., list[Issue]]:
        return self._with_options(self.validator.explain)

    @property
    def _validate(self) -> Callable[[Any], list[Issue]]:
        return self._with_options(self.validator.validate)

    def _with_options(self, method: Callable[..., Any]) -> Callable[[Any], Any]:
        """A method of the validator with the command's options bound (none to bind in the common case)."""
        if self.resource_type is None and self.profile is None and self.context == RESOURCE:
            return method
        return partial(method, resource_type=self.resource_type, profile=self.profile, context=self.context)


@dataclass(frozen=True, slots=True)
class _Refused:
    """A file's document the clean gate refused, explained after the other files of its batch."""

    path: str
    value: Any


def _line_problems(
    source: str, lines: list[bytes], values: list[Any], refused: list[int], first_line: int
) -> dict[int, ReadProblem | None]:
    """The refused lines: a ReadProblem each, None for a blank line (no value, and no problem either). The message is
    the one of the line without its carriage return (CRLF lines)."""
    problems: dict[int, ReadProblem | None] = {}
    for index in refused:
        line = lines[index].rstrip(b"\r\n")
        if not line.strip():
            problems[index] = None
            continue
        error = values[index]
        if len(line) != len(lines[index]):
            try:
                fast_json.loads(line)
            except strict_json.StrictJSONError as without_return:
                error = without_return
        number = first_line + index
        problems[index] = ReadProblem(source, f"invalid JSON: {error.message}", number, error.column)
    return problems


class _Numbered(Protocol):
    span_start: int | None
    lines: int

    def shift_lines(self, lines: int) -> None: ...


Result = TypeVar("Result", bound=_Numbered)


def renumbered(results: Iterable[Result]) -> Iterator[Result]:
    """The results of units (Checked, or as conformance.cli.encoding encodes them) in input order, the findings of
    each span numbered by the lines of the file (the lines of the spans of that file before it added)."""
    before = 0
    for checked in results:
        if checked.span_start is not None:
            if checked.span_start == 0:
                before = 0
            if before:
                checked.shift_lines(before)
            before += checked.lines
        yield checked


def _shifted(item: Reported, lines: int) -> Reported:
    if isinstance(item, ReadProblem):
        return replace(item, line=None if item.line is None else item.line + lines)
    payload, issues = item
    if payload.line is None:
        return item
    return Payload(payload.source, payload.data, payload.prefix, payload.line + lines), issues  # replace() costs 3x


def _reduced(payload: Payload) -> Payload:
    """The payload as the report needs it: its resourceType, not the whole document (sent back from a worker)."""
    return Payload(payload.source, _kept(payload.data), payload.prefix, payload.line)


def _kept(data: Any) -> dict[str, Any] | None:
    """What the report needs of a payload's data: its resourceType (one dict a type, shared: nothing writes to it)."""
    if not isinstance(data, dict) or "resourceType" not in data:
        return None
    resource_type = data["resourceType"]
    if type(resource_type) is not str:
        return {"resourceType": resource_type}
    kept = _KEPT_TYPES.get(resource_type)
    if kept is None:
        if len(_KEPT_TYPES) >= _KEPT_TYPES_AT_MOST:
            _KEPT_TYPES.clear()
        kept = _KEPT_TYPES[resource_type] = {"resourceType": resource_type}
    return kept


_KEPT_TYPES: dict[str, dict[str, Any]] = {}
_KEPT_TYPES_AT_MOST = 256
"""Types whose data is kept: the contract's few, and a bound for an input of made-up ones."""
