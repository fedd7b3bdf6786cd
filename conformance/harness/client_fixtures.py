"""The fixtures of the suite's client of the target and of its receiver: `api` (every exchange recorded, every
answer bounded by the run's `Bounds`, read from the options by `bounds_of`) and `receiver` (the local receiver of
deliveries and notifications, or one whose waits skip when the target cannot reach it). A plugin module registered
by plugin.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from conformance.client.api import Api
from conformance.client.bounded_http import AnswerTooLarge, error_text
from conformance.configuration.settings import Bounds
from conformance.configuration.target import Target
from conformance.harness.receivers import RecordedReceiver, SuiteReceiver, UnreachableReceiver
from conformance.harness.run_outcomes import STARTED, TRAFFIC, stop_run

if TYPE_CHECKING:
    from profiles.validator import Validator

__all__ = ["RECEIVER", "api", "bounds_of", "receiver"]


def bounds_of(config: pytest.Config) -> Bounds:
    run_timeout = config.getoption("eris_run_timeout")
    return Bounds(
        request_timeout=config.getoption("eris_request_timeout"),
        max_answer_size=config.getoption("eris_max_answer_size"),
        run_deadline=None if run_timeout is None else config.stash[STARTED] + run_timeout,
        run_timeout=run_timeout,
        concurrency=config.getoption("eris_concurrency"),
        backoff=config.getoption("eris_backoff"),
    )


@pytest.fixture(scope="session")
def api(target: Target, validator: Validator, request: pytest.FixtureRequest) -> Iterator[Api]:
    config = request.config
    session = request.session
    client = Api(
        target, validator, config.stash[TRAFFIC], bounds=bounds_of(config), stop_run=lambda why: stop_run(session, why)
    )
    try:
        probe = client.client.get("/v1/value-sets", params={"count": 1})
    except AnswerTooLarge:
        probe = None  # it answers: the read's own test judges the size
    except httpx.HTTPError as error:
        pytest.exit(f"eris: the target {target.base_url} cannot be reached: {error_text(error)}", returncode=2)
    if probe is not None and probe.status_code == 401 and not target.token:
        pytest.exit(
            f"eris: the target {target.base_url} answers 401 to GET /v1/value-sets: it demands a token on its reads, "
            "and none is given ([target] token in the target description, or --token)",
            returncode=2,
        )
    yield client
    client.close()


RECEIVER = pytest.StashKey[RecordedReceiver]()


@pytest.fixture(scope="session")
def receiver(target: Target, pytestconfig: pytest.Config) -> Iterator[SuiteReceiver]:
    from reports.receiver import Receiver

    settings = target.receiver
    started = Receiver(host=settings.host, port=settings.port, public_url=settings.public_url or None)
    try:
        started.start()
    except OSError as error:
        pytest.exit(f"eris: the receiver cannot listen on {settings.host}:{settings.port}: {error}", returncode=2)
    from conformance.harness.reachability import receiver_unreachable

    pytestconfig.stash[RECEIVER] = RecordedReceiver(started, pytestconfig.stash[TRAFFIC])
    unreachable = receiver_unreachable(started.url, target.base_url)
    yield started if unreachable is None else UnreachableReceiver(started, unreachable)
    started.stop()
