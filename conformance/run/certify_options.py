"""The options of `eris certify` (`CertifyOptions`) and their checks before any target is reached: a run that
cannot be made says why in one line (`RunError`), before a server starts or a request goes out."""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from conformance.catalogue.requirements import SUITE_DIR, load_catalogue
from conformance.certification import ExpectedFailures
from conformance.client.bounded_http import size_text
from conformance.configuration.settings import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXAMPLES,
    DEFAULT_MAX_ANSWER_SIZE,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_RUN_TIMEOUT,
)

__all__ = ["CertifyOptions", "RunError", "checked", "one_line", "usable_catalogue", "xdist_installed"]

MIN_MAX_ANSWER_SIZE = 1024
"""Below this no answer of the contract fits (an envelope with one item)."""


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
    """Seconds waited after a 429 without Retry-After, doubled with each 429 in a row (client/backoff.py)."""
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
    """Seed of the names the suite makes up (conformance/generation/made_up.py); None: a new one, recorded."""
    plugins: tuple[Any, ...] = ()
    """More pytest plugins of the run (`eris verify` hands out the recorded report keys with one)."""

    @property
    def embedded(self) -> bool:
        return not self.target and not self.config


def checked(options: CertifyOptions) -> ExpectedFailures:
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
        if options.workers > 1 and not xdist_installed():
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
    known = {requirement.id for requirement in usable_catalogue()}
    unknown = [requirement_id for requirement_id in options.requirements if requirement_id not in known]
    if unknown:
        raise RunError(f"--requirement names ids that are not in the catalogue: {', '.join(unknown)}")


def usable_catalogue() -> list[Any]:
    try:
        return load_catalogue()
    except ValueError as error:
        raise RunError(f"the requirement catalogue cannot be used: {error}") from None


def xdist_installed() -> bool:
    return importlib.util.find_spec("xdist") is not None


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
