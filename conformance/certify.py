"""`eris certify`: run the conformance suite (pytest, in this process) against a target and write the
certification: certification.json, report.html, traffic.har and junit.xml.

Exit codes: 0 conformant, 1 non-conformant, 2 the run could not be made (bad options or target
description, the target unreachable, the suite not collectable, no test selected) or stopped before its end (the
target stopped answering, the run's time limit: the outputs are written for what was done, and say why),
3 incomplete, 130 interrupted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib.util
import io
import random
import re
import secrets
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import httpx
import pytest

from conformance.backoff import backoff_text
from conformance.bounded_http import AnswerTooLarge, BoundedClient, size_text
from conformance.certification import (
    CONFORMANT,
    INCOMPLETE,
    NON_CONFORMANT,
    ExpectedFailures,
    certify,
    write_outputs,
)
from conformance.certification.summary import print_summary
from conformance.outcomes import TestOutcome
from conformance.plugin import OUTCOMES, run_stop_reason
from conformance.progress import RunProgress, progress_mode
from conformance.requirements import SUITE_DIR, coverage, load_catalogue, node_root
from conformance.round_trip import choose_workers, shortest_round_trip
from conformance.settings import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXAMPLES,
    DEFAULT_MAX_ANSWER_SIZE,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_RUN_TIMEOUT,
    usable_cores,
)
from conformance.target import TargetError, load_target
from conformance.verification import RunRecord, collected_keys, keys_recorded, options_of, redacted_description, seal

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_INCOMPLETE",
    "EXIT_NON_CONFORMANT",
    "EXIT_UNUSABLE",
    "CertifyOptions",
    "RunError",
    "run_certify",
]

EXIT_CONFORMANT, EXIT_NON_CONFORMANT, EXIT_UNUSABLE, EXIT_INCOMPLETE = 0, 1, 2, 3
_EXIT_OF_VERDICT = {CONFORMANT: EXIT_CONFORMANT, NON_CONFORMANT: EXIT_NON_CONFORMANT, INCOMPLETE: EXIT_INCOMPLETE}
OUTPUTS = ("certification.json", "report.html", "traffic.har", "junit.xml")
PROBE_TIMEOUT = 10.0
MIN_MAX_ANSWER_SIZE = 1024
"""Below this no answer of the contract fits (an envelope with one item)."""
SHOWN_FAILURES = 10
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


class RunError(Exception):
    """The certification could not be made; the message is one line that says why."""


@dataclass
class CertifyOptions:
    target: str | None = None
    config: str | None = None
    token: str | None = None
    report_dir: Path = Path("certification")
    expected_failures: str | None = None
    delivery_timeout: float | None = None
    workers: int | None = None
    """Processes the tests run in (more than 1 needs pytest-xdist); None: chosen from the target's round trip."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Requests of one test that do not depend on each other sent at once, at most; 1: one after another."""
    backoff: float = DEFAULT_BACKOFF
    """Seconds waited after a 429 without Retry-After, doubled with each 429 in a row (conformance/backoff.py)."""
    keyword: str | None = None
    requirements: tuple[str, ...] = ()
    """Only the tests citing one of these requirement ids."""
    examples: int = DEFAULT_EXAMPLES
    """Generated examples per property of the property phase; 0 leaves the phase out."""
    seed: int | None = None
    """Seed of the property phase; None: a new one, reported in the certification."""
    faults: tuple[str, ...] = ()
    """Faults of the embedded reference implementation (conformance.deviations), to measure the suite."""
    variants: tuple[str, ...] = ()
    """Conformant variants of the embedded reference implementation."""
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    """Seconds for a whole answer of the target (connecting, sending, head and body)."""
    max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE
    """Bytes of an answer, decompressed: a larger one is a finding against its operation."""
    run_timeout: float = DEFAULT_RUN_TIMEOUT
    """Seconds of the whole run: no request is sent after it, and the run ends with what was done."""
    quiet: bool = False
    suite_dir: Path = SUITE_DIR
    out: TextIO = field(default_factory=lambda: sys.stdout)
    names_seed: str | None = None
    """Seed of the names the suite makes up (conformance/made_up.py); None: a new one, recorded."""
    plugins: tuple[Any, ...] = ()
    """More pytest plugins of the run (`eris verify` hands out the recorded report keys with one)."""

    @property
    def embedded(self) -> bool:
        return not self.target and not self.config


def run_certify(options: CertifyOptions) -> int:
    """Certify the target of `options`; print progress and a summary; return the exit code."""
    try:
        return _certify(options)
    except RunError as error:
        print(f"eris: {_one_line(str(error)).removeprefix('eris: ')}", file=sys.stderr)
        return EXIT_UNUSABLE


