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
- `blob`, `smb`: accepted codes, not delivered to yet: an order naming them is refused with 501.

A `local` folder that leads outside the root (an absolute path, `..`, a symbolic link pointing
out) is refused when the order is placed; the artifact is written through directory descriptors that follow
no link at all, so a link planted later (at a folder, the temporary file or the final name) leads nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import os
import secrets
import shutil
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Protocol
from urllib.parse import urlsplit

import aiohttp
import yarl
from aiohttp.abc import AbstractResolver
from aiohttp.resolver import ThreadedResolver

__all__ = [
    "DEFAULT_DENIED",
    "EXECUTION_ID_HEADER",
    "AddressRefused",
    "DeliveryFailed",
    "DeliveryTarget",
    "HttpPolicy",
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


DEFAULT_DENIED = (
    "169.254.0.0/16",  # IPv4 link-local, the cloud metadata address 169.254.169.254 among them
    "fe80::/10",  # IPv6 link-local
    "fd00:ec2::254/128",  # AWS metadata over IPv6
    "100.100.100.200/32",  # Alibaba Cloud metadata
    "0.0.0.0/8",
    "::/128",
)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """CIDR blocks (or single addresses); ValueError naming one that is not."""
    found = []
    for spec in specs:
        try:
            found.append(ipaddress.ip_network(spec, strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or CIDR block: {spec!r}") from None
    return tuple(found)


@dataclass(frozen=True)
class HttpPolicy:
    """Where `http` deliveries may go: no address of `denied`; only addresses of `allowed` when it is not empty;
    never `own` (the service's own listening address and port: an order must not make it call its own API)."""

    denied: tuple[Network, ...] = networks(DEFAULT_DENIED)
    allowed: tuple[Network, ...] = ()
    own: frozenset[tuple[str, int]] = frozenset()

    def refusal(self, address: str, port: int) -> str | None:
        """Why `address`:`port` is refused, or None."""
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if any(ip in block for block in self.denied):
            return f"{address} is an address deliveries never go to (link-local, metadata or unspecified)"
        if self.allowed and not any(ip in block for block in self.allowed):
            return f"{address} is outside the addresses deliveries may go to"
        if (str(ip), port) in self.own or (ip.is_loopback and ("loopback", port) in self.own):
            return f"{address}:{port} is this service's own address"
        return None


class AddressRefused(OSError):
    """Every address of a delivery's host is refused by the HttpPolicy."""


class _PolicyResolver(AbstractResolver):
    """The system resolver, keeping only the addresses the policy allows (checked at each resolution)."""

    def __init__(self, policy: HttpPolicy) -> None:
        self._policy = policy
        self._resolver: ThreadedResolver | None = None  # made on the loop that resolves

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> Any:
        self._resolver = self._resolver or ThreadedResolver()
        found = await self._resolver.resolve(host, port, family)
        kept = [entry for entry in found if self._policy.refusal(entry["host"], port) is None]
        if not kept:
            reasons = {self._policy.refusal(entry["host"], port) for entry in found}
            raise AddressRefused(f"{host} resolves only to refused addresses: {'; '.join(sorted(map(str, reasons)))}")
        return kept

    async def close(self) -> None:
        if self._resolver is not None:
            await self._resolver.close()


@dataclass(frozen=True)
class HttpTarget:
    url: str
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    """Seconds of silence from the receiver after which an attempt fails (not a limit on the whole upload)."""
    policy: HttpPolicy = HttpPolicy()

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout, sock_read=self.read_timeout)
        headers = {"Content-Type": OCTET_STREAM, EXECUTION_ID_HEADER: execution_id}
        if refused := _literal_refusal(self.url, self.policy):
            raise DeliveryFailed(refused, retryable=False)
        connector = aiohttp.TCPConnector(resolver=_PolicyResolver(self.policy))
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
            refused = isinstance(error.os_error, AddressRefused)
            raise DeliveryFailed(f"{self.url}: {error.os_error or error}", retryable=not refused) from None
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
    """The target an order's `storage` names; StorageRefused (StorageNotSupported) with a reason if none."""
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
        if refused := _literal_refusal(connection_string, policy):
            raise StorageRefused(f"storage.connectionString: {refused}")
        return HttpTarget(connection_string, policy=policy)
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


def _has_host_and_port(parts: Any) -> bool:
    """A host, and a port that is a number of 0 to 65535 when one is given."""
    try:
        parts.port  # noqa: B018 - reading it raises ValueError for a port that is not a number or out of range
    except ValueError:
        return False
    return bool(parts.hostname)


def _literal_refusal(url: str, policy: HttpPolicy) -> str | None:
    """The policy's refusal of a URL whose host is an IP address (or localhost), known without resolving."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = "127.0.0.1" if parts.hostname == "localhost" else parts.hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: its addresses are checked when it is resolved
    return policy.refusal(host, port)


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
