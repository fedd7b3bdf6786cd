"""Where the suite has a target deliver a report it orders into a store, and how it reads back what arrived.

A store is reached as the target description's `[storage.<type>]` table says, or, for blob and smb without one, is
started by the suite (Azurite, Samba), unless one runs already for many runs (conformance/stores/shared.py). Each
order gets a fresh place (a folder) of its own; the order's connectionString is the table's `order_connection_string`
template filled with the place, eris' own form by default. The contract leaves the name of the artifact open, so
every file that appears in the place is a candidate.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

import pytest

from conformance.generation.made_up import made_up_hex
from conformance.stores.azurite import Azurite
from conformance.stores.process import StoreUnavailable
from conformance.stores.record import record_unavailable, recorded_reads
from conformance.stores.samba import Samba
from conformance.stores.shared import running_stores

__all__ = ["ORDER_FORMS", "STORES_OF_RUN", "Place", "PlaceSource", "StoreSettingsError", "Stores"]

ORDER_FORMS = {
    "blob": "{connection_string}Container={container};Folder={folder}",
    "smb": "smb://{username}:{password}@{host}:{port}/{share}/{folder}",
    "local": "{folder}",
}
"""eris' own connectionString of each type (reports/blob_delivery.py, smb_delivery.py, delivery.py)."""


