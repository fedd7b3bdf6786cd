"""Units of work checked by a pool of forked processes (concurrent.futures), their results in input order, a bounded
number in flight.

The workers are forked after the validator is built, so none of them loads the contract again, and the function
that checks a unit reaches them by the fork, not pickled with every unit: a unit travels as its bytes or file names.
At most IN_FLIGHT_PER_JOB x jobs units are read and not yet yielded, so memory stays flat in the size of the input
(`Executor.map` and `Pool.imap` would read the whole input ahead of the workers).
"""

from __future__ import annotations

import gc
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["IN_FLIGHT_PER_JOB", "PoolBroken", "ordered"]

Unit = TypeVar("Unit")
Result = TypeVar("Result")

IN_FLIGHT_PER_JOB = 3
"""Units submitted and not yet yielded, per process: one being checked, one queued behind it so that a worker never
waits for the next, and one done early while an earlier unit is still being checked."""


class PoolBroken(Exception):
    """The pool stopped while `unit` or a unit before it was in its hands (a worker killed, out of memory, crashed):
    the results of the units before `unit` were yielded, none of `unit` and after. The message is one line."""

    def __init__(self, unit: Any, message: str) -> None:
        super().__init__(message)
        self.unit = unit


def ordered(work: Callable[[Unit], Result], units: Iterable[Unit], jobs: int) -> Iterator[Result]:
    """`work(unit)` of every unit, in order; the first here, the others by `jobs` forked processes when there are at
    least three units (two are checked here: forking would only add to their time)."""
    pending = iter(units)
    head = list(islice(pending, 3))
    if jobs <= 1 or len(head) < 3 or not hasattr(os, "fork"):
        yield from map(work, chain(head, pending))
        return
    # the first unit is checked here, before the fork: what it builds on first use (the clean gates of its types,
    # the causes of their refusals: ~0.1 s) the workers inherit instead of each building it again
    yield work(head[0])
    # what the workers inherit is left alone by the collector: its walk would write every object's header and so
    # copy the pages the workers share with this process
    gc.freeze()
    pool = _Pool(work, jobs)
    try:
        if pool.start():
            yield from pool.results(chain(head[1:], pending), IN_FLIGHT_PER_JOB * jobs)
        else:  # no process could be forked (a limit of the system or the user): slower, not failed
            yield from map(work, chain(head[1:], pending))
    finally:
        pool.stop()
        gc.unfreeze()


class _Pool:
    """A ProcessPoolExecutor of forked workers, started again once a worker died: the units it held are checked
    again one at a time, so that a worker killed from outside loses nothing, and a unit that kills its worker is
    the one named."""

    def __init__(self, work: Callable[[Any], Any], jobs: int) -> None:
        self.work, self.jobs = work, jobs
        self.executor: ProcessPoolExecutor | None = None
        self.processes: list[Any] = []
        """The executor's processes: their exit codes say how one ended, should it die."""

    def start(self) -> bool:
        """Forks the workers; False where no process could be forked (the workers forked so far stopped)."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        before = set(multiprocessing.active_children())
        executor = ProcessPoolExecutor(
            self.jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker, initargs=(self.work,)
        )
        # Ctrl-C between the fork and the worker's ignoring it would print a worker's traceback: held until then
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPT)
        try:
            executor.submit(int)  # the first submission forks every worker
        except OSError:
            # no manager thread runs yet to stop the workers forked so far: they would wait for work forever
            for process in set(multiprocessing.active_children()) - before:
                process.terminate()
                process.join()
            executor.shutdown(wait=False, cancel_futures=True)
            return False
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPT)
        self.executor, self.processes = executor, list(set(multiprocessing.active_children()) - before)
        return True

    def stop(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)  # the units queued are dropped, not checked

    def results(self, units: Iterator[Any], limit: int) -> Iterator[Any]:
        """The results of `units`, in order; at most `limit` units submitted and not yielded."""
        from concurrent.futures.process import BrokenProcessPool

        in_flight: deque[tuple[Any, Future[Any] | None]] = deque()  # None: refused by a pool already broken
        while True:
            while len(in_flight) < limit and not (in_flight and in_flight[-1][1] is None):
                unit = next(units, _NONE)
                if unit is _NONE:
                    break
                try:
                    in_flight.append((unit, self._submit(unit)))
                except BrokenProcessPool:  # a worker died meanwhile: the unit waits for the next pool
                    in_flight.append((unit, None))
            if not in_flight:
                return
            future, broken = in_flight[0][1], None
            if future is not None:
                try:
                    result = future.result()
                except BrokenProcessPool as failed:
                    broken = failed
                else:
                    in_flight.popleft()
                    yield result
                    continue
            lost = [unit for unit, _ in in_flight]
            in_flight.clear()
            yield from self._checked_again(lost, broken)

    def _submit(self, unit: Any) -> Future[Any]:
        assert self.executor is not None
        return self.executor.submit(_check, unit)

    def _checked_again(self, lost: list[Any], broken: BaseException | None) -> Iterator[Any]:
        """The results of the units a broken pool held, by a new pool, each unit alone in it: a unit whose worker
        dies again is the cause, and ends the run (PoolBroken); the pool goes on with the units after them."""
        from concurrent.futures.process import BrokenProcessPool

        why = self._stopped(broken)
        if not self.start():
            raise PoolBroken(lost[0], why)
        for unit in lost:
            try:
                result = self._submit(unit).result()
            except BrokenProcessPool as again:
                raise PoolBroken(unit, self._stopped(again)) from None
            yield result

    def _stopped(self, broken: BaseException | None) -> str:
        """Stops the broken pool, its workers reaped (their exit codes known), and says why it broke, in one line."""
        assert self.executor is not None
        self.executor.shutdown(wait=True)
        self.executor = None
        if broken is not None and broken.__cause__ is not None:  # a result that could not be read back
            lines = [line.strip() for line in str(broken.__cause__).splitlines() if line.strip(" '")]
            return f"a result of a worker process could not be read back ({lines[-1] if lines else broken})"
        return f"a worker process ended unexpectedly ({self._exit()})"

    def _exit(self) -> str:
        """The exit of the worker that died, as far as known (the pool ends the others with SIGTERM)."""
        codes = [process.exitcode for process in self.processes]
        own = [code for code in codes if code not in (0, -signal.SIGTERM, None)]
        code = own[0] if own else -signal.SIGTERM if -signal.SIGTERM in codes else None
        if code is None:
            return "exit status unknown"
        if code >= 0:
            return f"exit status {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}" + (", out of memory?" if code == -signal.SIGKILL else "")


_INTERRUPT = {signal.SIGINT}
_NONE = object()


_work: Callable[[Any], Any] | None = None
"""In a worker: the function of the `ordered` call that forked it."""


def _start_worker(work: Callable[[Any], Any]) -> None:
    """The first thing a worker does: Ctrl-C reaches the whole process group, and the command stops the workers
    itself, without a traceback each."""
    global _work
    _work = work
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPT)


def _check(unit: Any) -> Any:
    assert _work is not None, "runs in a worker of conformance.cli.parallel.ordered only"
    return _work(unit)
