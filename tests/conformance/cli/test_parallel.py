"""conformance.cli.parallel.ordered: results in input order whatever the workers' pace, a bounded number of units in
flight, large units and results both ways, the work reaching the workers by the fork, and a worker's failure (an
exception, or its death) reported in the command instead of a hang."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from project_paths import ROOT

from conformance.cli.parallel import IN_FLIGHT_PER_JOB, PoolBroken, ordered


def _slow_square(number: int) -> int:
    time.sleep(random.random() / 200)  # workers finish out of order
    return number * number


@pytest.mark.parametrize("jobs", [2, 3])
def test_results_come_in_input_order_whatever_the_workers_pace(jobs: int) -> None:
    assert list(ordered(_slow_square, range(60), jobs)) == [number * number for number in range(60)]


@pytest.mark.parametrize("jobs", [2, 3])
def test_units_are_read_at_most_a_bounded_number_ahead_of_the_results_taken(jobs: int) -> None:
    """Memory flat in the size of the input: the pool never reads the input ahead of what its workers and the
    report take, however slowly the report is written."""
    taken: list[int] = []

    def units() -> Iterator[int]:
        for number in range(200):
            taken.append(number)
            yield number

    ahead = []
    for yielded, result in enumerate(ordered(_slow_square, units(), jobs), start=1):
        assert result == (yielded - 1) ** 2
        ahead.append(len(taken) - yielded)
        if yielded % 20 == 0:
            time.sleep(0.05)  # a slow report: the workers finish everything in flight meanwhile
    assert max(ahead) <= IN_FLIGHT_PER_JOB * jobs
    assert max(ahead) >= jobs  # and enough in flight to keep every worker busy


def _reversed_bytes(data: bytes) -> bytes:
    return data[::-1] * 2


def test_units_and_results_larger_than_a_pipe_travel_both_ways() -> None:
    units = [bytes([number]) * (3 << 20) for number in range(6)]  # 3 MiB each way, results of 6 MiB
    signal.signal(signal.SIGALRM, _deadlocked)
    signal.alarm(60)  # a deadlock fails the test instead of hanging the run
    try:
        assert list(ordered(_reversed_bytes, units, 2)) == [unit[::-1] * 2 for unit in units]
    finally:
        signal.alarm(0)


def _deadlocked(signum: int, frame: object) -> None:
    raise TimeoutError("ordered() made no progress for 60 s: the command and a worker wait for each other")


def test_the_work_reaches_the_workers_by_the_fork_not_pickled() -> None:
    """A validator is costly to pickle with every unit: the function is inherited, here one pickle cannot carry."""
    offset = 1000
    unpicklable = lambda number: number + offset  # noqa: E731
    assert list(ordered(unpicklable, range(20), 2)) == [number + offset for number in range(20)]


def _pid(number: int) -> int:
    time.sleep(0.002)
    return os.getpid()


@pytest.mark.parametrize("jobs", [2, 3])
def test_units_are_checked_by_jobs_forked_processes_after_the_first(jobs: int) -> None:
    """The first unit here, so that what it builds on first use (the clean gates) the workers inherit."""
    pids = list(ordered(_pid, range(120), jobs))
    assert pids[0] == os.getpid()
    assert os.getpid() not in pids[1:]
    assert len(set(pids[1:])) == jobs


def test_a_single_unit_is_checked_without_forking() -> None:
    assert list(ordered(_pid, [1], 2)) == [os.getpid()]


def _fails_on_seven(number: int) -> int:
    if number == 7:
        raise ValueError("seven is refused")
    return number


def test_an_exception_in_a_worker_is_raised_in_the_command_in_its_turn_and_the_workers_stop() -> None:
    before = _children_alive()
    results = ordered(_fails_on_seven, range(40), 2)
    assert [next(results) for _ in range(7)] == list(range(7))
    with pytest.raises(ValueError, match="seven is refused"):
        next(results)
    assert _children_alive() <= before  # other tests of this process may have servers running


_COMMAND = os.getpid()


def _ends_on_five(number: int) -> int:
    if number == 4:
        time.sleep(0.3)  # still in the other worker's hands when five ends its own
    if number == 5 and os.getpid() != _COMMAND:  # in the command's own process it would end the test run
        os._exit(3)
    return number


def test_a_unit_that_ends_its_worker_is_named_and_every_unit_before_it_reported() -> None:
    """The death breaks the pool, and fails the units the other worker held too: those are checked again, each
    alone in a new pool, so that the results before the unit that killed its worker are all there, and it is the
    unit named."""
    before = _children_alive()
    results = ordered(_ends_on_five, range(30), 2)
    assert [next(results) for _ in range(5)] == list(range(5))
    with pytest.raises(PoolBroken) as broken:
        next(results)
    assert broken.value.unit == 5
    assert str(broken.value) == "a worker process ended unexpectedly (exit status 3)"
    assert _children_alive() <= before


def _killed_once_at_nine(marker: str, number: int) -> int:
    if number == 9 and os.getpid() != _COMMAND and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)  # from outside, once: the unit itself is fine
    time.sleep(0.005)
    return number


def test_a_worker_killed_once_loses_no_unit(tmp_path: Path) -> None:
    marker = str(tmp_path / "killed")
    assert list(ordered(partial(_killed_once_at_nine, marker), range(40), 2)) == list(range(40))
    assert os.path.exists(marker)  # a worker was killed indeed


def _killed_on_two(number: int) -> int:
    if number == 2 and os.getpid() != _COMMAND:
        os.kill(os.getpid(), signal.SIGKILL)  # as the system's out-of-memory killer does
    return number


def test_a_worker_killed_is_reported_with_its_signal() -> None:
    with pytest.raises(
        PoolBroken, match=r"^a worker process ended unexpectedly \(killed by SIGKILL, out of memory\?\)$"
    ):
        list(ordered(_killed_on_two, range(10), 2))


def test_where_no_process_can_be_forked_the_command_checks_every_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _children_alive()
    real_fork, forks = os.fork, []

    def second_refused() -> int:
        forks.append(1)
        if len(forks) > 1:
            raise BlockingIOError(11, "Resource temporarily unavailable")  # fork(2)'s EAGAIN at a process limit
        return real_fork()

    monkeypatch.setattr(os, "fork", second_refused)
    assert list(ordered(_pid, range(10), 3)) == [os.getpid()] * 10  # slower, not failed
    monkeypatch.undo()
    assert _children_alive() <= before  # the worker forked before the refusal does not wait for work forever


def _children_alive() -> set[int]:
    """This process's children that still run (a zombie is not running)."""
    alive = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            alive.add(int(entry))
    return alive


