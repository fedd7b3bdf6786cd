"""pytest set-up of the project's own tests (not of the conformance suite, which runs without hypothesis).

Hypothesis budgets live in the profiles below, not in the tests' decorators: "ci" (the default here) keeps
property tests deterministic and bounded, HYPOTHESIS_PROFILE=dev is a quick local loop, and
HYPOTHESIS_PROFILE=thorough searches ten times as long (a nightly run, or before a release).

A test that starts a real store or browser is marked `system`, so that `-m "not system"` runs without them.
"""

import os

import pytest
from hypothesis import HealthCheck, settings
from store_fixtures import provided

from conformance.stores import Azurite, Samba

_QUIET = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=100, derandomize=True, **_QUIET)
settings.register_profile("dev", max_examples=20, **_QUIET)
settings.register_profile("thorough", max_examples=1000, **_QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SYSTEM_FIXTURES = {"azurite", "samba", "browser"}
"""Fixtures that start a real server or browser (tests/conftest.py, tests/conformance/test_report_browser.py)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SYSTEM_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.system)


@pytest.fixture(scope="session")
def azurite():
    """A real Azurite blob service for the whole session (tests use containers of their own)."""
    with provided(Azurite()) as store:
        yield store


@pytest.fixture(scope="session")
def samba():
    """A real Samba share for the whole session (tests use folders of their own)."""
    with provided(Samba()) as store:
        yield store
