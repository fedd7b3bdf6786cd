"""Store servers started once and used by many certification runs of one machine (the self-test): a run that would
start Azurite or Samba for itself (conformance.stores.places) uses the servers that ERIS_RUNNING_STORES names.
Each order still gets a fresh folder of its own, so runs at the same time never read each other's deliveries.
Starting the two servers costs a run about a second of CPU here."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

from conformance.stores.azurite import Azurite, azurite_executable
from conformance.stores.process import StoreUnavailable
from conformance.stores.samba import Samba, smbd_executable

__all__ = ["RUNNING_VARIABLE", "running_stores", "shared_stores"]

RUNNING_VARIABLE = "ERIS_RUNNING_STORES"
"""The environment variable naming running stores as JSON: {storage type: its [storage.<type>] table}."""
CONTAINER = "eris-certification"


def running_stores() -> dict[str, dict[str, Any]]:
    """The tables of the running stores that ERIS_RUNNING_STORES names; none when it names nothing usable."""
    try:
        named = json.loads(os.environ.get(RUNNING_VARIABLE) or "{}")
    except ValueError:
        return {}
    if not isinstance(named, dict):
        return {}
    return {name: table for name, table in named.items() if isinstance(table, dict)}


@contextlib.contextmanager
def shared_stores(host: str = "127.0.0.1") -> Iterator[dict[str, str]]:
    """Azurite and Samba started (those installed here and able to start) until the block ends; yields the
    environment that makes a run use them: {RUNNING_VARIABLE: ...}, or {} when none started."""
    with contextlib.ExitStack() as stack:
        tables: dict[str, dict[str, Any]] = {}
        if azurite_executable():
            with contextlib.suppress(StoreUnavailable):
                azurite = stack.enter_context(Azurite(host=host))
                tables["blob"] = {"connection_string": azurite.connection_string, "container": CONTAINER}
        if smbd_executable():
            with contextlib.suppress(StoreUnavailable):
                samba = stack.enter_context(Samba(host=host))
                tables["smb"] = {
                    "host": samba.host,
                    "port": samba.port,
                    "share": samba.share,
                    "username": samba.username,
                    "password": samba.password,
                }
        yield {RUNNING_VARIABLE: json.dumps(tables)} if tables else {}
