"""The self-test of the conformance suite: certify the embedded reference implementation once per named
deviation (conformance.deviations) and see whether the suite tells them apart.

- A fault is **killed** when its certification is non-conformant and names the fault's requirement among the
  failed ones; otherwise it **survived** (the suite misses what the fault breaks).
- A variant **passes** when its certification is conformant; otherwise it is a **false positive** (the suite
  fails something the contract leaves open).

Each certification runs as its own `eris certify` process, `jobs` at a time. The processes are forked from a
multiprocessing fork server that imported eris and its libraries once: a focused certification spends about a
third of its time importing them otherwise. One Azurite and one Samba serve them all (conformance/stores/shared.py),
and their report keys come from a stock when ERIS_KEY_STOCK names one (conformance/generation/key_pairs.py).
`focused=True` certifies a fault with the tests citing its requirement only (`--requirement`), as CI does; the
benchmark certifies in full.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

from conformance.deviations import FAULT, VARIANT, Deviation
from conformance.stores.shared import shared_stores

__all__ = [
    "Outcome",
    "certifying_processes",
    "isolation_line",
    "judged",
    "kill_table",
    "run_deviation",
    "run_selftest",
    "summary_line",
]

KILLED, SURVIVED, PASSED, FALSE_POSITIVE, BROKEN = "killed", "survived", "passed", "false positive", "run failed"


@dataclass
class Outcome:
    deviation: Deviation
    result: str
    """killed / survived (a fault), passed / false positive (a variant), or run failed."""
    failed: list[str] = field(default_factory=list)
    """MUST requirements the certification failed."""
    seconds: float = 0.0
    detail: str = ""
    causes: int = 0
    """The failed requirements' first causes (certification.json summary.causes): one defect reads as one."""

    @property
    def as_expected(self) -> bool:
        return self.result in (KILLED, PASSED)


PRELOADED = (
    "conformance.cli",
    "conformance.cli.certify",
    "conformance.cli.serve",
    "conformance.run.certify",
    "conformance.run.embedded",
    "conformance.harness.plugin",
    "reference_impl.app",
    "azure.storage.blob",
    "smbclient",
    "schemathesis",
    "hypothesis",
    "pytest",
)
"""What the fork server imports once, for every certification forked from it."""


UNREACHED_BY_VARIANTS = "test_a_429_carries_retry_after"
"""The test a variant's certification leaves out: its burst of 1,500 orders never reaches the embedded target's gateway
quota (200 a second after a burst of 400), since that target answers them in the certification's own process, about
150 a second; so it only ever skipped there, after 7 to 9 s of computing in each variant. The faults of ERIS-ERR-307
(`retry-after-missing`, with a quota of its own) and `eris certify` of the reference still run it."""


