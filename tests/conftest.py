"""pytest set-up of the project's own tests (not of the conformance suite, which runs without hypothesis).

Hypothesis budgets live in the profiles of tests/budgets.py, loaded here: HYPOTHESIS_PROFILE=ci (the default),
dev or thorough.

A test that starts a real store or browser is marked `system`, so that `-m "not system"` runs without them.

The certifications the tests run take their report keys from one stock made once (conformance/generation/key_pairs.py).
"""

import budgets  # noqa: F401  (registers and loads the Hypothesis profiles)
import pytest
from store_fixtures import provided

from conformance.generation.key_pairs import use_stock
from conformance.stores import Azurite, Samba

SYSTEM_FIXTURES = {"azurite", "samba", "browser"}
"""Fixtures that start a real server or browser (tests/conftest.py, tests/conformance/test_report_browser.py)."""


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # pytest-xdist's workers and the tests' processes inherit it
        use_stock()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SYSTEM_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.system)
    # the tests of seconds first: across pytest-xdist workers (--dist worksteal) the quick ones then fill the gaps,
    # and no worker is left with a long test at the end while the others are done
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
