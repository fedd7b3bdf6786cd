"""The pytest plugin of the conformance suite (entry point `pytest11: eris`).

Options name the target; fixtures give the tests what they need to check any implementation:

- `target`: the target description (`conformance.configuration.target.Target`);
- `contract`, `validator`: the contract data for the target's installation, and the validator;
- `api`: an HTTP client of the target (`Api`), every exchange recorded for the report, every answer bounded in time
  and size (conformance.client.bounded_http); a target that stops answering, or a run past its time limit,
  stops the run;
- `receiver`: the local HTTP receiver for report deliveries and notifications (started on first
  use, once per session);
- `report_key`: a fresh RSA-4096 key pair for one report order; `key_pairs` hands out more (`take()`).

A conformance test names what it checks with `@pytest.mark.requirement("ERIS-READ-001", ...)`.
Each test's outcome, requirements and exchanges travel in its report's `user_properties`, so that
they reach the controller under pytest-xdist too; `OUTCOMES` collects them there.

This module is the pytest glue: options, the hooks of the run and of each test, and the property budget. The
fixtures live beside it, each set a plugin module this one registers (`pytest_plugins`): the target and its
contract in target_fixtures.py, the client and the receiver in client_fixtures.py, the report keys in
key_fixtures.py. What they hand out lives below: the client of the target in client/api.py, the running test's
records and skips in client/recording.py, the receivers in receivers.py, the collection of outcomes and the run's
state in run_outcomes.py. The suite imports their public names from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.client.api import DEFAULT_COUNT, Api
from conformance.client.bounded_http import SuiteCouldNotSend
from conformance.client.recording import (
    SUITE_ERROR_EXERCISE,
    TOKEN_EXERCISE,
    blocked,
    clause_not_exercised,
    end_recording,
    exercised,
    not_applicable,
    not_exercised,
    side_finding,
    start_recording,
)
from conformance.client.traffic import Traffic
from conformance.configuration.settings import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXAMPLES,
    DEFAULT_MAX_ANSWER_SIZE,
    DEFAULT_REQUEST_TIMEOUT,
    Bounds,
)
from conformance.evidence.outcomes import Findings, TestOutcome
from conformance.generation.drawn_constants import without_local_constants
from conformance.generation.made_up import set_names_seed
from conformance.harness.client_fixtures import RECEIVER, bounds_of
from conformance.harness.receivers import RECEIVER_EXERCISE, SuiteReceiver
from conformance.harness.run_outcomes import (
    FINDINGS,
    OUTCOMES,
    STARTED,
    TRAFFIC,
    OutcomeCollector,
    record_outcome,
    run_stop_reason,
    stop_run,
)

__all__ = [
    "DEFAULT_COUNT",
    "OUTCOMES",
    "RECEIVER_EXERCISE",
    "SUITE_ERROR_EXERCISE",
    "TOKEN_EXERCISE",
    "Api",
    "Bounds",
    "Findings",
    "PropertyBudget",
    "SuiteCouldNotSend",
    "SuiteReceiver",
    "TestOutcome",
    "blocked",
    "clause_not_exercised",
    "exercised",
    "not_applicable",
    "not_exercised",
    "run_stop_reason",
    "side_finding",
]

# the fixtures, each set in a plugin module of its own
pytest_plugins = (
    "conformance.harness.target_fixtures",
    "conformance.harness.client_fixtures",
    "conformance.harness.key_fixtures",
)

# The suite's helper modules fail with plain asserts too: rewrite them like the test modules.
pytest.register_assert_rewrite("conformance.suite")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("eris", "eris conformance target")
    group.addoption("--eris-target", metavar="FILE.toml", help="the conformance target description")
    group.addoption("--eris-base-url", metavar="URL", help="base URL of the target, without /v1 (overrides the file)")
    group.addoption("--eris-token", metavar="TOKEN", help="Bearer token with the report right (overrides the file)")
    group.addoption(
        "--eris-delivery-timeout", type=float, metavar="SECONDS", help="wait for a delivery or notification"
    )
    group.addoption(
        "--eris-examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"generated examples per operation in the property phase (default {DEFAULT_EXAMPLES}; 0 skips it)",
    )
    group.addoption(
        "--eris-seed", type=int, metavar="N", help="seed of the property phase (default: a new one, reported)"
    )
    group.addoption(
        "--eris-names-seed",
        metavar="TEXT",
        help="seed of the names the suite makes up (conformance/generation/made_up.py)",
    )
    group.addoption(
        "--eris-request-timeout",
        type=float,
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help=f"time for a whole answer of the target (default {DEFAULT_REQUEST_TIMEOUT:g})",
    )
    group.addoption(
        "--eris-max-answer-size",
        type=int,
        default=DEFAULT_MAX_ANSWER_SIZE,
        metavar="BYTES",
        help=f"largest answer read, decompressed (default {DEFAULT_MAX_ANSWER_SIZE})",
    )
    group.addoption(
        "--eris-concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests of a test that do not depend on each other sent at once, at most N (default "
        f"{DEFAULT_CONCURRENCY}; 1: one after another)",
    )
    group.addoption(
        "--eris-backoff",
        type=float,
        default=DEFAULT_BACKOFF,
        metavar="SECONDS",
        help=f"wait after a 429 without Retry-After, doubled with each 429 in a row (default {DEFAULT_BACKOFF:g})",
    )
    group.addoption(
        "--eris-run-timeout",
        type=float,
        metavar="SECONDS",
        help="no request is sent after this time from the start of the session (default: no limit)",
    )
    group.addoption(
        "--eris-requirement",
        action="append",
        default=[],
        metavar="ID",
        help="only the tests citing this requirement (repeatable)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("eris_concurrency") < 1:
        raise pytest.UsageError(f"--eris-concurrency must be 1 or more, not {config.getoption('eris_concurrency')}")
    if not config.getoption("eris_backoff") > 0:
        raise pytest.UsageError(f"--eris-backoff must be more than 0 seconds, not {config.getoption('eris_backoff'):g}")
    config.stash[STARTED] = time.monotonic()
    set_names_seed(config.getoption("eris_names_seed"))
    # the seed alone decides what hypothesis draws, whichever modules this process loaded (certify, verify, workers)
    without_local_constants()
    config.addinivalue_line("markers", "requirement(*ids): the catalogue requirements this conformance test checks")
    # declared here too, so that a run without pytest-xdist does not warn about the suite's groups
    config.addinivalue_line("markers", "xdist_group(name): tests that must run in one pytest-xdist worker")
    config.stash[OUTCOMES] = {}
    config.stash[TRAFFIC] = Traffic()
    config.pluginmanager.register(OutcomeCollector(config), "eris-outcomes")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(config.getoption("eris_requirement") or ())
    if not wanted:
        return
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        cited = {i for marker in item.iter_markers("requirement") for i in marker.args}
        (selected if cited & wanted else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@dataclass(frozen=True)
class PropertyBudget:
    examples: int
    """Generated examples per operation (or per property); 0: the property phase is skipped."""
    seed: int
    """The seed every property of the run starts from: the same seed generates the same requests."""


@pytest.fixture(scope="session")
def property_budget(pytestconfig: pytest.Config) -> PropertyBudget:
    import random

    examples = pytestconfig.getoption("eris_examples")
    if examples is None or examples <= 0:
        not_exercised(
            "the property phase is off (--examples 0)",
            exercise=f"--examples N, more than 0 (the default is {DEFAULT_EXAMPLES})",
        )
    seed = pytestconfig.getoption("eris_seed")
    return PropertyBudget(examples, seed if seed is not None else random.randrange(2**32))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    found = Findings()
    item.stash[FINDINGS] = found
    start_recording(found)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    found = item.stash.get(FINDINGS, None)
    if found is not None:
        end_recording(found)
    bounds = bounds_of(item.config)
    if bounds.run_deadline is not None and time.monotonic() > bounds.run_deadline:
        stop_run(item.session, f"the run reached its time limit of {bounds.run_timeout:g} s (--run-timeout)")


@pytest.fixture
def findings(request: pytest.FixtureRequest) -> Findings:
    """Failures of this test recorded per requirement (see `Findings`)."""
    return request.node.stash[FINDINGS]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    recorded = item.config.stash.get(RECEIVER, None)
    if recorded is not None:
        recorded.collect()
    record_outcome(item, call, report)
    return report
