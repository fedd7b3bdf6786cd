"""Progress of `eris certify`: the part of the contract under test, tests done of all, failures so far, time left.

A pytest plugin of the run. On a terminal (and not in CI: `CI` set to anything but false) it draws a rich progress
bar; elsewhere it prints a plain line when a part starts and at every tenth of the run, which a CI log keeps
readably; with --quiet it is not installed. pytest's own dots are not shown beside it (conformance/run/certify.py).
"""

from __future__ import annotations

import os
import time
from typing import TextIO

import pytest
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["RunProgress", "progress_mode"]

BAR, LINES = "bar", "lines"


def progress_mode(stream: TextIO) -> str:
    """BAR on an interactive terminal, LINES in CI or where the output is a file or a pipe."""
    in_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return BAR if stream.isatty() and not in_ci else LINES


class RunProgress:
    def __init__(self, stream: TextIO, mode: str) -> None:
        self.stream, self.mode = stream, mode
        self.total = self.done = self.failed = 0
        self.part: str | None = None
        self.started = time.monotonic()
        self._next_tenth = 1
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:
            self._start([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        """Under --workers the run's process collects nothing: each worker reports what it collected (all alike)."""
        if not self.total:
            self._start(ids)

    def _start(self, nodeids: list[str]) -> None:
        self.total = len(nodeids)
        parts = len({_part(nodeid) for nodeid in nodeids})
        if self.mode == BAR:
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("tests, {task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                # the mode was decided by progress_mode: rich need not guess again (it sees no terminal under capture)
                console=Console(file=self.stream, force_terminal=True, force_interactive=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("collected", total=self.total, failed=0)
        else:
            self._line(f"eris certify: {self.total} tests in {parts} parts of the contract")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        finished = report.when == "call" or (report.when == "setup" and not report.passed)
        if report.failed:
            self.failed += 1
        if not finished:
            return
        self.done += 1
        part = _part(report.nodeid)
        if part != self.part:
            self.part = part
            if self.mode == LINES:
                self._line(f"eris certify: part {part}")
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, description=part, failed=self.failed)
        elif self.total and self.done * 10 >= self._next_tenth * self.total:
            self._next_tenth = self.done * 10 // self.total + 1
            elapsed = time.monotonic() - self.started
            left = elapsed * (self.total - self.done) / self.done
            self._line(
                f"eris certify: {self.done}/{self.total} tests ({self.done * 100 // self.total}%), "
                f"{self.failed} failed, {elapsed:.0f} s, about {left:.0f} s left"
            )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


def _part(nodeid: str) -> str:
    """The part of the contract a test belongs to: its folder in the suite (reads, master_data, properties...)."""
    folders = nodeid.split("::")[0].split("/")[:-1]
    if "suite" in folders and folders.index("suite") + 1 < len(folders):
        return folders[folders.index("suite") + 1].replace("_", " ")
    return folders[-1].replace("_", " ") if folders else "tests"
