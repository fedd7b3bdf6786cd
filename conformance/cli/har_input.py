"""Reading HAR files for `eris validate`: the entries of log.entries one at a time (ijson, a streaming parser: the
whole file is never in memory), each judged by the judge of an exchange (conformance.exchange_judge)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson

from conformance.cli.decoded_text import UTF16_MARKS, NotUtf8Text
from conformance.cli.streamed_json_errors import PositionedStream, described
from conformance.client.har_exchanges import BaseUrl, NotAnEntry, exchange_of_entry
from conformance.exchange_judge import ExchangeFinding, ExchangeJudge

__all__ = ["HarUnreadable", "JudgedEntry", "judged_entries"]

_HEAD_BYTES = 1 << 20
"""The first bytes of a HAR kept while it streams: a file with no entries is read again from them to say why."""


class HarUnreadable(Exception):
    """The HAR cannot be read (further): not JSON, or not a HAR. One line."""


@dataclass(frozen=True, slots=True)
class JudgedEntry:
    """An entry of a HAR file (log.entries[index]) and what the judge found in it; `problem` when it is no entry the
    judge can read."""

    source: str
    index: int
    method: str
    path: str
    findings: list[ExchangeFinding]
    problem: str | None = None

    @property
    def label(self) -> str:
        where = f"{self.source}:log.entries[{self.index}]"
        return f"{where} {self.method} {self.path}" if self.method else where

    @property
    def invalid(self) -> bool:
        return any(found.issue.is_error for found in self.findings)


class _KeepingHead:
    """A binary stream that keeps what was read of its first _HEAD_BYTES, until `forget()`."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.head, self.keeping = stream, bytearray(), True

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        if self.keeping and len(self.head) < _HEAD_BYTES:
            self.head += data[: _HEAD_BYTES - len(self.head)]
        return data

    def forget(self) -> None:
        """An entry came: the head will not be needed to say why there is none."""
        self.head, self.keeping = bytearray(), False


def judged_entries(
    source: str, stream: IO[bytes], judge: ExchangeJudge, base_url: BaseUrl | None
) -> Iterator[JudgedEntry]:
    """Every entry of the HAR `stream`, judged, in order. The base URL: `base_url`, else the origin of the first
    entry's URL. HarUnreadable where the text stops being JSON, or when it holds no log.entries (after the entries
    already yielded)."""
    kept = _KeepingHead(stream)
    positioned = PositionedStream(kept)
    count = 0
    base = base_url
    try:
        for index, entry in enumerate(ijson.items(positioned, "log.entries.item", use_float=True)):
            if not count:
                kept.forget()
            count += 1
            if base is None:
                base = _first_base(entry)
            yield _judged(source, index, entry, judge, base)
    except ijson.JSONError as error:
        if count == 0 and kept.head[:2] in UTF16_MARKS:
            raise HarUnreadable(str(NotUtf8Text(0, bytes(kept.head[:1]), bytes(kept.head[:2])))) from None
        message = error.args[0] if error.args and isinstance(error.args[0], str | bytes) else str(error)
        raise HarUnreadable(f"not JSON: {described(message, positioned)}") from None
    except UnicodeDecodeError as error:
        raise HarUnreadable(f"not UTF-8 text (byte {error.start})") from None
    if count == 0:
        why = _why_no_entries(bytes(kept.head), complete=len(kept.head) < _HEAD_BYTES)
        if why is not None:
            raise HarUnreadable(why)


def _first_base(entry: Any) -> BaseUrl | None:
    try:
        return BaseUrl(BaseUrl.of(entry["request"]["url"]).origin)  # the host seen first, with no path of its own
    except (TypeError, KeyError, ValueError):
        return None


def _judged(source: str, index: int, entry: Any, judge: ExchangeJudge, base: BaseUrl | None) -> JudgedEntry:
    try:
        exchange = exchange_of_entry(entry, base or BaseUrl(""))
    except NotAnEntry as error:
        return JudgedEntry(source, index, "", "", [], problem=f"not a HAR entry: {error}")
    return JudgedEntry(source, index, exchange.method, exchange.path, judge.judge(exchange))


def _why_no_entries(head: bytes, *, complete: bool) -> str | None:
    """Why a text without entries is no HAR; None for a HAR whose log.entries is empty."""
    if not complete:
        return "not a HAR: no log.entries array in its first MiB (a HAR holds its exchanges there)"
    try:
        document = json.loads(head)
    except ValueError:
        return "not JSON"
    if not isinstance(document, dict):
        return f"not a HAR: the document is a JSON {type(document).__name__}, not an object with a log"
    log = document.get("log")
    if not isinstance(log, dict):
        return "not a HAR: it has no log object"
    if not isinstance(log.get("entries"), list):
        return "not a HAR: its log has no entries array"
    return None
