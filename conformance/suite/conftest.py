"""Fixtures every part of the suite shares (the target, its client and the receiver are the plugin's)."""

from __future__ import annotations

import pytest

from conformance.harness.plugin import Api
from conformance.suite.support.discovery import Discovery
from profiles import Contract
from profiles.validator import Validator


@pytest.fixture(scope="module")
def discovery(api: Api, contract: Contract, validator: Validator) -> Discovery:
    """The target's data, discovered through its reads, once a test module."""
    return Discovery(api, contract, validator)
