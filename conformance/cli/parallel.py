"""Units of work checked by several processes, results in input order, a bounded number in flight.

`jobs - 1` workers are forked from the command's process after the validator is built, so none of them loads the
contract again, and a unit travels as its bytes or file names; the command's process checks units too, whenever every
worker has as many as it may hold. (With a worker for each of the `jobs` cores, the command's process took results and
wrote them on the same cores, ~0.05 s of CPU taken from the workers in a 0.8-second run, and its units' results were
pickled and unpickled for nothing.) `multiprocessing.Pool.imap` would read the whole input ahead of the workers; here
at most `2 x jobs + 2` units are read and not yet written, so memory stays flat in the size of the input.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import socket
import struct
import sys
import time
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
    if jobs <= 1 or second is None or not hasattr(os, "fork"):
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
    for stream in (sys.stdout, sys.stderr):  # what the command wrote is not written again by a worker
        if stream is not None:
            stream.flush()
    workers: list[_Worker] = []
    spool = _Spool()
    try:
        for _ in range(jobs - 1):
            try:
                _Worker(workers)
            except OSError:  # no more processes allowed (a limit of the system or the user): fewer workers
                break
        pending = _chain(first, second, pending_units)
        if workers:
            yield from _in_order(work, workers, pending, 2 * jobs + 2, spool)
        else:
            yield from map(work, pending)
    finally:
        for worker in workers:
            worker.stop()
        spool.remove()
        gc.unfreeze()
        _work = None


class _Worker:
    """A forked process checking the units sent down its socket, one after the other, and sending back each result
    (or the exception it raised). The socket is read and written by the command's main thread only:
    multiprocessing.Pool kept three threads in the command's process, which took ~0.1 s of CPU from the workers in a
    1-second run; and multiprocessing itself is not imported, ~6 ms of every run."""

    def __init__(self, workers: list[_Worker]) -> None:
        """Forks the worker and adds it to `workers`, the command's others (whose sockets it closes)."""
        ours, theirs = socket.socketpair()
        # Ctrl-C between the fork and the worker's ignoring it would unwind the command's code in the worker (its
        # `finally` blocks remove the spool and the report's temporary file): held until each side is ready for it
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPT)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPT)
            ours.close()
            theirs.close()
            raise
        if pid == 0:  # the worker: it never returns into the command's code
            code = 1
            try:
                # Ctrl-C reaches the whole process group: the command stops the workers itself, without a
                # traceback each
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPT)
                ours.close()
                for other in workers:  # so that a worker ends when the command closes its socket, not the last
                    other.connection.close()
                _serve(_Connection(theirs))
                code = 0
            finally:
                os._exit(code)
        self.pid = pid
        theirs.close()
        self.connection = _Connection(ours)
        self.sent: deque[int] = deque()
        """The numbers of the units sent and not yet answered, in the order sent (and so answered)."""
        self.exit_code: int | str | None = None
        """None while the worker runs; its exit code, or _UNKNOWN where the system reaped it."""
        workers.append(self)  # before a Ctrl-C held meanwhile is raised: so that the command stops this worker too
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPT)

    def send(self, number: int, pickled: bytes) -> None:
        try:
            self.connection.send_bytes(pickled)
        except (BrokenPipeError, ConnectionResetError):
            raise self._ended() from None
        self.sent.append(number)

    def receive(self) -> tuple[int, _Failure | Any]:
        """The number of the unit answered, and its result or the failure to raise when its turn comes."""
        try:
            succeeded, result = self.connection.receive()
        except (EOFError, ConnectionResetError):
            raise self._ended() from None
        return self.sent.popleft(), result if succeeded else _Failure(result)

    def _ended(self) -> RuntimeError:
        """The error to raise for a worker whose socket broke: it ended, or is ending (its exit code is awaited
        for up to a second)."""
        for _ in range(100):
            if self._reaped(os.WNOHANG):
                break
            time.sleep(0.01)
        code = "unknown" if self.exit_code is None else self.exit_code
        return RuntimeError(f"a worker of eris validate ended unexpectedly (exit code {code})")

    def stop(self) -> None:
        self.connection.close()
        if self.exit_code is None:
            with contextlib.suppress(ProcessLookupError):  # reaped by the system already (see _reaped)
                os.kill(self.pid, signal.SIGTERM)
            self._reaped(0)

    def _reaped(self, options: int) -> bool:
        if self.exit_code is None:
            try:
                pid, status = os.waitpid(self.pid, options)
            except ChildProcessError:  # SIGCHLD ignored, as a parent may pass it on: the system reaped the worker
                self.exit_code = _UNKNOWN
                return True
            if pid:
                self.exit_code = os.waitstatus_to_exitcode(status)
        return self.exit_code is not None


