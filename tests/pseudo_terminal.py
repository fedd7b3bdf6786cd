"""A real pseudo-terminal for tests of what eris shows on a terminal: a text stream whose isatty() is true, and
everything written to it, read on the other side."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def pseudo_terminal() -> Iterator[tuple[TextIO, bytearray]]:
    """(the terminal's stream, the bytes written to it so far: complete once the block is left)."""
    leader, follower = os.openpty()
    shown = bytearray()
    reader = threading.Thread(target=_drain, args=(leader, shown), daemon=True)
    reader.start()
    terminal = os.fdopen(follower, "w", encoding="utf-8")
    try:
        yield terminal, shown
    finally:
        terminal.close()
        reader.join(timeout=5)
        os.close(leader)


def _drain(fd: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal's other side closed
            return
        if not chunk:
            return
        into.extend(chunk)
