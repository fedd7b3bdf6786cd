"""Units of work checked by several processes, results in input order, a bounded number in flight.

`jobs - 1` workers are forked from the command's process after the validator is built, so none of them loads the
contract again, and a unit travels as its bytes or file names; the command's process checks units too, whenever every
worker has as many as it may hold. (With a worker for each of the `jobs` cores, the command's process took results and
wrote them on the same cores, ~0.05 s of CPU taken from the workers in a 0.8-second run, and its units' results were
pickled and unpickled for nothing.) `multiprocessing.Pool.imap` would read the whole input ahead of the workers; here
at most `2 x jobs + 2` units are read and not yet written, so memory stays flat in the size of the input.
"""

from __future__ import annotations

import gc
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["default_jobs", "ordered"]

Unit = TypeVar("Unit")
Result = TypeVar("Result")

_work: Callable[[Any], Any] | None = None
"""The function of the running `ordered` call, inherited by the forked workers (a bound method holding a
validator would otherwise be pickled with every unit)."""


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def ordered(work: Callable[[Unit], Result], units: Iterable[Unit], jobs: int) -> Iterator[Result]:
    """`work(unit)` of every unit, in order; by this process and `jobs - 1` forked ones when there are at least two
    units."""
    pending_units = iter(units)
    first = next(pending_units, None)
    second = next(pending_units, None) if first is not None else None
    if jobs > 1 and second is not None:
        import multiprocessing  # here: a run of one process (a pre-commit hook) starts without it
    if jobs <= 1 or second is None or "fork" not in multiprocessing.get_all_start_methods():
        if first is not None:
            yield work(first)
        if second is not None:
            yield work(second)
        yield from map(work, pending_units)
        return
    global _work
    _work = work
    # what the workers inherit is left alone by the collector: its walk would write every object's header and
    # so copy the pages the workers share with this process
    gc.freeze()
    context = multiprocessing.get_context("fork")
    workers = [_Worker(context) for _ in range(jobs - 1)]
    spool = _Spool()
    try:
        yield from _in_order(work, workers, _chain(first, second, pending_units), 2 * jobs + 2, spool)
    finally:
        for worker in workers:
            worker.stop()
        spool.remove()
        gc.unfreeze()
        _work = None


class _Worker:
    """A forked process checking the units sent down its pipe, one after the other, and sending back each result
    (or the exception it raised). The pipe is read and written by the command's main thread only: multiprocessing.Pool
    kept three threads in the command's process, which took ~0.1 s of CPU from the workers in a 1-second run."""

    def __init__(self, context: Any) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, self.connection), daemon=True)
        self.process.start()
        theirs.close()
        self.sent: deque[int] = deque()
        """The numbers of the units sent and not yet answered, in the order sent (and so answered)."""

    def send(self, number: int, pickled: bytes) -> None:
        try:
            self.connection.send_bytes(pickled)
        except (BrokenPipeError, ConnectionResetError):
            raise self._ended() from None
        self.sent.append(number)

    def receive(self) -> tuple[int, _Failure | Any]:
        """The number of the unit answered, and its result or the failure to raise when its turn comes."""
        try:
            succeeded, result = self.connection.recv()
        except (EOFError, ConnectionResetError):
            raise self._ended() from None
        return self.sent.popleft(), result if succeeded else _Failure(result)

    def _ended(self) -> RuntimeError:
        self.process.join(timeout=1)
        return RuntimeError(f"a worker of eris validate ended unexpectedly (exit code {self.process.exitcode})")

    def stop(self) -> None:
        self.connection.close()
        self.process.terminate()
        self.process.join()


