"""The report keys of a run: `key_pairs` (fresh RSA-4096 key pairs, made ahead by a process of their own, a share of
a stock in each pytest-xdist worker) and `report_key` (one for one order), kept in the run's stash (`KEY_PAIRS`). A
plugin module registered by plugin.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from conformance.generation.key_pairs import KeyPairs, stocked_keys

if TYPE_CHECKING:  # imported where a key is made: a run that orders no report does not pay for it
    from cryptography.hazmat.primitives.asymmetric import rsa

__all__ = ["KEY_PAIRS", "key_pairs", "report_key"]


KEY_PAIRS = pytest.StashKey[KeyPairs]()


def _key_pairs(config: pytest.Config) -> KeyPairs:
    if KEY_PAIRS not in config.stash:
        # pytest-xdist workers are gw0, gw1, ...: each takes its own share of a stock
        worker = getattr(config, "workerinput", {"workerid": "gw0", "workercount": 1})
        parts = worker["workercount"]
        part = int(worker["workerid"].removeprefix("gw").partition("-")[0] or 0) % parts
        config.stash[KEY_PAIRS] = KeyPairs(stock=stocked_keys(part, parts))
    return config.stash[KEY_PAIRS]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # the first keys are made while the tests before the first order run; a pytest-xdist worker, which may run
    # none of the tests that order, starts its maker on its first key
    if hasattr(session.config, "workerinput"):
        return
    if any("key_pairs" in getattr(item, "fixturenames", ()) for item in session.items):
        _key_pairs(session.config).start()


def pytest_unconfigure(config: pytest.Config) -> None:
    if KEY_PAIRS in config.stash:
        config.stash[KEY_PAIRS].close()


@pytest.fixture(scope="session")
def key_pairs(pytestconfig: pytest.Config) -> KeyPairs:
    """Fresh RSA-4096 key pairs, one for each order (`take()`), made ahead by a process of their own."""
    return _key_pairs(pytestconfig)


@pytest.fixture
def report_key(key_pairs: KeyPairs) -> rsa.RSAPrivateKey:
    """A fresh RSA-4096 key pair: the contract asks for a new pair for each order."""
    return key_pairs.take()
