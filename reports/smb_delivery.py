"""Delivery of report artifacts to an SMB share (Windows file servers, Samba), with smbprotocol.

The contract leaves the content of `connectionString` open; eris reads an `smb` one as a URL:
`smb://[<domain>;]<user>:<password>@<host>[:<port>]/<share>[/<folder>...]`, with `%`-escapes for characters of the
user or password that a URL reserves (`@ : / ; %`). The port defaults to 445.

The artifact is copied in chunks of 1 MiB (constant memory) to `.<file_name>.<random>.part` in the folder, then
renamed over `<file_name>` in one step (`smbclient.replace`): a reader sees no file, or the whole one. The name holds
the executionId, so a delivery made again replaces the file with the same bytes. Sessions require signing. The
host's addresses go through the service's HttpPolicy as for http, and the connection is made to the address that
was checked. The password never appears in a message or a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from reports.address_policy import AddressRefused, HttpPolicy, allowed_addresses, literal_refusal
from reports.delivery_base import DeliveryFailed, StorageRefused

__all__ = ["SMB_PORT", "SmbLocation", "SmbTarget", "parse_smb_location"]

SMB_PORT = 445
_COPY_CHUNK = 1 << 20
_FORBIDDEN = re.compile(r'[\\:*?"<>|\x00-\x1f]')


@dataclass(frozen=True)
class SmbLocation:
    host: str
    port: int
    share: str
    folder: PurePosixPath
    username: str
    password: str
    domain: str = ""

    @property
    def account(self) -> str:
        """The user name as smbprotocol takes it (`DOMAIN\\user` when a domain is given)."""
        return f"{self.domain}\\{self.username}" if self.domain else self.username

    def unc(self, server: str, *names: str) -> str:
        """`\\\\server\\share\\folder\\...\\name`."""
        return "\\".join([f"\\\\{server}", self.share, *self.folder.parts, *names])

    def __repr__(self) -> str:  # never the password
        return f"SmbLocation(smb://{self.username}@{self.host}:{self.port}/{self.share}/{self.folder})"

    def describe(self, file_name: str = "") -> str:
        return f"smb://{self.host}:{self.port}/{self.share}/" + "/".join([*self.folder.parts, file_name]).strip("/")


def parse_smb_location(connection_string: str) -> SmbLocation:
    """The share and folder an `smb` connectionString names; StorageRefused saying what is wrong (never echoing the
    password)."""
    form = "smb://[domain;]user:password@host[:port]/share[/folder]"
    parts = urlsplit(connection_string.strip())
    if parts.scheme.lower() != "smb" or not parts.hostname:
        raise StorageRefused(f"storage.connectionString of type smb must be a URL of the form {form}")
    try:
        port = parts.port or SMB_PORT
    except ValueError:
        raise StorageRefused("storage.connectionString of type smb: the port is not a number of 1 to 65535") from None
    if parts.username is None or parts.password is None:
        raise StorageRefused(f"storage.connectionString of type smb must carry user:password@ ({form})")
    domain, _, username = unquote(parts.username).rpartition(";")
    segments = [unquote(segment) for segment in parts.path.split("/") if segment]
    if not segments:
        raise StorageRefused(f"storage.connectionString of type smb names no share ({form})")
    for segment in segments:
        if segment in (".", "..") or _FORBIDDEN.search(segment) or len(segment.encode("utf-16-le")) > 510:
            raise StorageRefused(f"smb path segment {segment[:70]!r} is not a file or folder name a share accepts")
    if parts.query or parts.fragment:
        raise StorageRefused("storage.connectionString of type smb takes no ?query or #fragment")
    return SmbLocation(
        parts.hostname, port, segments[0], PurePosixPath(*segments[1:]), username, unquote(parts.password), domain
    )


@dataclass(frozen=True)
class SmbTarget:
    location: SmbLocation
    policy: HttpPolicy = field(default_factory=HttpPolicy)
    connect_timeout: float = 10.0

    def check(self) -> None:
        """StorageRefused when the host is an address the policy refuses (known without resolving)."""
        if refused := literal_refusal(f"smb://{self.location.host}:{self.location.port}", self.policy):
            raise StorageRefused(f"storage.connectionString of type smb: {refused}")

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        where = self.location.describe(file_name)
        try:
            await asyncio.to_thread(self._write, artifact, file_name)
        except AddressRefused as error:
            raise DeliveryFailed(f"{where}: {error}", retryable=False) from None
        except Exception as error:  # smbprotocol raises ValueError, OSError and its own SMBException kinds
            raise DeliveryFailed(f"{where}: {_reason(error, self.location.password)}") from None

    def _write(self, artifact: Path, file_name: str) -> None:
        import smbclient

        location = self.location
        address = allowed_addresses(location.host, location.port, self.policy)[0]
        cache: dict[str, object] = {}
        reach = {"port": location.port, "connection_cache": cache}
        try:
            smbclient.register_session(
                address,
                username=location.account,
                password=location.password,
                port=location.port,
                connection_timeout=self.connect_timeout,
                connection_cache=cache,
                require_signing=True,
            )
            if location.folder.parts:
                smbclient.makedirs(location.unc(address), exist_ok=True, **reach)
            partial = location.unc(address, f".{file_name}.{secrets.token_hex(8)}.part")
            try:
                with smbclient.open_file(partial, "wb", **reach) as target, artifact.open("rb") as source:
                    shutil.copyfileobj(source, target, _COPY_CHUNK)
                smbclient.replace(partial, location.unc(address, file_name), **reach)
            except BaseException:
                with contextlib.suppress(Exception):
                    smbclient.remove(partial, **reach)
                raise
        finally:
            with contextlib.suppress(Exception):
                smbclient.reset_connection_cache(connection_cache=cache)


def _reason(error: Exception, password: str) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    if password:
        text = text.replace(password, "***")
    return f"{type(error).__name__}: {text}"[:300]
