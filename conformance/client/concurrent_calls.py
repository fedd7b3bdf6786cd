"""Calls of one test that do not depend on each other, run at once in the threads of an executor (as many in flight
as it has threads).

Everything a call does lands on the test as if the calls had run one after another: results in call order, the
first failure in call order raised in the test's thread (a skip, a blocked precondition, an assertion, a stop of
the run), the exchanges and the findings recorded for the test in call order (traffic.har reads like the
sequence). After a failure no call after it in call order starts; what the calls already running sent and found
is kept: it was met on the target (a cached read would not show it to a later test again). A call made from
inside a call runs one by one in its thread: the bound holds for the whole test."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar, cast

from conformance.client.traffic import Exchange, Traffic
from conformance.evidence.outcomes import Findings

__all__ = ["findings_kept_apart", "in_order"]

T = TypeVar("T")

_APART = threading.local()


def findings_kept_apart() -> Findings | None:
    """The findings of the call this thread runs (None outside one): where a finding it meets is recorded."""
    return getattr(_APART, "findings", None)


@dataclass
class _Done(Generic[T]):
    result: T | None = None
    error: BaseException | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    findings: Findings | None = None


class _FirstFailure:
    """The position of the first call that failed, so that no call after it starts (one by one, none would)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.position: int | None = None

    def note(self, position: int) -> None:
        with self._lock:
            if self.position is None or position < self.position:
                self.position = position

    def before(self, position: int) -> bool:
        with self._lock:
            return self.position is not None and self.position < position


def in_order(
    calls: Sequence[Callable[[], T]], *, threads: Executor | None, traffic: Traffic, test: Findings | None
) -> list[T]:
    """The results of `calls`, in their order, run in `threads` (None: one after another in this thread). `test`:
    the findings of the running test (None when no test runs: a finding then fails the call, as it would one by
    one)."""
    if threads is None or len(calls) <= 1 or getattr(_APART, "inside", False):
        return [call() for call in calls]
    failed = _FirstFailure()
    futures: list[Future[_Done[T]]] = []
    try:
        futures = [
            threads.submit(_run_apart, call, position, failed, traffic, test is not None)
            for position, call in enumerate(calls)
        ]
        done = [future.result() for future in futures]
    finally:
        for future in futures:  # an interruption (the run's watchdog) waits for none
            future.cancel()
    for each in done:
        _hand_back(each, traffic, test)
    first = next((each.error for each in done if each.error is not None), None)
    if first is not None:
        raise first
    return [cast(T, each.result) for each in done]  # every call ran and returned


def _hand_back(done: _Done[T], traffic: Traffic, test: Findings | None) -> None:
    for exchange in done.exchanges:
        traffic.record(exchange)
    if test is not None and done.findings is not None:
        test.merge(done.findings)


def _run_apart(
    call: Callable[[], T], position: int, failed: _FirstFailure, traffic: Traffic, in_a_test: bool
) -> _Done[T]:
    if failed.before(position):
        return _Done()  # not run: nothing to hand back
    done: _Done[T] = _Done(findings=Findings() if in_a_test else None)
    _APART.inside, _APART.findings = True, done.findings
    try:
        with traffic.kept_apart() as exchanges:
            done.exchanges = exchanges
            try:
                done.result = call()
            except BaseException as error:  # a skip or an exit too: re-raised in the test's thread, in call order
                done.error = error
                failed.note(position)
    finally:
        _APART.inside, _APART.findings = False, None
    return done
