"""Units of work checked by several processes, results in input order, a bounded number in flight.

Workers are forked from the command's process after the validator is built, so none of them loads the contract or
compiles a schema again, and a unit travels as its bytes or file names. `multiprocessing.Pool.imap` would read the
whole input ahead of the workers; here at most `2 x jobs + 2` units are read and not yet written, so memory stays
flat in the size of the input.
"""

from __future__ import annotations

import gc
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
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
    """`work(unit)` of every unit, in order; by `jobs` forked processes when there are at least two units."""
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
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_interrupts)
    try:
        in_flight: deque[Any] = deque()
        for unit in _chain(first, second, pending_units):
            in_flight.append(pool.apply_async(_run, (unit,)))
            if len(in_flight) >= 2 * jobs + 2:
                yield in_flight.popleft().get()
        while in_flight:
            yield in_flight.popleft().get()
        pool.close()
    finally:
        pool.terminate()
        pool.join()
        gc.unfreeze()
        _work = None


def _chain(first: Unit, second: Unit, rest: Iterator[Unit]) -> Iterator[Unit]:
    yield first
    yield second
    yield from rest


def _run(unit: Any) -> Any:
    assert _work is not None, "a worker of conformance.cli.parallel runs only inside ordered()"
    return _work(unit)


def _ignore_interrupts() -> None:
    """Ctrl-C reaches the whole process group: the command stops the workers itself, without a traceback each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
