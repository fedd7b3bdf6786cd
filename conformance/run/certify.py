"""`eris certify`: run the conformance suite (pytest, in this process) against a target and write the
certification: certification.json, report.html, traffic.har and junit.xml. The options are checked in
certify_options.py, the suite is run by suite_run.py; this module starts the target when none is named, chooses the
workers and makes the certification of what the run left.

Exit codes: 0 conformant, 1 non-conformant, 2 the run could not be made (bad options or target
description, the target unreachable, the suite not collectable, no test selected) or stopped before its end (the
target stopped answering, the run's time limit: the outputs are written for what was done, and say why),
3 incomplete, 130 interrupted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import secrets
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import httpx

from conformance.catalogue.requirements import coverage
from conformance.certification import CONFORMANT, INCOMPLETE, NON_CONFORMANT, certify, write_outputs
from conformance.certification.summary import print_summary
from conformance.client.backoff import backoff_text
from conformance.client.bounded_http import AnswerTooLarge, BoundedClient
from conformance.configuration.settings import usable_cores
from conformance.configuration.target import TargetError, load_target
from conformance.run.certify_options import (
    CertifyOptions,
    RunError,
    checked,
    one_line,
    usable_catalogue,
    xdist_installed,
)
from conformance.run.round_trip import choose_workers, shortest_round_trip
from conformance.run.suite_run import run_suite
from conformance.verification import (
    RunRecord,
    collected_keys,
    collected_store_reads,
    keys_recorded,
    options_of,
    redacted_description,
    seal,
    store_reads_recorded,
)

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
SHOWN_FAILURES = 10


def run_certify(options: CertifyOptions) -> int:
    """Certify the target of `options`; print progress and a summary; return the exit code."""
    try:
        return _certify(options)
    except RunError as error:
        print(f"eris: {one_line(str(error)).removeprefix('eris: ')}", file=sys.stderr)
        return EXIT_UNUSABLE


def _certify(options: CertifyOptions) -> int:
    expected = checked(options)
    if options.seed is None:
        options = dataclasses.replace(options, seed=random.randrange(2**32))
    if options.names_seed is None:
        options = dataclasses.replace(options, names_seed=secrets.token_hex(16))
    catalogue = usable_catalogue()
    report_dir = _prepared(options.report_dir)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="eris-certify-run-")))
        config = options.config
        if options.embedded:
            from conformance.run.embedded import EmbeddedReference

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
            options.workers, round_trip, xdist_installed(), cores=usable_cores(), on_this_machine=options.embedded
        )
        at_once = f"{options.concurrency} requests at once" if options.concurrency > 1 else "one request at a time"
        print(f"eris certify: {choice.line()}; in a test, {at_once} (--concurrency)", file=options.out)
        options = dataclasses.replace(options, workers=choice.workers)
        started = datetime.now(UTC)
        with keys_recorded(folder / "keys"), store_reads_recorded(folder / "stores"):
            session = run_suite(options, config, report_dir, folder)
        described, keys = redacted_description(config), collected_keys(folder / "keys")
        reads = collected_store_reads(folder / "stores")
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
        record = RunRecord(options.seed, options.names_seed, options_of(options), described, keys, store_reads=reads)
        seal(report_dir, record)
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


def _probe(base_url: str, options: CertifyOptions) -> float | None:
    """Fail before pytest starts when nothing answers at the target: with workers, the plugin's own check
    stops a worker, and its reason would not reach this process. Bounded as every request of the run. Returns the
    target's round trip in seconds (conformance.run.round_trip), None where an answer was too large to time."""
    timeout = min(PROBE_TIMEOUT, options.request_timeout)
    try:
        with BoundedClient(request_timeout=timeout, max_answer_size=options.max_answer_size) as client:
            return shortest_round_trip(client, f"{base_url}/v1/value-sets")
    except AnswerTooLarge:
        return None  # it answers; the size is the read's own test's to judge
    except httpx.HTTPError as error:
        raise RunError(
            f"the target {base_url} cannot be reached: {one_line(str(error)) or type(error).__name__}"
        ) from None
