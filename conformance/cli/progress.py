"""Progress of `eris validate` on a terminal: payloads checked, invalid ones, bytes of input and the time left.

Shown on stderr only when stderr is a terminal and the run lasts more than a moment (a pre-commit hook over a few
files shows nothing); the report on stdout is never touched. The line disappears when the run ends.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from conformance.cli.inputs import json_files

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["ValidateProgress", "input_bytes"]

SHOW_AFTER_SECONDS = 1.0


def input_bytes(paths: Iterable[str]) -> int | None:
    """The bytes of every input file, or None when one of them is stdin (its size is unknown)."""
    total = 0
    for path in paths:
        if path == "-":
            return None
        target = Path(path)
        try:
            files = json_files(target) if target.is_dir() else [target] if target.is_file() else []
            total += sum(file.stat().st_size for file in files)
        except OSError:
            continue  # the reader reports it
    return total


class ValidateProgress:
    def __init__(self, stream: TextIO, paths: Iterable[str]) -> None:
        self.enabled = stream.isatty()
        # listing a folder of a million files again costs seconds: only for a terminal that shows the figure
        self.stream, self.total = stream, input_bytes(paths) if self.enabled else None
        self.started = time.monotonic()
        self.documents = self.invalid = self.done_bytes = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def advance(self, documents: int, invalid: int, size: int) -> None:
        """A unit of work checked: its payloads, the invalid ones among them, its bytes of input."""
        if not self.enabled:
            return
        self.documents += documents
        self.invalid += invalid
        self.done_bytes += size
        if self._progress is None:
            if time.monotonic() - self.started < SHOW_AFTER_SECONDS:
                return
            # imported here: rich takes 30 ms to import, a run that shows no progress (CI, a pipe) never needs it
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("[bold]eris validate[/]"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%" if self.total else ""),
                TextColumn("{task.fields[documents]:,} documents, {task.fields[invalid]:,} invalid"),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("validate", total=self.total or None, documents=0, invalid=0)
        assert self._task is not None
        self._progress.update(self._task, completed=self.done_bytes, documents=self.documents, invalid=self.invalid)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