class _Connection:
    """Pickles over one end of a socket pair, each after its length in 8 bytes."""

    _LENGTH = struct.Struct("!Q")

    def __init__(self, end: socket.socket) -> None:
        self.end = end

    def fileno(self) -> int:
        return self.end.fileno()

    def send(self, value: Any) -> None:
        self.send_bytes(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))

    def send_bytes(self, data: bytes) -> None:
        if len(data) < _SMALL_MESSAGE_BYTES:
            self.end.sendall(self._LENGTH.pack(len(data)) + data)
        else:  # not copied into one message
            self.end.sendall(self._LENGTH.pack(len(data)))
            self.end.sendall(data)

    def receive(self) -> Any:
        (length,) = self._LENGTH.unpack(self._exactly(self._LENGTH.size))
        return pickle.loads(self._exactly(length))

    def _exactly(self, length: int) -> bytes | bytearray:
        data = self.end.recv(length) if length < _SMALL_MESSAGE_BYTES else b""
        if len(data) == length:
            return data
        whole = bytearray(length)
        whole[: len(data)] = data
        view, filled = memoryview(whole), len(data)
        while filled < length:
            received = self.end.recv_into(view[filled:])
            if not received:
                raise EOFError
            filled += received
        return whole

    def close(self) -> None:
        self.end.close()


_SMALL_MESSAGE_BYTES = 1 << 16
_INTERRUPT = {signal.SIGINT}
_UNKNOWN = "unknown"


def _readable(workers: dict[int, _Worker], timeout: float | None) -> list[_Worker]:
    """The workers among `workers` (by the file number of their socket) with an answer to read (or that ended),
    waiting at most `timeout` seconds (None: until one has)."""
    poller = select.poll()
    for number in workers:
        poller.register(number, select.POLLIN)
    milliseconds = None if timeout is None else int(timeout * 1000)
    return [workers[number] for number, _ in poller.poll(milliseconds)]


def _in_order(
    work: Callable[[Any], Any], workers: list[_Worker], units: Iterator[Unit], limit: int, spool: _Spool
) -> Iterator[Any]:
    """The results of `units`, in order, by the workers and by `work` in this process; at most `limit` units are read
    and not yet yielded (memory flat in the input).

    A worker checking a unit is sent the next one too: it finds it waiting when it is done, instead of idling while its
    result and the next unit cross (~0.9 ms a unit, 5% of a 1 MiB span's time), and while this process checks a unit
    of its own. What goes down a socket is always small (a span of a file, file names, or the name of the file a large
    unit was spooled to: lines read from stdin), so that sending never waits for a worker, which may be waiting to send
    back a large result. This process takes a unit itself when every worker holds two, and takes the workers' results
    between its own units."""
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
            pickled = pickle.dumps(waiting, pickle.HIGHEST_PROTOCOL)
            if len(pickled) > _SMALL_UNIT_BYTES:
                path = spool.write(pickled)
                if path is None:
                    break  # no folder to spool it to: this process checks it
                pickled = pickle.dumps(_Spooled(path), pickle.HIGHEST_PROTOCOL)
            worker.send(taken, pickled)
            taken += 1
            waiting = _NONE
        busy = {worker.connection.fileno(): worker for worker in workers if worker.sent}
        for worker in _readable(busy, timeout=0) if busy else ():
            number, result = worker.receive()
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
        for worker in _readable(busy, timeout=None):
            number, result = worker.receive()
            finished[number] = result


_SMALL_UNIT_BYTES = 4096
"""A unit this small fits in a socket's buffer (8 KiB or more; ~200 KiB on Linux) beside another: sending it never
waits for the worker. A larger one is spooled to a file, and its name sent."""


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
        with open(self.path, "rb") as spooled:
            pickled = spooled.read()
        os.unlink(self.path)
        return pickle.loads(pickled)


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


def _serve(connection: _Connection) -> None:
    """A worker's life: check each unit received, send back its result or the exception it raised, until the
    command closes its socket."""
    assert _work is not None, "a worker of conformance.cli.parallel runs only inside ordered()"
    while True:
        try:
            unit = connection.receive()
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