def test_the_run_ends_well_where_the_system_reaps_the_workers_itself() -> None:
    """A parent may pass SIGCHLD on ignored: the system then reaps the workers, and waiting for one finds none."""
    script = (
        "import signal; signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "from conformance.cli.parallel import ordered\n"
        "print(list(ordered(abs, range(-20, 0), 2)))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout == f"{list(range(20, 0, -1))}\n"
    assert not finished.stderr


@pytest.mark.slow
def test_ctrl_c_stops_the_command_without_a_traceback_of_each_worker() -> None:
    script = (
        "import os, signal, sys, time\n"
        "from conformance.cli.parallel import ordered\n"
        "def slow(n):\n"
        "    time.sleep(0.05)\n"
        "    return n\n"
        "try:\n"
        "    for n in ordered(slow, range(1000), 2):\n"
        "        if n == 5:\n"
        "            time.sleep(0.5)\n"  # the workers done with their units, waiting for more
        "            os.killpg(0, signal.SIGINT)\n"  # as a terminal's Ctrl-C: to the whole process group
        "            time.sleep(1)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        start_new_session=True,
        # a shell running the tests in the background ignores SIGINT, and the child would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert finished.stdout == "interrupted\n"
    assert "Traceback" not in finished.stderr, finished.stderr
