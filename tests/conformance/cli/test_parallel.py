"""conformance.cli.parallel.ordered: results in input order whatever the workers' pace, a bounded number of units read
ahead, large units and results both ways without a deadlock, and a worker's failure (an exception, or its death)
reported in the command instead of a hang."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from project_paths import ROOT

from conformance.cli.parallel import ordered


def _slow_square(number: int) -> int:
    time.sleep(random.random() / 200)  # workers finish out of order
    return number * number


@pytest.mark.parametrize("jobs", [2, 3])
def test_results_come_in_input_order_whatever_the_workers_pace(jobs):
    assert list(ordered(_slow_square, range(60), jobs)) == [number * number for number in range(60)]


def test_units_are_read_at_most_a_few_ahead_of_the_results_taken():
    taken = []

    def units():
        for number in range(100):
            taken.append(number)
            yield number

    results = ordered(_slow_square, units(), 2)
    for expected in range(10):
        assert next(results) == expected * expected
        assert len(taken) <= expected + 1 + 2 * 2 + 2  # the one yielded, and at most 2 x jobs + 2 in flight
    results.close()


def _reversed_bytes(data: bytes) -> bytes:
    return data[::-1] * 2


def test_units_and_results_larger_than_a_pipe_travel_both_ways():
    units = [bytes([number]) * (3 << 20) for number in range(6)]  # 3 MiB each way, results of 6 MiB
    signal.signal(signal.SIGALRM, _deadlocked)
    signal.alarm(60)  # a deadlock fails the test instead of hanging the run
    try:
        assert list(ordered(_reversed_bytes, units, 2)) == [unit[::-1] * 2 for unit in units]
    finally:
        signal.alarm(0)


def _deadlocked(signum, frame):
    raise TimeoutError("ordered() made no progress for 60 s: the command and a worker wait for each other")


def _fails_on_seven(number: int) -> int:
    if number == 7:
        raise ValueError("seven is refused")
    return number


def test_an_exception_in_a_worker_is_raised_in_the_command_and_the_workers_stop():
    before = _children_alive()
    results = ordered(_fails_on_seven, range(40), 2)
    assert [next(results) for _ in range(7)] == list(range(7))
    with pytest.raises(ValueError, match="seven is refused"):
        next(results)
    assert _children_alive() <= before  # other tests of this process may have servers running


_COMMAND = os.getpid()


def _dies_on_five(number: int) -> int:
    if number == 5 and os.getpid() != _COMMAND:  # in the command's own process it would end the test run
        os._exit(3)
    return number


def test_a_worker_that_dies_is_reported_not_waited_for():
    before = _children_alive()
    with pytest.raises(RuntimeError, match="ended unexpectedly"):
        # units of 5 until a worker has taken one: the command's process checks some of them itself
        list(ordered(_dies_on_five, [1, 2, 3, 4, *[5] * 20, 6], 2))
    assert _children_alive() <= before


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


def _pid_after_a_while(number: int) -> int:
    time.sleep(0.002)
    return os.getpid()


@pytest.mark.parametrize("jobs", [2, 3])
def test_the_command_checks_units_too_beside_jobs_minus_one_workers(jobs):
    before = _children_alive()
    results = ordered(_pid_after_a_while, range(120), jobs)
    first = next(results)
    forked = _children_alive() - before
    pids = {first, *results}
    assert len(forked) == jobs - 1  # not a worker for each of the jobs: the command's process is one of them
    assert os.getpid() in pids  # it took units while the workers held theirs
    assert pids - {os.getpid()} <= forked and len(pids) == jobs


def _fails_when_checked_by_the_command(number: int) -> int:
    if os.getpid() != _COMMAND:
        time.sleep(0.005)  # a slow worker holds its two units: the command checks some of the thirties itself
    if number == 30 and os.getpid() == _COMMAND:
        raise ValueError("thirty is refused")
    return number


def test_an_exception_of_a_unit_checked_by_the_command_is_raised_in_its_turn():
    units = [*range(30), *[30] * 10, 31]
    results = ordered(_fails_when_checked_by_the_command, units, 2)
    assert [next(results) for _ in range(30)] == list(range(30))
    taken = []
    with pytest.raises(ValueError, match="thirty is refused"):
        for result in results:
            taken.append(result)
    assert all(result == 30 for result in taken)  # the ones a worker checked, before it in input order


def _pid_slow_in_the_command(number: int) -> int:
    time.sleep(0.2 if os.getpid() == _COMMAND else 0.001)  # the worker long started and idle when it ends
    return os.getpid()


def test_the_last_unit_is_not_queued_behind_a_busy_worker():
    """Queued behind a worker's unit, the last would leave the command's process idle while the worker ends both.
    Units 0 and 1 go to the worker, 2 to the command; then 3 to the (idle) worker, and 4, the last, to the command."""
    pids = list(ordered(_pid_slow_in_the_command, range(5), 2))
    worker = pids[0]
    assert worker != os.getpid()
    assert pids == [worker, worker, os.getpid(), worker, os.getpid()]


def _spool_folders() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("eris-validate-")}


def _length_and_spool_folders(data: bytes) -> tuple[int, set[str]]:
    return len(data), _spool_folders()


def test_large_units_go_by_a_spooled_file_removed_after_the_run():
    before = _spool_folders()
    units = [bytes([number]) * (1 << 20) for number in range(8)]  # 1 MiB each: lines read from stdin, say
    results = list(ordered(_length_and_spool_folders, units, 2))
    assert [length for length, _ in results] == [1 << 20] * 8
    assert any(folders - before for _, folders in results)  # the units went by a file, not down the pipe
    assert _spool_folders() == before


def test_where_no_temporary_folder_can_be_written_the_command_checks_the_large_units(monkeypatch, tmp_path):
    unwritable = tmp_path / "not-a-folder"
    unwritable.write_text("")  # a file: no folder can be made below it
    monkeypatch.setattr(tempfile, "tempdir", str(unwritable))
    units = [bytes([number]) * (1 << 20) for number in range(6)]
    assert list(ordered(_pid_of_a_large_unit, units, 2)) == [os.getpid()] * 6  # slower, not failed


def _pid_of_a_large_unit(data: bytes) -> int:
    return os.getpid()


def test_where_no_process_can_be_forked_the_command_checks_every_unit(monkeypatch):
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork(2)'s EAGAIN at a process limit

    monkeypatch.setattr(os, "fork", refused)
    assert list(ordered(_pid_of_a_large_unit, range(10), 2)) == [os.getpid()] * 10


def test_the_run_ends_well_where_the_system_reaps_the_workers_itself():
    """A parent may pass SIGCHLD on ignored: the system then reaps the workers, and waiting for one finds none."""
    script = (
        "import signal; signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "from conformance.cli.parallel import ordered\n"
        "print(list(ordered(abs, range(-20, 0), 2)))\n"
    )
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout == f"{list(range(20, 0, -1))}\n"
