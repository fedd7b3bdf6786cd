"""Delivery targets of report artifacts: where `storage` of an order says the artifact goes.

The contract names four `storage.type` codes and leaves the content of `connectionString` open.
eris reads them so:

- `http`: connectionString is an absolute `http://` or `https://` URL. Delivery is one POST of the
  artifact with `Content-Type: application/octet-stream` and the header `X-Eris-Execution-Id`;
  any 2xx answer confirms receipt.
- `local`: connectionString is a folder relative to the service's delivery root, `/`-separated
  (`""` is the root itself). The artifact is written atomically into that folder as
  `<executionId>.<format>[.gz].enc`.
- `blob`, `smb`: accepted codes, not delivered to yet: an order naming them is refused with 501.

A `local` folder that leads outside the root (an absolute path, `..`, a symbolic link pointing
out) is refused when the order is placed; the artifact is written through directory descriptors that follow
no link at all, so a link planted later (at a folder, the temporary file or the final name) leads nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol
from urllib.parse import urlsplit

import aiohttp

__all__ = [
    "EXECUTION_ID_HEADER",
    "DeliveryFailed",
    "DeliveryTarget",
    "HttpTarget",
    "LocalTarget",
    "StorageNotSupported",
    "StorageRefused",
    "delivery_target",
]

EXECUTION_ID_HEADER = "X-Eris-Execution-Id"
OCTET_STREAM = "application/octet-stream"
NOT_YET_DELIVERED = ("blob", "smb")


class StorageRefused(ValueError):
    """The order's storage cannot be used: its connectionString is malformed or leads outside the root."""


class StorageNotSupported(StorageRefused):
    """A storage type of the contract that this service does not deliver to (yet)."""


class DeliveryFailed(Exception):
    """One delivery attempt failed. `retryable`: worth trying again later (the receiver may recover)."""

    def __init__(self, reason: str, *, retryable: bool = True) -> None:
        super().__init__(reason)
        self.retryable = retryable


class DeliveryTarget(Protocol):
    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        """Deliver the artifact file, or raise DeliveryFailed."""


@dataclass(frozen=True)
class HttpTarget:
    url: str
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    """Seconds of silence from the receiver after which an attempt fails (not a limit on the whole upload)."""

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout, sock_read=self.read_timeout)
        headers = {"Content-Type": OCTET_STREAM, EXECUTION_ID_HEADER: execution_id}
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session:
                with artifact.open("rb") as body:  # streamed by aiohttp in chunks, never read whole
                    async with session.post(self.url, data=body, headers=headers, allow_redirects=False) as answer:
                        if 200 <= answer.status < 300:
                            return
                        excerpt = (await answer.content.read(200)).decode("utf-8", "replace").strip()
        except TimeoutError:
            raise DeliveryFailed(f"{self.url} did not answer within {self.read_timeout:g} s") from None
        except aiohttp.ClientError as error:
            raise DeliveryFailed(f"{self.url}: {type(error).__name__}: {error}") from None
        raise DeliveryFailed(f"{self.url} answered {answer.status}" + (f": {excerpt}" if excerpt else ""))


@dataclass(frozen=True)
class LocalTarget:
    root: Path
    folder: PurePosixPath

    def destination(self) -> Path:
        """The folder inside the root, resolved (symbolic links followed); StorageRefused if outside."""
        root = self.root.resolve()
        place = (root / self.folder).resolve()
        if not place.is_relative_to(root):
            raise StorageRefused(f"local folder {str(self.folder)!r} leads outside the delivery root")
        return place

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        try:
            await asyncio.to_thread(_write_below, self.root, self.folder, file_name, artifact)
        except OSError as error:
            lasting = error.errno in _LASTING_ERRORS  # no later attempt can do better
            on_the_way = error.errno in (errno.ELOOP, errno.ENOTDIR)  # O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR
            reason = "a file or symbolic link where a folder should be" if on_the_way else error.strerror or str(error)
            where = f"{file_name} into {str(self.folder)!r} of the delivery root"
            raise DeliveryFailed(f"cannot write {where}: {reason}", retryable=not lasting) from None


_LASTING_ERRORS = {errno.ELOOP, errno.ENOTDIR, errno.ENAMETOOLONG, errno.EISDIR, errno.EINVAL}
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _write_below(root: Path, folder: PurePosixPath, file_name: str, artifact: Path) -> None:
    """Write the artifact as `file_name` into `folder` of `root`, through directory descriptors: every folder is
    opened without following a link (a link planted there fails with ELOOP), the temporary file is created new
    (O_EXCL, O_NOFOLLOW) under a name no one can know in advance, and renamed over the final name (a link planted
    at the final name is replaced, not followed). Nothing is ever written outside the root."""
    root.mkdir(parents=True, exist_ok=True)
    current = os.open(root, os.O_RDONLY | os.O_DIRECTORY)  # the root itself is the operator's choice
    try:
        for part in folder.parts:
            if part in ("", "."):
                continue
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=current)
            inner = os.open(part, _DIRECTORY, dir_fd=current)
            os.close(current)
            current = inner
        partial = f".{file_name}.{secrets.token_hex(8)}.part"
        written = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=current)
        try:
            with os.fdopen(written, "wb") as target, artifact.open("rb") as source:
                shutil.copyfileobj(source, target, _COPY_CHUNK)
            os.replace(partial, file_name, src_dir_fd=current, dst_dir_fd=current)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=current)
            raise
    finally:
        os.close(current)


_COPY_CHUNK = 1 << 20


def delivery_target(storage_type: str, connection_string: str, *, local_root: Path | None) -> DeliveryTarget:
    """The target an order's `storage` names; StorageRefused (StorageNotSupported) with a reason if none."""
    if storage_type == "http":
        parts = urlsplit(connection_string)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise StorageRefused(
                f"storage.connectionString of type http must be an absolute http(s) URL, not {connection_string!r}"
            )
        return HttpTarget(connection_string)
    if storage_type == "local":
        if local_root is None:
            raise StorageRefused("this service has no local delivery root (eris serve --local-root DIR)")
        target = LocalTarget(local_root, _relative_folder(connection_string))
        target.destination()  # refuses a folder that a symbolic link leads outside
        return target
    if storage_type in NOT_YET_DELIVERED:
        raise StorageNotSupported(
            f"storage type {storage_type} is a code of the contract, but this service does not deliver to it yet; "
            "use http or local"
        )
    raise StorageRefused(f"storage.type must be one of blob, http, local, smb, not {storage_type!r}")


def _relative_folder(connection_string: str) -> PurePosixPath:
    if "\x00" in connection_string or "\\" in connection_string:
        raise StorageRefused("storage.connectionString of type local is a /-separated folder without \\ or NUL")
    folder = PurePosixPath(connection_string or ".")
    if folder.is_absolute() or (folder.parts and ":" in folder.parts[0]):
        raise StorageRefused(
            "storage.connectionString of type local is a folder relative to the delivery root, "
            f"not {connection_string!r}"
        )
    if ".." in folder.parts:
        raise StorageRefused(f"storage.connectionString {connection_string!r} leads outside the delivery root (..)")
    return folder
