"""Delivery targets of report artifacts: where `storage` of an order says the artifact goes.

The contract names four `storage.type` codes and leaves the content of `connectionString` open.
eris reads them so:

- `http`: connectionString is an absolute `http://` or `https://` URL without credentials. Delivery is
  one POST of the artifact with `Content-Type: application/octet-stream` and the header
  `X-Eris-Execution-Id`; any 2xx answer confirms receipt. Where it may go is an `HttpPolicy`: by
  default never a link-local or cloud metadata address, nor the service's own address and port; an
  allow-list narrows it further. An IP address is checked when the order is placed, a host name's
  addresses each time they are resolved (so a name re-pointed later is caught too).
- `local`: connectionString is a folder relative to the service's delivery root, `/`-separated
  (`""` is the root itself). The artifact is written atomically into that folder as
  `<executionId>.<format>[.gz].enc`.
- `blob`: an Azure Storage connection string with eris' `Container=` (and `Folder=`) keys, or a container SAS URL
  (reports/blob_delivery.py); the blob appears when its block list is committed.
- `smb`: `smb://[domain;]user:password@host[:port]/share[/folder]` (reports/smb_delivery.py); a `.part` file renamed
  over the final name.

Every target names the artifact `<executionId>.<format>[.gz].enc`, so a delivery made again replaces it: one
artifact per order. The network targets (http, blob, smb) go only where the service's HttpPolicy lets them.

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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import yarl

from reports.address_policy import (
    DEFAULT_DENIED,
    AddressRefused,
    HttpPolicy,
    PolicyResolver,
    literal_refusal,
    networks,
)
from reports.blob_delivery import BlobTarget, parse_blob_location
from reports.delivery_base import DeliveryFailed, DeliveryTarget, StorageRefused
from reports.smb_delivery import SmbTarget, parse_smb_location

__all__ = [
    "DEFAULT_DENIED",
    "EXECUTION_ID_HEADER",
    "STORAGE_TYPES",
    "AddressRefused",
    "BlobTarget",
    "DeliveryFailed",
    "DeliveryTarget",
    "HttpPolicy",
    "HttpTarget",
    "LocalTarget",
    "SmbTarget",
    "StorageRefused",
    "delivery_target",
    "networks",
]

EXECUTION_ID_HEADER = "X-Eris-Execution-Id"
OCTET_STREAM = "application/octet-stream"
STORAGE_TYPES = ("blob", "http", "local", "smb")
"""The storage.type codes of the contract; eris delivers to each."""


@dataclass(frozen=True)
class HttpTarget:
    url: str
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    """Seconds of silence from the receiver after which an attempt fails (not a limit on the whole upload)."""
    policy: HttpPolicy = field(default_factory=HttpPolicy)

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout, sock_read=self.read_timeout)
        headers = {"Content-Type": OCTET_STREAM, EXECUTION_ID_HEADER: execution_id}
        if refused := literal_refusal(self.url, self.policy):
            raise DeliveryFailed(refused, retryable=False)
        connector = aiohttp.TCPConnector(resolver=PolicyResolver(self.policy))
        try:
            async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
                with artifact.open("rb") as body:  # streamed by aiohttp in chunks, never read whole
                    async with session.post(self.url, data=body, headers=headers, allow_redirects=False) as answer:
                        if 200 <= answer.status < 300:
                            return
                        excerpt = (await answer.content.read(200)).decode("utf-8", "replace").strip()
        except TimeoutError:
            raise DeliveryFailed(f"{self.url} did not answer within {self.read_timeout:g} s") from None
        except aiohttp.ClientConnectorError as error:
            by_policy = isinstance(error.os_error, AddressRefused)
            raise DeliveryFailed(f"{self.url}: {error.os_error or error}", retryable=not by_policy) from None
        except aiohttp.InvalidURL as error:  # no attempt can mend the URL
            raise DeliveryFailed(f"{self.url}: {type(error).__name__}: {error}", retryable=False) from None
        except aiohttp.ClientError as error:
            raise DeliveryFailed(f"{self.url}: {type(error).__name__}: {error}") from None
        raise DeliveryFailed(f"{self.url} answered {answer.status}" + (f": {excerpt}" if excerpt else ""))


@dataclass(frozen=True)
class LocalTarget:
    root: Path
    folder: PurePosixPath

    def destination(self) -> Path:
        """The folder inside the root, resolved (symbolic links followed); StorageRefused if outside, or if it can
        never be written (a name too long, a file where a folder must be): known when the order is placed."""
        too_long = [part for part in self.folder.parts if len(part.encode("utf-8")) > _MAX_NAME_BYTES]
        if too_long:
            raise StorageRefused(f"local folder name {too_long[0][:40]!r}... is longer than {_MAX_NAME_BYTES} bytes")
        root = self.root.resolve()
        place = (root / self.folder).resolve()
        if not place.is_relative_to(root):
            raise StorageRefused(f"local folder {str(self.folder)!r} leads outside the delivery root")
        for folder in [place, *place.parents]:
            if folder.exists() and not folder.is_dir():
                raise StorageRefused(f"local folder {str(self.folder)!r}: {folder.name!r} is a file, not a folder")
            if folder == root:
                break
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
_MAX_NAME_BYTES = 255


def delivery_target(
    storage_type: str, connection_string: str, *, local_root: Path | None, http_policy: HttpPolicy | None = None
) -> DeliveryTarget:
    """The target an order's `storage` names; StorageRefused with a reason if none."""
    if storage_type == "http":
        policy = http_policy or HttpPolicy()
        parts = urlsplit(connection_string)
        if parts.scheme not in ("http", "https") or not _has_host_and_port(parts):
            raise StorageRefused(
                f"storage.connectionString of type http must be an absolute http(s) URL, not {connection_string!r}"
            )
        if parts.username is not None or parts.password is not None:
            raise StorageRefused("storage.connectionString of type http must not carry credentials (user:password@)")
        try:
            yarl.URL(connection_string)
        except ValueError as error:
            raise StorageRefused(f"storage.connectionString is not a URL the service can call: {error}") from None
        if refused := literal_refusal(connection_string, policy):
            raise StorageRefused(f"storage.connectionString: {refused}")
        return HttpTarget(connection_string, policy=policy)
    if storage_type == "local":
        if local_root is None:
            raise StorageRefused("this service has no local delivery root (eris serve --local-root DIR)")
        target = LocalTarget(local_root, _relative_folder(connection_string))
        target.destination()  # refuses a folder that a symbolic link leads outside
        return target
    if storage_type == "blob":
        blob = BlobTarget(parse_blob_location(connection_string), policy=http_policy or HttpPolicy())
        blob.check()
        return blob
    if storage_type == "smb":
        smb = SmbTarget(parse_smb_location(connection_string), policy=http_policy or HttpPolicy())
        smb.check()
        return smb
    raise StorageRefused(f"storage.type must be one of blob, http, local, smb, not {storage_type!r}")


def _has_host_and_port(parts: Any) -> bool:
    """A host, and a port that is a number of 0 to 65535 when one is given."""
    try:
        parts.port  # noqa: B018 - reading it raises ValueError for a port that is not a number or out of range
    except ValueError:
        return False
    return bool(parts.hostname)


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
