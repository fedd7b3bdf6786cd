"""A bounded cache of served answers (bytes), least recently used first out, emptied whenever the data changed.

The caller names the version of the data an answer was read at (`Store.writes`); an answer is only ever served at
the version it was read at, so that no read sees an answer older than the last write. Memory is bounded by the
bytes of the answers and keys held, not by their number."""

from __future__ import annotations

from collections import OrderedDict

ENTRY_OVERHEAD = 200
"""Bytes counted per entry beyond its answer and its key: the objects and the dict slot, roughly."""


class AnswerCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._answers: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._version: int | None = None

    def __len__(self) -> int:
        return len(self._answers)

    @property
    def size(self) -> int:
        """The bytes counted against `max_bytes`."""
        return self._bytes

    def get(self, key: str, version: int) -> bytes | None:
        if version != self._version:
            self._empty(version)
            return None
        answer = self._answers.get(key)
        if answer is not None:
            self._answers.move_to_end(key)
        return answer

    def put(self, key: str, answer: bytes, version: int) -> None:
        if version != self._version:
            self._empty(version)
        cost = _cost(key, answer)
        if cost > self.max_bytes // 16:  # one large answer would push out many small ones, each read more often
            return
        previous = self._answers.pop(key, None)
        if previous is not None:
            self._bytes -= _cost(key, previous)
        self._answers[key] = answer
        self._bytes += cost
        while self._bytes > self.max_bytes:
            self._bytes -= _cost(*self._answers.popitem(last=False))

    def _empty(self, version: int) -> None:
        self._answers.clear()
        self._bytes = 0
        self._version = version


def _cost(key: str, answer: bytes) -> int:
    return len(key) + len(answer) + ENTRY_OVERHEAD