class StoreSettingsError(ValueError):
    """A [storage.<type>] table of the target description cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Place:
    """A fresh folder of a store: what the order names (`connection_string`), what a person reads (`where`), and
    the files now in it (`files()`: name -> bytes)."""

    connection_string: str
    where: str
    files: Callable[[], dict[str, bytes]]


class PlaceSource(Protocol):
    """What the suite asks of the stores of a run: `Stores`, or those of a plugin of the run (STORES_OF_RUN)."""

    def prepare(self, storage_types: list[str]) -> None: ...

    def place(self, storage_type: str) -> Place: ...

    def close(self) -> None: ...


STORES_OF_RUN = pytest.StashKey[PlaceSource]()
"""Where a plugin of the run puts the stores the suite uses instead of its own: `eris verify` answers from what the
certified run read (conformance/verification/replayed_stores.py), as it answers HTTP from traffic.har."""


class Stores:
    """The stores of one certification run: each provided on first use (connected to, or started), or ahead of it by
    `prepare()`; all closed by `close()`."""

    def __init__(self, settings: dict[str, dict[str, Any]], host: str = "127.0.0.1") -> None:
        # a store that is running already (conformance.stores.shared) is used where one would be started
        running = running_stores()
        self._settings = {name: {**running.get(name, {}), **settings.get(name, {})} for name in {*running, *settings}}
        self._host = host
        self._open: dict[str, Any] = {}
        self._pending: dict[str, Future[Any]] = {}
        self._started: list[Any] = []
        self._pool: ThreadPoolExecutor | None = None

    def prepare(self, storage_types: list[str]) -> None:
        """Start providing these stores now, each in a thread of its own, so that a store server's start (Azurite
        takes half a second) passes while other tests run; `place()` waits for it, and raises what opening it
        raised."""
        wanted = [name for name in storage_types if name in _OPENERS and name not in {*self._open, *self._pending}]
        if not wanted:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=len(_OPENERS), thread_name_prefix="eris-stores")
        for name in wanted:
            self._pending[name] = self._pool.submit(_OPENERS[name], self, self._settings.get(name, {}))

    def place(self, storage_type: str) -> Place:
        """A fresh place in the store of `storage_type`; StoreUnavailable when the suite cannot provide the store,
        StoreSettingsError when its table is wrong."""
        try:
            if storage_type in self._pending:  # what opening it raised is raised here, and the next call tries again
                self._open[storage_type] = self._pending.pop(storage_type).result()
            if storage_type not in self._open:
                self._open[storage_type] = _OPENERS[storage_type](self, self._settings.get(storage_type, {}))
            folder = f"eris-{made_up_hex(12)}"
            place = self._open[storage_type].place(folder)
        except (StoreUnavailable, StoreSettingsError) as error:
            record_unavailable(storage_type, str(error))  # a re-check then finds the store missing as the run did
            raise
        files = recorded_reads(storage_type, folder, place.where, place.connection_string, place.files)
        return Place(place.connection_string, place.where, files)

    def start(self, store: Any) -> Any:
        self._started.append(store)
        return store.start()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)  # a store still starting is closed below with the others
            self._pool = None
        prepared = [future.result() for future in self._pending.values() if future.exception() is None]
        self._pending.clear()
        for opened in [*self._open.values(), *prepared]:
            with contextlib.suppress(Exception):
                opened.close()
        for store in self._started:
            store.close()
        self._open.clear()
        self._started.clear()


def _order_form(settings: dict[str, Any], storage_type: str) -> str:
    form = settings.get("order_connection_string", ORDER_FORMS[storage_type])
    if not isinstance(form, str) or "{folder}" not in form:
        raise StoreSettingsError(
            f"[storage.{storage_type}] order_connection_string must be a string holding {{folder}}, not {form!r}"
        )
    return form


def _fill(form: str, storage_type: str, values: dict[str, Any]) -> str:
    try:
        return form.format(**values)
    except (KeyError, IndexError, ValueError) as error:
        known = ", ".join("{" + name + "}" for name in values)
        raise StoreSettingsError(
            f"[storage.{storage_type}] order_connection_string: {error} is not one of {known}"
        ) from None


def _setting(settings: dict[str, Any], storage_type: str, name: str) -> str:
    value = settings.get(name)
    if not isinstance(value, str) or not value:
        raise StoreSettingsError(f"[storage.{storage_type}] needs {name} (a string)")
    return value


# -- blob ---------------------------------------------------------------------------------------------------------


class _BlobStore:
    def __init__(self, stores: Stores, settings: dict[str, Any]) -> None:
        from azure.storage.blob import BlobServiceClient

        self._form = _order_form(settings, "blob")
        if "connection_string" in settings:
            self._connection = _setting(settings, "blob", "connection_string")
            self._container = _setting(settings, "blob", "container")
        else:
            azurite = stores.start(Azurite(host=stores._host))
            self._connection, self._container = azurite.connection_string, "eris-certification"
        service = BlobServiceClient.from_connection_string(self._connection)
        self._client = service.get_container_client(self._container)
        with contextlib.suppress(Exception):  # it may exist, or the suite's credential may not create containers
            self._client.create_container()
        self._where = f"blob {service.url.rstrip('/')}/{self._container}"

    def place(self, folder: str) -> Place:
        values = {"connection_string": _with_separator(self._connection), "container": self._container}
        connection_string = _fill(self._form, "blob", {**values, "folder": folder})

        def files() -> dict[str, bytes]:
            return {
                blob.name: self._client.download_blob(blob.name).readall()
                for blob in self._client.list_blobs(name_starts_with=f"{folder}/")
            }

        return Place(connection_string, f"{self._where}/{folder}/", files)

    def close(self) -> None:
        self._client.close()


def _with_separator(connection_string: str) -> str:
    return connection_string if connection_string.endswith(";") else connection_string + ";"


# -- smb ----------------------------------------------------------------------------------------------------------


class _SmbStore:
    def __init__(self, stores: Stores, settings: dict[str, Any]) -> None:
        import smbclient

        self._form = _order_form(settings, "smb")
        if "host" in settings:
            self._host = _setting(settings, "smb", "host")
            self._port = int(settings.get("port", 445))
            self._share = _setting(settings, "smb", "share")
            self._username = _setting(settings, "smb", "username")
            self._password = _setting(settings, "smb", "password")
            self._domain = str(settings.get("domain", ""))
        else:
            samba = stores.start(Samba(host=stores._host))
            self._host, self._port, self._share = samba.host, samba.port, samba.share
            self._username, self._password, self._domain = samba.username, samba.password, ""
        self._cache: dict[str, Any] = {}
        account = f"{self._domain}\\{self._username}" if self._domain else self._username
        try:
            smbclient.register_session(
                self._host,
                username=account,
                password=self._password,
                port=self._port,
                connection_timeout=10,
                connection_cache=self._cache,
            )
        except Exception as error:
            raise StoreUnavailable(f"the suite cannot open the share at {self._host}:{self._port}: {error}") from None

    def _unc(self, *names: str) -> str:
        return "\\".join([f"\\\\{self._host}", self._share, *names])

    def place(self, folder: str) -> Place:
        import smbclient

        reach = {"port": self._port, "connection_cache": self._cache}
        values = {
            "host": self._host,
            "port": self._port,
            "share": self._share,
            "domain": quote(self._domain, safe=""),
            "username": quote(self._username, safe=""),
            "password": quote(self._password, safe=""),
            "folder": folder,
        }
        connection_string = _fill(self._form, "smb", values)

        def files() -> dict[str, bytes]:
            try:
                names = smbclient.listdir(self._unc(folder), **reach)
            except OSError:
                return {}  # the folder is not there yet: the target makes it
            found = {}
            for name in names:
                with smbclient.open_file(self._unc(folder, name), "rb", **reach) as file:
                    found[name] = file.read()
            return found

        return Place(connection_string, f"smb://{self._host}:{self._port}/{self._share}/{folder}/", files)

    def close(self) -> None:
        import smbclient

        smbclient.reset_connection_cache(connection_cache=self._cache)


# -- local --------------------------------------------------------------------------------------------------------


class _LocalStore:
    def __init__(self, stores: Stores, settings: dict[str, Any]) -> None:
        self._form = _order_form(settings, "local")
        self._root = Path(_setting(settings, "local", "path"))  # where the suite reads the target's local deliveries
        if not self._root.is_dir():
            raise StoreUnavailable(f"[storage.local] path {self._root} is not a folder the suite can read")

    def place(self, folder: str) -> Place:
        connection_string = _fill(self._form, "local", {"folder": folder})
        base = self._root / folder

        def files() -> dict[str, bytes]:
            if not base.is_dir():
                return {}
            return {
                str(path.relative_to(base)): path.read_bytes()
                for path in sorted(base.rglob("*"))
                if path.is_file() and os.access(path, os.R_OK)
            }

        return Place(connection_string, f"local {base}/", files)

    def close(self) -> None:
        return None


_OPENERS: dict[str, Callable[[Stores, dict[str, Any]], Any]] = {
    "blob": _BlobStore,
    "smb": _SmbStore,
    "local": _LocalStore,
}