@contextmanager
def certifying_processes(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """`jobs` processes at a time, each forked anew for one certification from a server that preloaded eris."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOADED))
    with ProcessPoolExecutor(jobs, mp_context=context, max_tasks_per_child=1) as pool:
        yield pool


def _certify(arguments: list[str], log: str, limit: float, environment: dict[str, str]) -> int:
    """`eris certify arguments` in this process, with `environment` added, its output into `log`; the process ends
    itself past `limit` seconds, so that no certification outlives the self-test whatever it waits for."""
    os.environ.update(environment)
    stopper = threading.Timer(limit, os._exit, (124,))
    stopper.daemon = True
    stopper.start()
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    from conformance.cli import main

    try:
        return main(arguments)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def run_deviation(
    deviation: Deviation,
    *,
    focused: bool,
    examples: int,
    seed: int,
    workdir: Path,
    delivery_timeout: float | None = None,
    timeout: float = 600.0,
    also: tuple[str, ...] = (),
    processes: ProcessPoolExecutor | None = None,
    environment: dict[str, str] | None = None,
) -> Outcome:
    """Certify the embedded reference implementation running `deviation` and judge the outcome.
    `delivery_timeout`: how long a delivery or notification is waited for (None: certify's default); a fault
    that never delivers costs this much for every test waiting on it. `also`: with `focused`, the tests citing
    these requirements run too (to see that they do not fail by the fault). `processes`: where to certify
    (certifying_processes); a pool of one of its own when None. `environment`: added to the certification's, as
    shared_stores gives it."""
    if processes is None:
        with certifying_processes(1) as own:
            return run_deviation(
                deviation,
                focused=focused,
                examples=examples,
                seed=seed,
                workdir=workdir,
                delivery_timeout=delivery_timeout,
                timeout=timeout,
                also=also,
                processes=own,
                environment=environment,
            )
    report_dir = workdir / deviation.name
    option = "--fault" if deviation.kind == FAULT else "--variant"
    arguments = [option, deviation.name, "--report-dir", str(report_dir), "--examples", str(examples)]
    arguments += ["--seed", str(seed), "--quiet", "--run-timeout", f"{timeout:g}"]
    if focused and deviation.requirement:
        for requirement in (deviation.requirement, *also):
            arguments += ["--requirement", requirement]
    if deviation.kind == VARIANT:
        arguments += ["-k", f"not {UNREACHED_BY_VARIANTS}"]
    if delivery_timeout is not None:
        arguments += ["--delivery-timeout", str(delivery_timeout)]
    report_dir.mkdir(parents=True, exist_ok=True)
    log = report_dir / "certify.log"
    started = time.monotonic()
    # past the run's own bound, a certification ends within its grace (conformance/run/certify.py); this is the last
    limit = 2 * timeout + 180
    try:
        code = processes.submit(_certify, ["certify", *arguments], str(log), limit, environment or {}).result()
    except Exception as error:  # the process died (a signal, os._exit past the limit): a run that failed
        return Outcome(deviation, BROKEN, seconds=time.monotonic() - started, detail=f"{type(error).__name__}: {error}")
    seconds = time.monotonic() - started
    return judged(deviation, code, report_dir, log.read_text(encoding="utf-8", errors="replace"), seconds)


def judged(deviation: Deviation, code: int, report_dir: Path, output: str, seconds: float) -> Outcome:
    """The outcome of a certification that exited with `code`, wrote `output`, and its documents to `report_dir`."""
    written = report_dir / "certification.json"
    # a focused run of a fault is incomplete (3) when it is not killed; exit 1 without the document is a crash
    if code not in (0, 1, 3) or not written.is_file():
        lines = output.strip().splitlines()
        return Outcome(deviation, BROKEN, seconds=seconds, detail=lines[-1] if lines else f"exit {code}")
    certification = json.loads(written.read_text(encoding="utf-8"))
    failed = list(certification["summary"]["failed_must"])
    causes = certification["summary"].get("causes", [])
    if deviation.kind == FAULT:
        result = KILLED if deviation.requirement in failed else SURVIVED
    else:
        # A variant is certified with the scenario tests only, an incomplete run: what counts is no MUST failed.
        result = FALSE_POSITIVE if failed else PASSED
    # what failed where nothing should have is told in the certification's own words (its first causes)
    detail = "" if result in (KILLED, PASSED) else " | ".join(_cause_line(cause) for cause in causes[:3])
    if detail:
        detail += _first_failure_trace(report_dir / "junit.xml")
    return Outcome(deviation, result, failed, seconds, detail=detail, causes=len(causes))


def _first_failure_trace(junit: Path) -> str:
    """Where the first failed test of a certification failed (its report's last lines): the certification's folder
    is gone with the self-test's, and an error of the suite itself is chased by its traceback."""
    import xml.etree.ElementTree as ElementTree

    try:
        for case in ElementTree.parse(junit).getroot().iter("testcase"):
            for failure in (*case.iter("failure"), *case.iter("error")):
                lines = [line.rstrip() for line in (failure.text or "").splitlines() if line.strip()]
                return f" || first failed test {case.get('name')}: " + " / ".join(lines[-25:])[-3000:]
    except (OSError, ElementTree.ParseError):
        return ""
    return ""


def _cause_line(cause: dict[str, Any]) -> str:
    lines = [line.strip() for line in str(cause.get("message", "")).splitlines() if line.strip()]
    shown = " / ".join(lines[:2] + lines[-2:] if len(lines) > 4 else lines)
    return f"{', '.join(cause.get('requirements', []))}: {shown[:600]}"


WAITING_AREAS = ("ERIS-REPORT-", "ERIS-CRYPT-", "ERIS-EVT-")
"""Requirements whose tests wait for a delivery or a notification: a fault of them waits more than it computes."""


def in_turn(deviations: Iterable[Deviation]) -> list[Deviation]:
    """The order to certify in: variants (each runs every scenario test, and computes for most of it) alternating
    with the faults of waiting areas, then the other faults (a few tests each). A long certification never runs
    alone at the end, and a waiting one runs beside those that compute."""
    chosen = list(deviations)
    variants = [d for d in chosen if d.kind != FAULT]
    waiting = [d for d in chosen if d.kind == FAULT and (d.requirement or "").startswith(WAITING_AREAS)]
    others = [d for d in chosen if d not in variants and d not in waiting]
    paired = [d for pair in zip_longest(variants, waiting) for d in pair if d is not None]
    return paired + others


def run_selftest(
    deviations: Iterable[Deviation],
    *,
    focused: bool,
    examples: int,
    seed: int,
    jobs: int = 2,
    variant_examples: int | None = None,
    delivery_timeout: float | None = None,
    progress: Callable[[Outcome], None] | None = None,
    also: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Outcome]:
    """Every deviation certified, `jobs` at a time, `in_turn`; outcomes in the order of `deviations`.
    `variant_examples`: the property-phase examples of a variant (None: `examples`). `also`: deviation name ->
    requirements whose tests its focused certification runs too (run_deviation)."""
    chosen = list(deviations)
    with (
        tempfile.TemporaryDirectory(prefix="eris-selftest-") as folder,
        shared_stores() as environment,
        certifying_processes(jobs) as processes,
        ThreadPoolExecutor(jobs) as pool,
    ):
        futures = {
            d.name: pool.submit(
                run_deviation,
                d,
                focused=focused,
                examples=examples if d.kind == FAULT or variant_examples is None else variant_examples,
                seed=seed,
                workdir=Path(folder),
                delivery_timeout=delivery_timeout,
                processes=processes,
                environment=environment,
                also=(also or {}).get(d.name, ()),
            )
            for d in in_turn(chosen)
        }
        outcomes = []
        for d in chosen:
            outcome = futures[d.name].result()
            if progress is not None:
                progress(outcome)
            outcomes.append(outcome)
    return outcomes


ENVELOPE = "ERIS-READ-001"
"""Every read answers the envelope: a defect of it may fairly fail more than its own requirement."""


def isolation_line(outcomes: list[Outcome]) -> str:
    """How far a fault spreads: MUST requirements failed per killed fault (median, max, max outside the envelope),
    and the causes they were grouped into."""
    killed = [o for o in outcomes if o.deviation.kind == FAULT and o.result == KILLED]
    if not killed:
        return "isolation: no fault killed"
    counts = sorted(len(o.failed) for o in killed)
    outside = [len(o.failed) for o in killed if o.deviation.requirement != ENVELOPE] or [0]
    causes = sorted(o.causes for o in killed)
    spread = [o.deviation.name for o in killed if len(o.failed) > 1]
    return (
        f"isolation: failed MUST per fault median {statistics.median(counts):g}, max {max(counts)}, "
        f"max outside the envelope {max(outside)}; causes per fault median {statistics.median(causes):g}, "
        f"max {max(causes)}; {len(spread)} of {len(killed)} faults failed more than their own requirement"
    )


def kill_table(outcomes: list[Outcome], catalogue: Iterable[Any]) -> list[str]:
    """One line per MUST requirement: the faults breaking it and how many were killed, or why it has none."""
    lines = []
    for requirement in catalogue:
        if requirement.level != "MUST":
            continue
        mine = [o for o in outcomes if o.deviation.kind == FAULT and o.deviation.requirement == requirement.id]
        if mine:
            killed = sum(o.result == KILLED for o in mine)
            names = ", ".join(o.deviation.name for o in mine)
            lines.append(f"{requirement.id:18} {killed}/{len(mine)} killed  {names}")
        else:
            why = f"cannot be tested from outside: {requirement.outside}" if requirement.outside else "NO FAULT"
            lines.append(f"{requirement.id:18} -         {why}")
    return lines


def summary_line(outcomes: list[Outcome]) -> str:
    faults = [o for o in outcomes if o.deviation.kind == FAULT]
    variants = [o for o in outcomes if o.deviation.kind != FAULT]
    killed = sum(o.result == KILLED for o in faults)
    false_positives = sum(o.result == FALSE_POSITIVE for o in variants)
    broken = sum(o.result == BROKEN for o in outcomes)
    rate = f"{100 * killed / len(faults):.0f}%" if faults else "n/a"
    return f"kill rate {killed}/{len(faults)} ({rate}); false positives {false_positives}/{len(variants)}" + (
        f"; {broken} runs failed" if broken else ""
    )
