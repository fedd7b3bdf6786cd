"""The report keys of a re-check: each test takes the private keys the recorded run's test took, in the order its
orders named them, so that the orders match the recording and the recorded deliveries open with them."""

from __future__ import annotations

import threading
from collections import deque

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.generation.key_pairs import KeyPairs
from conformance.generation.made_up import running_test
from conformance.harness.key_fixtures import KEY_PAIRS

__all__ = ["ReplayedKeyPairs", "ReplayedKeysPlugin"]


class ReplayedKeyPairs(KeyPairs):
    """`take()` the running test's next recorded key, else the first recorded key no test has taken, else a new
    one (its order then finds no recorded answer, and the re-check says so)."""

    def __init__(self, by_test: dict[str, list[bytes]], in_order: list[bytes]) -> None:
        super().__init__()
        self._by_test = {test: deque(pems) for test, pems in by_test.items()}
        self._left = list(in_order)
        self._taking = threading.Lock()

    def start(self) -> None:
        """Nothing to make ahead: the keys are recorded."""

    def take(self) -> rsa.RSAPrivateKey:
        with self._taking:
            own = self._by_test.get(running_test(), deque())
            pem = None
            while own and pem is None:
                candidate = own.popleft()
                pem = candidate if candidate in self._left else None
            if pem is None and self._left:
                pem = self._left[0]
            if pem is not None:
                self._left.remove(pem)
                key = serialization.load_pem_private_key(pem, None, unsafe_skip_rsa_key_validation=True)
                if isinstance(key, rsa.RSAPrivateKey):
                    return key
        return super().take()


class ReplayedKeysPlugin:
    """A pytest plugin of the re-check's run: its key pairs are the recorded ones."""

    def __init__(self, keys: ReplayedKeyPairs) -> None:
        self.keys = keys

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[KEY_PAIRS] = self.keys
