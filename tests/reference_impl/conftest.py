"""The seeded `server` of the read tests here, one a module (a module defining its own `server` uses that instead),
and the keys the tests of tokens and of report orders share (made once: a 4096-bit RSA key takes a second)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from serve_fixtures import RunningServer, running

from reference_impl.tokens import ApplicationKeys


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    """One seeded server for the module's read-only tests; a test that writes uses a server of its own."""
    with running() as running_server:
        yield running_server


@pytest.fixture(scope="session")
def integrator_key() -> rsa.RSAPrivateKey:
    """The integrator's key of report orders: its public half goes with an order, its private half opens what is
    delivered."""
    return rsa.generate_private_key(public_exponent=65537, key_size=4096)


@pytest.fixture(scope="session")
def keys() -> ApplicationKeys:
    """The signing keys of the token tests."""
    return ApplicationKeys.generate()


@pytest.fixture(scope="session")
def other_keys() -> ApplicationKeys:
    """Keys of another issuer: what they sign is not the server's."""
    return ApplicationKeys.generate()
