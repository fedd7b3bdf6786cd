"""Real storage servers for the tests: Azurite and Samba on free loopback ports, stopped by process id.

Where a server is not installed the test is skipped saying so, unless ERIS_REQUIRE_STORES=1 (set by .ci/run): then
it fails, so that CI never passes by skipping a store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import pytest

from conformance.stores import Azurite, Samba, StoreUnavailable

Store = TypeVar("Store", Azurite, Samba)
REQUIRED = os.environ.get("ERIS_REQUIRE_STORES") == "1"


@contextmanager
def provided(store: Store) -> Iterator[Store]:
    """The store started, and closed after; skipped (or failed where stores are required) when it cannot start."""
    try:
        store.start()
    except StoreUnavailable as missing:
        store.close()
        if REQUIRED:
            pytest.fail(f"ERIS_REQUIRE_STORES=1 but {missing}")
        pytest.skip(f"a real store is needed and missing: {missing}")
    try:
        yield store
    finally:
        store.close()
