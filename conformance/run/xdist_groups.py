"""A pytest plugin `eris certify --workers` loads into every pytest-xdist worker: the tests that use the
suite's receiver run in one worker.

The receiver of a run listens on one fixed port when the target pushes notifications there, and only one
process can: each worker starting its own would stop the run. `--dist loadgroup` sends every test of an
`xdist_group` to the same worker, so each test needing the receiver (directly or through a fixture) is put
in the group `receiver`, the one the suite's tests that ask for the receiver at run time name themselves.
The other tests are spread over the workers as usual.

A worker that cannot go on (the plugin's pytest.exit: the receiver cannot listen, the target stopped answering while
its installation was read) reaches the run's process as "received keyboard-interrupt" only: its reason is carried
along in the worker's output (`STOPPED`), for `eris certify` to say.
"""

from __future__ import annotations

import re

import pytest

__all__ = ["GROUP", "STOPPED", "without_group"]

GROUP = "receiver"
"""The suite's own name for it (conformance/suite/events/test_notifications.py): one group, one worker, one receiver."""
_GROUP_SUFFIX = re.compile(r"@[A-Za-z0-9_.-]+$")
STOPPED = "eris_stopped"
"""The key of a worker's output (pytest-xdist's workeroutput) holding why it stopped."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "receiver" in getattr(item, "fixturenames", ()) and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(GROUP))


_stopped: list[str] = []
"""In a worker: why it stopped (one process a worker)."""


def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    if isinstance(excinfo.value, pytest.exit.Exception):
        _stopped.append(excinfo.value.msg)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a worker, after pytest_keyboard_interrupt and before pytest-xdist sends the worker's output."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None and _stopped:
        output[STOPPED] = _stopped[-1]


def without_group(nodeid: str) -> str:
    """The node id as without workers: `--dist loadgroup` appends `@<group>` to the ids of grouped tests."""
    return _GROUP_SUFFIX.sub("", nodeid)