def _in_order(
    work: Callable[[Any], Any], workers: list[_Worker], units: Iterator[Unit], limit: int, spool: _Spool
) -> Iterator[Any]:
    """The results of `units`, in order, by the workers and by `work` in this process; at most `limit` units are read
    and not yet yielded (memory flat in the input).

    A worker checking a unit is sent the next one too: it finds it waiting when it is done, instead of idling while its
    result and the next unit cross (~0.9 ms a unit, 5% of a 1 MiB span's time), and while this process checks a unit
    of its own. What goes down a pipe is always small (a span of a file, file names, or the name of the file a large
    unit was spooled to: lines read from stdin), so that sending never waits for a worker, which may be waiting to send
    back a large result. This process takes a unit itself when every worker holds two, and takes the workers' results
    between its own units."""
    from multiprocessing.connection import wait
    from multiprocessing.reduction import ForkingPickler

    finished: dict[int, Any] = {}
    taken = yielded = 0  # units sent to a worker or checked here; results yielded
    waiting: Any = _NONE  # the next unit, until a worker or this process takes it
    exhausted = False
    upcoming = next(units, _NONE)  # one unit ahead: the last goes to a worker only if it is idle
    while True:
        while not exhausted and taken - yielded < limit:
            if waiting is _NONE:
                waiting, upcoming = upcoming, next(units, _NONE) if upcoming is not _NONE else _NONE
                if waiting is _NONE:
                    exhausted = True
                    break
            # the last unit queued behind a busy worker's would leave this process idle while the worker ends both
            most = 2 if upcoming is not _NONE else 1
            worker = min(workers, key=lambda candidate: len(candidate.sent))
            if len(worker.sent) >= most:
                break
            pickled = bytes(ForkingPickler.dumps(waiting))
            if len(pickled) > _SMALL_UNIT_BYTES:
                path = spool.write(pickled)
                if path is None:
                    break  # no folder to spool it to: this process checks it
                pickled = bytes(ForkingPickler.dumps(_Spooled(path)))
            worker.send(taken, pickled)
            taken += 1
            waiting = _NONE
        busy = {worker.connection: worker for worker in workers if worker.sent}
        for connection in wait(list(busy), timeout=0) if busy else ():
            number, result = busy[connection].receive()
            finished[number] = result
        if yielded in finished:
            result = finished.pop(yielded)
            if type(result) is _Failure:
                raise result.error
            yield result
            yielded += 1
            continue
        if waiting is not _NONE and taken - yielded < limit:
            # every worker holds what it may: this process checks the unit, then takes their results
            try:
                finished[taken] = work(waiting)
            except Exception as error:
                finished[taken] = _Failure(error)
            taken += 1
            waiting = _NONE
            continue
        if not busy:
            return
        for connection in wait(list(busy)):
            number, result = busy[connection].receive()
            finished[number] = result


_SMALL_UNIT_BYTES = 4096
"""A unit this small fits in a pipe's buffer (64 KiB or more) beside another: sending it never waits for the worker.
A larger one is spooled to a file, and its name sent."""


class _Spool:
    """A folder of this run's large units, each in a file of its own until the worker it was sent to reads it (at
    most `2 x jobs + 2` of them at a time); made at the first large unit, removed with the workers."""

    def __init__(self) -> None:
        self.folder: str | None = None
        self.count = 0
        self.failed = False

    def write(self, pickled: bytes) -> str | None:
        """The file the unit was written to; None where no temporary folder can be written (the command then checks
        the large units itself)."""
        if self.failed:
            return None
        try:
            if self.folder is None:
                import tempfile

                self.folder = tempfile.mkdtemp(prefix="eris-validate-")
            self.count += 1
            path = os.path.join(self.folder, f"{self.count}.unit")
            with open(path, "wb") as spooled:
                spooled.write(pickled)
        except OSError:
            self.failed = True
            return None
        return path

    def remove(self) -> None:
        if self.folder is not None:
            import shutil

            shutil.rmtree(self.folder, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class _Spooled:
    """A unit sent by the name of the file it was spooled to."""

    path: str

    def load(self) -> Any:
        from multiprocessing.reduction import ForkingPickler

        with open(self.path, "rb") as spooled:
            pickled = spooled.read()
        os.unlink(self.path)
        return ForkingPickler.loads(pickled)


_NONE = object()


class _Failure:
    """The exception a unit's work raised (in a worker or in the command's process), raised in the unit's turn."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _chain(first: Unit, second: Unit, rest: Iterator[Unit]) -> Iterator[Unit]:
    yield first
    yield second
    yield from rest


def _serve(connection: Any, parents: Any) -> None:
    """A worker's life: check each unit received, send back its result or the exception it raised, until the
    command closes the pipe."""
    # Ctrl-C reaches the whole process group: the command stops the workers itself, without a traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parents.close()  # the command's end, inherited by the fork: closed, so that its closing ends this loop
    assert _work is not None, "a worker of conformance.cli.parallel runs only inside ordered()"
    while True:
        try:
            unit = connection.recv()
        except EOFError:
            return
        try:
            if type(unit) is _Spooled:
                unit = unit.load()
            answer: tuple[bool, Any] = (True, _work(unit))
        except Exception as error:
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception as error:  # a result or an exception that cannot be pickled
            connection.send((False, RuntimeError(f"a worker's answer cannot be sent back: {error!r}")))
