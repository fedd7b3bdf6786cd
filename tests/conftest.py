"""pytest set-up of the project's own tests (not of the conformance suite, which runs without hypothesis).

Hypothesis profiles: "ci" (the default here) keeps property tests deterministic and bounded;
choose another with HYPOTHESIS_PROFILE=dev for a quick local loop.
"""

import os

import pytest
from hypothesis import HealthCheck, settings
from store_fixtures import provided

from conformance.stores import Azurite, Samba

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