def _certify(options: CertifyOptions) -> int:
    expected = _checked(options)
    if options.seed is None:
        options = dataclasses.replace(options, seed=random.randrange(2**32))
    if options.names_seed is None:
        options = dataclasses.replace(options, names_seed=secrets.token_hex(16))
    catalogue = _catalogue()
    report_dir = _prepared(options.report_dir)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="eris-certify-run-")))
        config = options.config
        if options.embedded:
            from conformance.embedded import EmbeddedReference

            try:
                server = stack.enter_context(EmbeddedReference((*options.faults, *options.variants)))
            except OSError as error:
                raise RunError(f"the embedded reference implementation cannot start: {error}") from None
            config = str(server.description)
            deviating = ", ".join(
                [*(f"fault {name}" for name in options.faults), *(f"variant {name}" for name in options.variants)]
            )
            print(
                f"eris certify: certifying the embedded reference implementation at {server.base_url}"
                + (f" (with {deviating})" if deviating else ""),
                file=options.out,
            )
        try:
            target = load_target(
                config, base_url=options.target, token=options.token, delivery_timeout=options.delivery_timeout
            )
        except TargetError as error:
            raise RunError(str(error)) from None
        round_trip = _probe(target.base_url, options)
        if not options.embedded:
            print(f"eris certify: certifying {target.base_url}", file=options.out)
        choice = choose_workers(
            options.workers, round_trip, _xdist_installed(), cores=usable_cores(), on_this_machine=options.embedded
        )
        at_once = f"{options.concurrency} requests at once" if options.concurrency > 1 else "one request at a time"
        print(f"eris certify: {choice.line()}; in a test, {at_once} (--concurrency)", file=options.out)
        options = dataclasses.replace(options, workers=choice.workers)
        started = datetime.now(UTC)
        with keys_recorded(folder / "keys"):
            session = _run_suite(options, config, report_dir, folder)
        described, keys = redacted_description(config), collected_keys(folder / "keys")
        finished = datetime.now(UTC)
    selection = _selection(options)
    if session.run_stop:
        selection = "; ".join(filter(None, [selection, f"the run stopped before its end: {session.run_stop}"]))
    certification = certify(
        catalogue,
        session.outcomes,
        base_url=target.base_url,
        started=started,
        finished=finished,
        expected=expected,
        embedded=options.embedded,
        properties={"examples": options.examples, "seed": options.seed},
        deviations=(*options.faults, *options.variants),
        features=target.features,
        cited=_cited(options.suite_dir),
        selection=selection,
        run={
            **choice.to_json(),
            "concurrency": options.concurrency,
            "backoff_s": options.backoff,
            "backoff": backoff_text(options.backoff),
        },
        run_stopped=f"the run stopped before its end: {session.run_stop}" if session.run_stop else "",
    )
    try:
        paths = write_outputs(certification, report_dir)
        assert options.seed is not None and options.names_seed is not None
        seal(report_dir, RunRecord(options.seed, options.names_seed, options_of(options), described, keys))
    except OSError as error:
        raise RunError(f"cannot write the certification into {report_dir}: {error.strerror or error}") from None
    paths["junit.xml"] = report_dir / "junit.xml"
    print_summary(certification, paths, options.out, shown=SHOWN_FAILURES, outputs=OUTPUTS)
    if session.run_stop:
        # a verdict of part of the suite is no certification: a CI gate reads 2, the outputs say what was done
        raise RunError(
            f"the run stopped before its end: {session.run_stop} (the outputs in {report_dir} show what was done)"
        )
    return _EXIT_OF_VERDICT[certification.verdict]


def _cited(suite_dir: Path) -> dict[str, list[str]]:
    """Every test of the suite citing each requirement, run or not: a MUST some of whose tests were left out
    makes the run incomplete."""
    try:
        return coverage(suite_dir)
    except ValueError as error:
        raise RunError(str(error)) from None


def _selection(options: CertifyOptions) -> str:
    parts = [f"-k {options.keyword}"] if options.keyword else []
    parts += [f"--requirement {requirement_id}" for requirement_id in options.requirements]
    if options.examples == 0:
        parts.append("--examples 0 (no property phase)")
    return " ".join(parts)


