"""The seeded `server` of the read tests here, one a module (a module defining its own `server` uses that instead)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serve_fixtures import RunningServer, running


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    """One seeded server for the module's read-only tests; a test that writes uses a server of its own."""
    with running() as running_server:
        yield running_server
