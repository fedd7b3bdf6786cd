"""One run of the conformance suite: pytest in this process, over the suite folder, with the plugins named (never
found) and a configuration of its own, its output kept aside for eris's progress, and a watchdog that ends a run
overrunning its time limit. What the run leaves (`SuiteRun`): the outcomes, and why it stopped, if it did."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.catalogue.requirements import node_root
from conformance.evidence.outcomes import TestOutcome
from conformance.harness.plugin import OUTCOMES, run_stop_reason
from conformance.run.certify_options import CertifyOptions, RunError, one_line
from conformance.run.progress import RunProgress, progress_mode

__all__ = ["SuiteRun", "run_suite"]

PYTEST_LINES_SHOWN = 40
_INI = """\
# Written by eris certify for one run: the suite runs with these settings only, so that a pytest
# configuration found around an installation of eris cannot change a certification.
[pytest]
junit_family = xunit2
junit_suite_name = eris-certification
# httpx (and with it anyio, a pytest plugin) is imported before the run starts: nothing to rewrite there.
filterwarnings = ignore::pytest.PytestAssertRewriteWarning
"""


_PLUGINS_LEFT_OUT = ("cacheprovider", "logging")
"""pytest's plugins that a certification runs without. The cache would write beside the suite. The logging plugin
attaches its capture handler before each test by iterating logging's registry of loggers without logging's lock
(catching_logs.__enter__ in _pytest/logging.py): a logger made meanwhile by another thread of the run (the embedded
target, a store starting, a delivery arriving) failed the running test with `RuntimeError: dictionary changed size
during iteration`, and that was charged to the target. Nothing of a certification reads captured logs."""


class _RunOverran(KeyboardInterrupt):
    """Raised in the main thread by the watchdog: pytest ends the session as for Ctrl-C, its outputs written."""


class _Watchdog:
    """Ends a run that overran its time limit by `grace` seconds (a test waiting on something other than the
    target's answers: a delivery, a key): a timer signal (SIGALRM, which also wakes a blocking wait) raises
    _RunOverran in the main thread, and the run ends with what was done. Off outside the main thread, where no
    signal handler can be set."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._previous: Any = None
        self._armed = False

    def __enter__(self) -> _Watchdog:
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            self._previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self._armed = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self._armed = False

    def _fire(self, signum: int, frame: Any) -> None:
        self.fired = True
        raise _RunOverran


class SuiteRun:
    """A pytest plugin of this run: keeps the outcomes, and why the run stopped, if it did."""

    def __init__(self, watchdog: _Watchdog, run_timeout: float) -> None:
        self.outcomes: list[TestOutcome] = []
        self.stopped: str | None = None
        """Why the run could not be made (a plugin's pytest.exit): no certification."""
        self.run_stop: str | None = None
        """Why the run stopped before its end (the target stopped answering, the time limit): a certification of
        what was done."""
        self.interrupted = False
        self.collection_errors: list[str] = []
        self.worker_stopped: str | None = None
        """Why a pytest-xdist worker stopped the run, as it said (its pytest.exit)."""
        self._watchdog = watchdog
        self._run_timeout = run_timeout

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            lines = (report.longreprtext or "").strip().splitlines()
            self.collection_errors.append(f"{report.nodeid or 'the suite'}: {lines[-1] if lines else 'error'}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # What exists now (the suite, its libraries, the embedded target) lives until the run ends: the collector
        # need not go through it again at every full collection (a tenth of a run's CPU went to that)
        gc.collect()
        gc.freeze()

    @pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which a run in one process does not load
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist: a worker ended; when it stopped the run, its reason (conformance.run.xdist_groups.STOPPED)."""
        from conformance.run.xdist_groups import STOPPED

        reason = getattr(node, "workeroutput", {}).get(STOPPED)
        if reason and self.worker_stopped is None:
            self.worker_stopped = reason

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        error = excinfo.value
        if self._watchdog.fired:
            self.run_stop = f"the run overran its time limit of {self._run_timeout:g} s (--run-timeout) and was cut"
        elif isinstance(error, pytest.exit.Exception):
            self.stopped = error.msg
        elif isinstance(error, KeyboardInterrupt) and type(error) is KeyboardInterrupt:
            self.interrupted = True
        elif self.worker_stopped is not None:  # pytest-xdist: a worker's pytest.exit arrives as an interruption
            self.stopped = self.worker_stopped
        else:
            self.stopped = f"the run was interrupted: {one_line(str(error)) or type(error).__name__}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from conformance.run.xdist_groups import without_group

        self.outcomes = [
            dataclasses.replace(outcome, nodeid=without_group(outcome.nodeid))
            for outcome in session.config.stash.get(OUTCOMES, {}).values()
        ]
        stop = run_stop_reason(session.config)
        if stop is not None and self.run_stop is None:
            self.run_stop = stop
            if self.stopped is not None and self.stopped.endswith(stop):
                self.stopped = None  # pytest-xdist: the stop of a worker arrives as an interruption
        # The failures are in the certification; the terminal keeps one line a test (the junit.xml and the
        # outcomes were made from the full report before this).
        session.config.option.tbstyle = "no"


def _pytest_arguments(options: CertifyOptions, config: str | None, report_dir: Path, folder: Path) -> list[str]:
    ini = folder / "pytest.ini"
    ini.write_text(_INI, encoding="utf-8")
    suite = options.suite_dir.resolve()
    root = node_root(suite)
    arguments = [
        str(suite),
        f"--config-file={ini}",
        f"--rootdir={root}",
        f"--confcutdir={root}",
        *(option for name in _PLUGINS_LEFT_OUT for option in ("-p", f"no:{name}")),
        f"--junitxml={report_dir / 'junit.xml'}",
        "-q",
        "--no-header",
        "-rN",
    ]
    # Plugins are named, never found: a pytest plugin installed beside eris cannot change a certification, and
    # pytest does not rewrite the asserts of every module of every plugin's distribution (schemathesis alone
    # is 370 modules: 11 s a run where bytecode is not cached).
    arguments += ["--disable-plugin-autoload", "-p", "conformance.harness.plugin"]
    in_workers = options.workers is not None and options.workers > 1
    arguments += ["-p", "xdist.plugin"] if in_workers else []
    if config:
        arguments.append(f"--eris-target={config}")
    if options.target:
        arguments.append(f"--eris-base-url={options.target}")
    if options.token:
        arguments.append(f"--eris-token={options.token}")
    if options.delivery_timeout is not None:
        arguments.append(f"--eris-delivery-timeout={options.delivery_timeout}")
    if options.keyword:
        arguments += ["-k", options.keyword]
    arguments += [f"--eris-requirement={requirement_id}" for requirement_id in options.requirements]
    arguments += [f"--eris-examples={options.examples}", f"--eris-seed={options.seed}"]
    arguments += [f"--eris-names-seed={options.names_seed}"] if options.names_seed else []
    arguments += [
        f"--eris-request-timeout={options.request_timeout}",
        f"--eris-max-answer-size={options.max_answer_size}",
        f"--eris-run-timeout={options.run_timeout}",
        f"--eris-concurrency={options.concurrency}",
        f"--eris-backoff={options.backoff}",
    ]
    if in_workers:
        arguments += ["-n", str(options.workers), "--dist", "loadgroup", "-p", "conformance.run.xdist_groups"]
    return arguments


def run_suite(options: CertifyOptions, config: str | None, report_dir: Path, folder: Path) -> SuiteRun:
    watchdog = _Watchdog(options.run_timeout + _grace(options))
    session = SuiteRun(watchdog, options.run_timeout)
    arguments = _pytest_arguments(options, config, report_dir, folder)
    progress = None if options.quiet else RunProgress(options.out, progress_mode(options.out))
    # pytest's own dots and lines are kept aside (its terminal writer takes sys.stdout when it starts): eris shows
    # its progress instead, and pytest's words only where they say why a run could not be made
    pytest_output = io.StringIO()
    try:
        with watchdog, contextlib.redirect_stdout(pytest_output):
            code = pytest.main(arguments, plugins=[session, *options.plugins, *([progress] if progress else [])])
    except KeyboardInterrupt:
        if not watchdog.fired:
            raise
        # before pytest's own handling began (its start, its configuration): nothing ran
        raise RunError(
            f"the run passed its time limit of {options.run_timeout:g} s (--run-timeout) before any test ran"
        ) from None
    finally:
        if progress is not None:
            progress.close()
        gc.unfreeze()  # collectable again in a process that goes on (the kit's tests call eris in-process)
    if session.run_stop is None and code in (
        pytest.ExitCode.USAGE_ERROR,
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.INTERRUPTED,
    ):
        print("\n".join(pytest_output.getvalue().splitlines()[-PYTEST_LINES_SHOWN:]), file=sys.stderr)
    if session.interrupted:
        raise KeyboardInterrupt
    if session.run_stop and session.outcomes:
        return session  # certified for what was done; the caller says why it stopped
    if session.run_stop:
        raise RunError(f"the run stopped before any test ended: {session.run_stop}")
    if session.stopped:
        raise RunError(session.stopped)
    if session.collection_errors:
        more = len(session.collection_errors) - 1
        raise RunError(
            f"the conformance suite cannot be collected: {session.collection_errors[0]}"
            + (f" (and {more} more)" if more else "")
        )
    if code == pytest.ExitCode.USAGE_ERROR:
        raise RunError("pytest refused the options of the run (its ERROR line above says which)")
    if code == pytest.ExitCode.INTERNAL_ERROR:
        raise RunError("pytest failed internally while running the suite (see above)")
    if code == pytest.ExitCode.INTERRUPTED:
        raise RunError("the run was interrupted before it finished (see above)")
    if code == pytest.ExitCode.NO_TESTS_COLLECTED or not session.outcomes:
        selected = f" (-k {options.keyword!r} selected none)" if options.keyword else ""
        if options.requirements:
            selected += f" (no test cites {', '.join(options.requirements)})"
        raise RunError(f"no conformance test ran{selected}: a certification needs at least one")
    return session


def _grace(options: CertifyOptions) -> float:
    """How long past --run-timeout the watchdog waits: no request starts after the limit, so the test running
    then ends within one request, or one wait for a delivery (of the delivery timeout, 60 s by default)."""
    return 2 * options.request_timeout + (options.delivery_timeout or 60.0)
