"""The integrator's side of the blob and smb storage types: list the folder an order named and download a file of it,
with the same connectionString the order carried (eris' form: reports/blob_delivery.py, reports/smb_delivery.py).
It must also allow reading: a container SAS with read and list permission, a share user who may read the folder.
Downloads are streamed to a file (constant memory)."""

from __future__ import annotations

import contextlib
import errno
import shutil
from pathlib import Path
from typing import Any, Protocol

from reports.blob_delivery import BlobLocation, parse_blob_location
from reports.delivery_base import StorageRefused
from reports.smb_delivery import SmbLocation, parse_smb_location

__all__ = ["FETCHED_TYPES", "StoreReader", "store_reader"]

FETCHED_TYPES = ("blob", "smb")
_CHUNK = 1 << 20


class StoreReader(Protocol):
    where: str

    def names(self) -> list[str]:
        """The files now in the order's folder (names relative to it); OSError when the store cannot be read."""

    def download(self, name: str, path: Path) -> int:
        """Copy the file `name` to `path`; the number of bytes."""

    def close(self) -> None: ...


def store_reader(storage_type: str, connection_string: str) -> StoreReader:
    """A reader of the folder a connectionString names; StorageRefused when it is not eris' form of the type."""
    if storage_type == "blob":
        return _BlobReader(parse_blob_location(connection_string))
    if storage_type == "smb":
        return _SmbReader(parse_smb_location(connection_string))
    raise StorageRefused(f"eris fetches reports from {', '.join(FETCHED_TYPES)} stores, not {storage_type!r}")


class _BlobReader:
    def __init__(self, location: BlobLocation) -> None:
        from azure.storage.blob import ContainerClient

        self._prefix = f"{location.folder}/" if location.folder.parts else ""
        if location.container_url is not None:
            self._client = ContainerClient.from_container_url(location.container_url)
        else:
            assert location.connection_string is not None
            self._client = ContainerClient.from_connection_string(location.connection_string, location.container)
        self.where = f"blob {location.endpoint}/{location.container}/{self._prefix}"

    def names(self) -> list[str]:
        from azure.core.exceptions import AzureError

        try:
            listed = self._client.list_blobs(name_starts_with=self._prefix or None)
            return [blob.name.removeprefix(self._prefix) for blob in listed]
        except AzureError as error:
            reason = getattr(error, "error_code", None) or type(error).__name__
            raise OSError(f"cannot list {self.where}: {reason}") from None

    def download(self, name: str, path: Path) -> int:
        with path.open("wb") as file:
            return int(self._client.download_blob(self._prefix + name).readinto(file))

    def close(self) -> None:
        self._client.close()


class _SmbReader:
    def __init__(self, location: SmbLocation) -> None:
        self._location = location
        self._cache: dict[str, Any] = {}
        self._reach = {"port": location.port, "connection_cache": self._cache}
        self._registered = False
        self.where = location.describe() + "/"

    def _session(self) -> None:
        import smbclient

        if not self._registered:
            try:
                smbclient.register_session(
                    self._location.host,
                    username=self._location.account,
                    password=self._location.password,
                    port=self._location.port,
                    connection_timeout=10,
                    connection_cache=self._cache,
                )
            except Exception as error:  # smbprotocol's connection and logon errors
                raise OSError(f"cannot open {self.where}: {type(error).__name__}") from None
            self._registered = True

    def names(self) -> list[str]:
        import smbclient

        self._session()
        try:
            return list(smbclient.listdir(self._location.unc(self._location.host), **self._reach))
        except OSError as error:
            if error.errno == errno.ENOENT:  # smbclient's SMBOSError is no FileNotFoundError
                return []  # the service makes the folder with the first delivery
            raise

    def download(self, name: str, path: Path) -> int:
        import smbclient

        self._session()
        remote = self._location.unc(self._location.host, name)
        with smbclient.open_file(remote, "rb", **self._reach) as source, path.open("wb") as target:
            shutil.copyfileobj(source, target, _CHUNK)
            return target.tell()

    def close(self) -> None:
        import smbclient

        with contextlib.suppress(Exception):
            smbclient.reset_connection_cache(connection_cache=self._cache)
