"""The clock of a re-check, where the suite's requests depend on the date: the month its report orders name is the
certified run's (from certification.json's `started`), so that a re-check made in a later month sends the orders
traffic.har answers. Moments a test compares with each other (runAt and the delivery after it) stay the re-check's
own: the replay pushes each delivery as long after its order's answer as it came."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conformance.suite.support.orders import RUN_STARTED

__all__ = ["ReplayedClockPlugin", "recorded_start"]


def recorded_start(document: dict[str, object]) -> datetime | None:
    """When the certified run started (its `started`, aware), None when certification.json does not say."""
    started = document.get("started")
    try:
        moment = datetime.fromisoformat(started) if isinstance(started, str) else None
    except ValueError:
        return None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


class ReplayedClockPlugin:
    """A pytest plugin of the re-check's run: the suite's date is the certified run's."""

    def __init__(self, started: datetime) -> None:
        self.started = started

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[RUN_STARTED] = self.started