def _checked(options: CertifyOptions) -> ExpectedFailures:
    """Options that need no target: the expected failures, workers, the suite folder."""
    if options.delivery_timeout is not None and not options.delivery_timeout > 0:
        raise RunError(f"--delivery-timeout must be more than 0 seconds, not {options.delivery_timeout:g}")
    if not options.request_timeout > 0:
        raise RunError(f"--request-timeout must be more than 0 seconds, not {options.request_timeout:g}")
    if not options.run_timeout > 0:
        raise RunError(f"--run-timeout must be more than 0 seconds, not {options.run_timeout:g}")
    if options.max_answer_size < MIN_MAX_ANSWER_SIZE:
        raise RunError(
            f"--max-answer-size must be {size_text(MIN_MAX_ANSWER_SIZE)} or more, not {options.max_answer_size} bytes"
        )
    if options.examples < 0:
        raise RunError(f"--examples must be 0 (no property phase) or more, not {options.examples}")
    if options.seed is not None and not 0 <= options.seed < 2**32:
        raise RunError(f"--seed must be between 0 and {2**32 - 1}, not {options.seed}")
    if options.concurrency < 1:
        raise RunError(f"--concurrency must be 1 or more, not {options.concurrency}")
    if not options.backoff > 0:
        raise RunError(f"--backoff must be more than 0 seconds, not {options.backoff:g}")
    if options.workers is not None:
        if options.workers < 1:
            raise RunError(f"--workers must be 1 or more, not {options.workers}")
        if options.workers > 1 and not _xdist_installed():
            raise RunError("--workers needs pytest-xdist, which is not installed: pip install pytest-xdist")
    if (options.faults or options.variants) and not options.embedded:
        raise RunError(
            "--fault and --variant change the embedded reference implementation: leave out --target and --config"
        )
    _check_deviations(options)
    _check_requirements(options)
    if not options.suite_dir.is_dir():
        raise RunError(f"the conformance suite {options.suite_dir} is not a folder")
    if options.expected_failures is None:
        return ExpectedFailures()
    try:
        return ExpectedFailures.read(options.expected_failures)
    except ValueError as error:
        raise RunError(str(error)) from None


def _check_deviations(options: CertifyOptions) -> None:
    if not options.faults and not options.variants:
        return
    from conformance.deviations import FAULT, VARIANT, UnknownDeviation, lookup

    for names, kind, option in ((options.faults, FAULT, "--fault"), (options.variants, VARIANT, "--variant")):
        for name in names:
            try:
                found = lookup(name)
            except UnknownDeviation as error:
                raise RunError(str(error)) from None
            if found.kind != kind:
                raise RunError(f"{name!r} is a {found.kind}: name it with --{found.kind}, not {option}")


def _check_requirements(options: CertifyOptions) -> None:
    known = {requirement.id for requirement in _catalogue()}
    unknown = [requirement_id for requirement_id in options.requirements if requirement_id not in known]
    if unknown:
        raise RunError(f"--requirement names ids that are not in the catalogue: {', '.join(unknown)}")


def _catalogue() -> list[Any]:
    try:
        return load_catalogue()
    except ValueError as error:
        raise RunError(f"the requirement catalogue cannot be used: {error}") from None


def _prepared(report_dir: Path) -> Path:
    """The report folder, created, without the outputs of an earlier run: a run that cannot be made must not
    leave an old verdict looking like its own."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        for name in OUTPUTS:
            (report_dir / name).unlink(missing_ok=True)
    except OSError as error:
        raise RunError(f"cannot use the report folder {report_dir}: {error.strerror or error}") from None
    return report_dir.resolve()


def _xdist_installed() -> bool:
    return importlib.util.find_spec("xdist") is not None


def _probe(base_url: str, options: CertifyOptions) -> float | None:
    """Fail before pytest starts when nothing answers at the target: with workers, the plugin's own check
    stops a worker, and its reason would not reach this process. Bounded as every request of the run. Returns the
    target's round trip in seconds (conformance.round_trip), None where an answer was too large to time."""
    timeout = min(PROBE_TIMEOUT, options.request_timeout)
    try:
        with BoundedClient(request_timeout=timeout, max_answer_size=options.max_answer_size) as client:
            return shortest_round_trip(client, f"{base_url}/v1/value-sets")
    except AnswerTooLarge:
        return None  # it answers; the size is the read's own test's to judge
    except httpx.HTTPError as error:
        raise RunError(
            f"the target {base_url} cannot be reached: {_one_line(str(error)) or type(error).__name__}"
        ) from None


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


class _Session:
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
        """pytest-xdist: a worker ended; when it stopped the run, its reason (conformance.xdist_groups.STOPPED)."""
        from conformance.xdist_groups import STOPPED

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
            self.stopped = f"the run was interrupted: {_one_line(str(error)) or type(error).__name__}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from conformance.xdist_groups import without_group

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
    arguments += ["--disable-plugin-autoload", "-p", "conformance.plugin"]
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
        arguments += ["-n", str(options.workers), "--dist", "loadgroup", "-p", "conformance.xdist_groups"]
    return arguments


def _run_suite(options: CertifyOptions, config: str | None, report_dir: Path, folder: Path) -> _Session:
    watchdog = _Watchdog(options.run_timeout + _grace(options))
    session = _Session(watchdog, options.run_timeout)
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


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
