"""Delivery of report artifacts to Azure Blob Storage (and Azurite), with azure-storage-blob.

The contract leaves the content of `connectionString` open; eris reads a `blob` one in either form:

- an Azure Storage connection string (with `AccountKey` or `SharedAccessSignature`, and `BlobEndpoint` or the
  account name) plus two keys of eris: `Container=<name>` (required) and `Folder=<path>` (optional, `/`-separated);
- a container SAS URL, `https://<account>.blob.core.windows.net/<container>?<sas>` (for Azurite
  `http://127.0.0.1:<port>/<account>/<container>?<sas>`): the container is the last segment of the path.

The artifact is uploaded as blocks of a few MiB read one at a time from the spool (constant memory), and becomes
visible only when the block list is committed: a reader never sees part of it. Its name is `<Folder>/<file_name>`,
which holds the executionId, so a delivery made again replaces the blob with the same bytes: one blob per order.
The SDK's own retries are off: the report worker retries with its backoff, like every target. The endpoint's
addresses go through the service's HttpPolicy, as for http. Credentials never appear in a message or a log.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import aiohttp

from reports.address_policy import HttpPolicy, PolicyResolver, literal_refusal
from reports.delivery_base import DeliveryFailed, StorageRefused

if TYPE_CHECKING:
    from azure.storage.blob.aio import ContainerClient

__all__ = ["BLOCK_BYTES", "BlobLocation", "BlobTarget", "parse_blob_location"]

BLOCK_BYTES = 4 << 20
"""Bytes of one staged block: large enough for few round trips, small enough to keep memory flat."""
BLOCKS_IN_FLIGHT = 4
_CONTAINER = re.compile(r"[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_CREDENTIAL_KEYS = ("ACCOUNTKEY", "SHAREDACCESSSIGNATURE")
_ERIS_KEYS = ("CONTAINER", "FOLDER")

logging.getLogger("azure").setLevel(logging.WARNING)  # its INFO lines echo every request's URL and headers


@dataclass(frozen=True)
class BlobLocation:
    """Where a blob delivery goes: how to reach the account (an SDK connection string, or a container SAS URL),
    the container, the folder inside it, and the endpoint URL (for the address policy and for messages)."""

    connection_string: str | None
    container_url: str | None
    container: str
    folder: PurePosixPath
    endpoint: str

    def blob_name(self, file_name: str) -> str:
        return str(self.folder / file_name) if self.folder.parts else file_name

    def container_client(self, **options: Any) -> ContainerClient:
        """A client of the container; `options` go to the SDK's client as they are (transport, timeouts)."""
        from azure.storage.blob.aio import ContainerClient

        if self.container_url is not None:
            return ContainerClient.from_container_url(self.container_url, **options)
        assert self.connection_string is not None
        return ContainerClient.from_connection_string(self.connection_string, self.container, **options)

    def __repr__(self) -> str:  # never the credentials
        return f"BlobLocation({self.endpoint}/{self.container}/{self.folder})"


def parse_blob_location(connection_string: str) -> BlobLocation:
    """The location a `blob` connectionString names; StorageRefused saying what is wrong (never echoing it)."""
    text = connection_string.strip()
    if text.lower().startswith(("http://", "https://")):
        return _from_container_url(text)
    return _from_connection_string(text)


def _from_container_url(url: str) -> BlobLocation:
    parts = urlsplit(url)
    segments = [segment for segment in parts.path.split("/") if segment]
    if not parts.hostname or not segments:
        raise StorageRefused("storage.connectionString of type blob: a container URL must name a host and a container")
    if "sig" not in dict(parse_qsl(parts.query)):
        raise StorageRefused(
            "storage.connectionString of type blob: the container URL carries no shared access signature (sig=)"
        )
    if parts.username is not None or parts.password is not None:
        raise StorageRefused("storage.connectionString of type blob must not carry user:password@ in the URL")
    container = _container(segments[-1])
    endpoint = f"{parts.scheme}://{parts.netloc}/{'/'.join(segments[:-1])}".rstrip("/")
    return BlobLocation(None, url, container, PurePosixPath(), endpoint)


def _from_connection_string(text: str) -> BlobLocation:
    pairs = [item.split("=", 1) for item in text.rstrip(";").split(";") if item.strip()]
    if not pairs or any(len(pair) != 2 or not pair[0].strip() for pair in pairs):
        raise StorageRefused(
            "storage.connectionString of type blob is neither a container SAS URL nor a connection string of "
            "Key=Value pairs separated by ;"
        )
    settings = {key.strip().upper(): value.strip() for key, value in pairs}
    if not any(settings.get(key) for key in _CREDENTIAL_KEYS):
        raise StorageRefused(
            "storage.connectionString of type blob carries no credential (AccountKey or SharedAccessSignature)"
        )
    if "ACCOUNTKEY" in settings and not _BASE64.fullmatch(settings["ACCOUNTKEY"]):
        raise StorageRefused("storage.connectionString of type blob: AccountKey is not base64")
    if "CONTAINER" not in settings:
        raise StorageRefused("storage.connectionString of type blob lacks Container=<name> (eris' key for it)")
    endpoint = settings.get("BLOBENDPOINT") or _account_endpoint(settings)
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise StorageRefused("storage.connectionString of type blob: BlobEndpoint is not an absolute http(s) URL")
    sdk_string = ";".join(f"{key}={value}" for key, value in pairs if key.strip().upper() not in _ERIS_KEYS)
    return BlobLocation(
        sdk_string, None, _container(settings["CONTAINER"]), _folder(settings.get("FOLDER", "")), endpoint.rstrip("/")
    )


