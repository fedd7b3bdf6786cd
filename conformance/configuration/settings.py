"""Settings of a certification run that several layers read: the suite's version, its defaults, the bounds a run
sets for the target, and the cores this process may use."""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_EXAMPLES",
    "DEFAULT_MAX_ANSWER_SIZE",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_RUN_TIMEOUT",
    "MAX_BACKOFF",
    "Bounds",
    "suite_version",
    "usable_cores",
]

DEFAULT_EXAMPLES = 12
"""Examples per property of the property phase. Generating them is most of the phase's cost (hypothesis and
schemathesis): with 12 a full run of the embedded reference implementation takes about 15 s on two shared cores
(bench/certify.py), with 264 generated requests and three walks of the links; 20, the default until 2026-11, gives
440 and five, and one to four seconds more."""

DEFAULT_CONCURRENCY = 8
"""Requests of one test that do not depend on each other sent at once (`eris certify --concurrency`): at 50 ms a
round trip the pages, probes and reads of a test cost a few round trips instead of one each; eight in flight is
what a small test server answers without strain (a 429 is waited out by its Retry-After)."""

DEFAULT_BACKOFF = 1.0
"""Seconds the suite waits after a 429 without a Retry-After header (`eris certify --backoff`), doubled with each
429 in a row (conformance/client/backoff.py): the contract shows no quota, and one second is what a token bucket
refilled each second needs; a gateway counting in windows of a minute is met within a minute of back-offs."""
MAX_BACKOFF = 30.0
"""Seconds of one back-off at most, whatever the Retry-After says: a run waits this long at worst per request."""

DEFAULT_REQUEST_TIMEOUT = 30.0
"""Seconds for a whole answer of the target (`eris certify --request-timeout`): a remote target over a slow link
answers a read of the suite well within it."""
DEFAULT_MAX_ANSWER_SIZE = 32 * 1024 * 1024
"""Bytes of an answer, decompressed (`eris certify --max-answer-size`): the suite reads test data in pages of at
most 100 items, and parses what it reads (a JSON answer takes several times its size in memory)."""
DEFAULT_RUN_TIMEOUT = 3600.0
"""Seconds a certification run may take (`eris certify --run-timeout`): a run of the embedded reference
implementation takes 20 s, a remote target's a few minutes (each delivery is waited for up to 60 s); an hour leaves
room for a slow link, and still ends a CI job that would otherwise wait until its own limit."""


@dataclass(frozen=True)
class Bounds:
    """What the run allows the target: seconds for a whole answer, bytes of an answer (decompressed), and the
    moment (time.monotonic()) after which no request is sent (None: no limit)."""

    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE
    run_deadline: float | None = None
    run_timeout: float | None = None
    """The limit the deadline comes from, as given (for the reason of a stop)."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Requests of one test sent at once, at most (`Api.concurrently`); 1: one after another."""
    backoff: float = DEFAULT_BACKOFF
    """Seconds waited after a 429 without Retry-After, doubled with each 429 in a row (client/backoff.py)."""


def suite_version() -> str:
    """The version of the installed eris distribution, which is the version of its conformance suite; 0+checkout
    when run from a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version  # here: ~20 ms of every start of the command line

    try:
        return version("eris")
    except PackageNotFoundError:
        return "0+checkout"


def usable_cores() -> int:
    """The cores this process may use (`eris validate --jobs`, `eris certify`'s workers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
