"""The work of `eris validate` cut into units that any process can check: a run of NDJSON lines, a few small files,
or payloads already read. Each unit comes back as a `Checked`: how many payloads had nothing to report, and the
payloads with issues and the read problems, in input order. The same function checks a unit in the command's own
process, in a worker of `--jobs`, or in a Dask task (conformance.cli.dask_validate), so all three report alike.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.cli.inputs import (
    NDJSON_SUFFIXES,
    Payload,
    ReadProblem,
    iter_payloads,
    ndjson_payloads,
    ndjson_values,
)
from profiles import fast_json, strict_json
from profiles.issues import Issue
from profiles.validator import RESOURCE, Validator

__all__ = ["Checked", "Checker", "FileBatch", "Lines", "Payloads", "Unit"]


@dataclass(frozen=True, slots=True)
class Lines:
    """NDJSON lines of `source`, the first of them line `first_line`; whole lines only (UTF-8 bytes)."""

    source: str
    first_line: int
    data: bytes


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


Unit = Lines | FileBatch | Payloads
Reported = tuple[Payload, list[Issue]] | ReadProblem


@dataclass(slots=True)
class Checked:
    clean: int = 0
    """Payloads checked with no issue at all (only counted)."""
    reported: list[Reported] = field(default_factory=list)
    """Payloads with issues (their data reduced to the resourceType) and read problems, in input order."""
    size: int = 0
    """Bytes of input checked (for progress)."""


@dataclass(frozen=True)
class Checker:
    """Checks units against one validator with the options of the command."""

    validator: Validator
    resource_type: str | None = None
    profile: str | None = None
    context: str = RESOURCE

    def check(self, unit: Unit) -> Checked:
        if isinstance(unit, Lines):
            return self._lines(unit)
        checked = Checked(size=unit.size)
        if isinstance(unit, FileBatch):
            items: Iterator[Payload | ReadProblem] = (item for path in unit.paths for item in _small_file(path))
        else:
            items = iter(unit.items)
        for item in items:
            if isinstance(item, ReadProblem):
                checked.reported.append(item)
                continue
            issues = self.validator.validate(
                item.data, resource_type=self.resource_type, profile=self.profile, context=self.context
            )
            if issues:
                checked.reported.append((_reduced(item), issues))
            else:
                checked.clean += 1
        return checked

    def _lines(self, unit: Lines) -> Checked:
        """check() of NDJSON lines, the loop of millions of payloads: a line with nothing to report costs its
        parse and its check, and no Payload."""
        checked = Checked(size=len(unit.data) + 1)
        validate, options, source = self.validator.validate, self._options, unit.source
        clean, reported = 0, checked.reported
        for number, value in ndjson_values(source, unit.data.split(b"\n"), unit.first_line):
            if isinstance(value, ReadProblem):
                reported.append(value)
                continue
            issues = validate(value, **options)
            if issues:
                reported.append((_reduced(Payload(source, value, line=number)), issues))
            else:
                clean += 1
        checked.clean = clean
        return checked

    @property
    def _options(self) -> dict[str, Any]:
        return {"resource_type": self.resource_type, "profile": self.profile, "context": self.context}


def _small_file(path: str) -> Iterator[Payload | ReadProblem]:
    """A small file read whole: one document, an array or NDJSON. Whatever is not plainly one of these (a broken
    text, several values in a .json file) is read again by the streaming reader, which explains it."""
    try:
        with open(path, "rb") as handle:
            data = handle.read().removeprefix(codecs.BOM_UTF8)
    except OSError:
        yield from iter_payloads([path])  # says why it cannot be read
        return
    if path.lower().endswith(NDJSON_SUFFIXES):
        yield from ndjson_payloads(path, data.split(b"\n"))
        return
    try:
        value = fast_json.loads(data)
    except strict_json.StrictJSONError:
        yield from iter_payloads([path])
        return
    if isinstance(value, list):
        yield from (Payload(path, item, prefix=f"/{index}") for index, item in enumerate(value))
    else:
        yield Payload(path, value)


def _reduced(payload: Payload) -> Payload:
    """The payload as the report needs it: its resourceType, not the whole document (sent back from a worker)."""
    data: Any = payload.data
    kept = {"resourceType": data["resourceType"]} if isinstance(data, dict) and "resourceType" in data else None
    return Payload(payload.source, kept, payload.prefix, payload.line)