def _account_endpoint(settings: dict[str, str]) -> str:
    account = settings.get("ACCOUNTNAME")
    if not account:
        raise StorageRefused("storage.connectionString of type blob names neither BlobEndpoint nor AccountName")
    protocol = settings.get("DEFAULTENDPOINTSPROTOCOL", "https")
    return f"{protocol}://{account}.blob.{settings.get('ENDPOINTSUFFIX', 'core.windows.net')}"


def _container(name: str) -> str:
    if not _CONTAINER.fullmatch(name):
        raise StorageRefused(
            f"blob container name {name[:70]!r} is not valid: 3 to 63 lowercase letters, digits and single hyphens"
        )
    return name


def _folder(text: str) -> PurePosixPath:
    folder = PurePosixPath(text.strip("/"))
    if "\\" in text or "\x00" in text or ".." in folder.parts or len(text.encode()) > 900:
        raise StorageRefused(f"blob Folder {text[:70]!r} must be a /-separated path without .., \\ or NUL")
    return folder if text.strip("/") else PurePosixPath()


@dataclass(frozen=True)
class BlobTarget:
    location: BlobLocation
    policy: HttpPolicy = field(default_factory=HttpPolicy)
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    block_bytes: int = BLOCK_BYTES

    def check(self) -> None:
        """StorageRefused when the endpoint is an address the policy refuses (known without resolving)."""
        if refused := literal_refusal(self.location.endpoint, self.policy):
            raise StorageRefused(f"storage.connectionString of type blob: {refused}")

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        from azure.core.exceptions import AzureError, ClientAuthenticationError, HttpResponseError
        from azure.core.pipeline.transport import AioHttpTransport

        where = f"blob {self.location.endpoint}/{self.location.container}/{self.location.blob_name(file_name)}"
        if refused := literal_refusal(self.location.endpoint, self.policy):
            raise DeliveryFailed(f"{where}: {refused}", retryable=False)
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=PolicyResolver(self.policy)))
        transport = AioHttpTransport(session=session, session_owner=False)
        try:
            async with self.location.container_client(
                transport=transport,
                retry_total=0,
                connection_timeout=self.connect_timeout,
                read_timeout=self.read_timeout,
            ) as container:
                blob = container.get_blob_client(self.location.blob_name(file_name))
                await _upload_blocks(blob, artifact, self.block_bytes)
        except ClientAuthenticationError as error:
            raise DeliveryFailed(f"{where}: the store refused the credentials ({_reason(error)})") from None
        except HttpResponseError as error:
            raise DeliveryFailed(f"{where}: the store answered {error.status_code} ({_reason(error)})") from None
        except AzureError as error:
            raise DeliveryFailed(f"{where}: {type(error).__name__}: {_reason(error)}") from None
        except (aiohttp.ClientError, OSError) as error:
            raise DeliveryFailed(f"{where}: {type(error).__name__}: {error}") from None
        finally:
            await session.close()


async def _upload_blocks(blob, artifact: Path, block_bytes: int) -> None:
    """Stage the artifact block by block (at most BLOCKS_IN_FLIGHT in memory), then commit the list: the blob
    appears whole or not at all."""
    from azure.storage.blob import BlobBlock

    block_ids: list[str] = []
    in_flight: set[asyncio.Future[object]] = set()
    try:
        with artifact.open("rb") as source:
            while chunk := await asyncio.to_thread(source.read, block_bytes):
                block_id = f"{len(block_ids):08d}"
                block_ids.append(block_id)
                in_flight.add(asyncio.ensure_future(blob.stage_block(block_id, chunk, length=len(chunk))))
                if len(in_flight) >= BLOCKS_IN_FLIGHT:
                    done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        task.result()
        for task in asyncio.as_completed(in_flight):
            await task
    finally:
        for task in in_flight:
            task.cancel()
    await blob.commit_block_list([BlobBlock(block_id=block_id) for block_id in block_ids])


def _reason(error: Exception) -> str:
    """The store's error code or the first line of the message, without any URL (a SAS URL carries its signature)."""
    code = getattr(error, "error_code", None)
    if code:
        return str(code)
    first = str(getattr(error, "message", None) or error).splitlines()[0] if str(error) else type(error).__name__
    return re.sub(r"https?://\S+", "<url>", first)[:200]
