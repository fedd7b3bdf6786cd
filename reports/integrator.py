"""The integrator's whole round in one call: a fresh key pair, the order, the delivery (on a local receiver for
http, fetched from the store for blob and smb), the decryption with tag check, and a look into the report file."""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from profiles.limits import LIMITS
from reports.client import place_order
from reports.compression import gunzip_chunks
from reports.crypto import decrypt_artifact, open_session_key
from reports.keys import KEY_BITS, generate_key_pair, public_key_pem
from reports.receiver import Receiver
from reports.store_fetch import StoreReader, store_reader

__all__ = [
    "ReceiverDelivery",
    "ReportOutcome",
    "StoreDelivery",
    "describe_report_file",
    "obtain_report",
    "utc_now_text",
]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ReportOutcome:
    execution_id: str
    path: Path
    rows: int
    columns: list[str]
    artifact_bytes: int
    waited_seconds: float


def utc_now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ReceiverDelivery:
    """http storage: the artifact is POSTed to a local receiver (started by the caller)."""

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver
        self._name = uuid.uuid4().hex

    @property
    def storage(self) -> dict[str, str]:
        return {"type": "http", "connectionString": self.receiver.delivery_url(self._name)}

    @property
    def where(self) -> str:
        return self.receiver.delivery_url(self._name)

    def wait(self, execution_id: str, timeout: float, progress: Progress) -> Path:
        started = time.monotonic()
        while True:
            left = timeout - (time.monotonic() - started)
            try:
                return self.receiver.wait_for_delivery(self._name, timeout=max(0.0, min(5.0, left))).path
            except TimeoutError:
                if left <= 5.0:
                    raise TimeoutError(
                        f"no delivery at {self.where} within {timeout:g} s "
                        "(is the receiver reachable from the service? see --public-url)"
                    ) from None
                progress(f"still waiting for the delivery ({time.monotonic() - started:.0f} s of {timeout:g} s)")


@dataclass
class StoreDelivery:
    """blob or smb storage: the service writes the artifact into the folder the connectionString names; it is
    fetched from there into `workdir` (a temporary folder by default). The contract does not name the file: the one
    named with the executionId (eris' naming) is taken, else the first file that appeared after the order."""

    storage_type: str
    connection_string: str
    poll_seconds: float = 1.0
    workdir: Path | None = None
    _reader: StoreReader | None = field(default=None, init=False, repr=False)
    _before: set[str] = field(default_factory=set, init=False, repr=False)

    @property
    def storage(self) -> dict[str, str]:
        return {"type": self.storage_type, "connectionString": self.connection_string}

    @property
    def where(self) -> str:
        return self._open().where

    def _open(self) -> StoreReader:
        if self._reader is None:
            self._reader = store_reader(self.storage_type, self.connection_string)
        return self._reader

    def before_order(self) -> None:
        """Note what the folder holds before the order, so that an older file is never taken for the artifact."""
        self._before = set(self._open().names())

    def wait(self, execution_id: str, timeout: float, progress: Progress) -> Path:
        reader = self._open()
        started = time.monotonic()
        reported = started
        while True:
            names = [name for name in reader.names() if name not in self._before]
            chosen = next((name for name in names if execution_id in name), None) or next(iter(sorted(names)), None)
            if chosen is not None:
                folder = self.workdir or Path(tempfile.mkdtemp(prefix="eris-report-"))
                path = folder / Path(chosen).name
                reader.download(chosen, path)
                return path
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"nothing was written into {reader.where} within {timeout:g} s")
            if time.monotonic() - reported >= 5.0:
                reported = time.monotonic()
                progress(f"still waiting for the artifact ({reported - started:.0f} s of {timeout:g} s)")
            time.sleep(self.poll_seconds)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()


def obtain_report(
    *,
    base_url: str,
    token: str | None,
    order: dict[str, Any],
    delivery: ReceiverDelivery | StoreDelivery,
    output: Path,
    timeout: float,
    progress: Progress = lambda message: None,
) -> ReportOutcome:
    """Order the report described by `order` (without publicKeyPem and storage, which this fills in), wait for its
    delivery, decrypt it into `output` and read it back."""
    progress(f"generating a fresh RSA-{KEY_BITS} key pair for this order")
    private_key = generate_key_pair()
    if isinstance(delivery, StoreDelivery):
        delivery.before_order()
    full_order = {**order, "publicKeyPem": public_key_pem(private_key), "storage": delivery.storage}
    progress(f"ordering {order.get('reportId')} from {base_url}")
    accepted = place_order(base_url, token, full_order)
    session = open_session_key(private_key, accepted.sealed_session_key)
    progress(f"accepted: executionId {accepted.execution_id}; waiting for the delivery at {delivery.where}")
    started = time.monotonic()
    artifact = delivery.wait(accepted.execution_id, timeout, progress)
    waited = time.monotonic() - started
    size = artifact.stat().st_size
    progress(f"received {size:,} bytes after {waited:.1f} s; decrypting and checking the GCM tag")
    compressed = order.get("compression", LIMITS.compression_default)
    decrypt_artifact(artifact, session, output, transform=gunzip_chunks if compressed else None)
    rows, columns = describe_report_file(output, order["format"])
    return ReportOutcome(accepted.execution_id, output, rows, columns, size, waited)


def describe_report_file(path: Path, format_: str) -> tuple[int, list[str]]:
    """Rows and column names of a decrypted report; ValueError when it is not a readable report."""
    try:
        if format_ == "parquet":
            metadata = pq.read_metadata(path)
            return metadata.num_rows, metadata.schema.to_arrow_schema().names
        rows = 0
        with pa_csv.open_csv(path) as reader:
            columns = reader.schema.names
            for batch in reader:
                rows += batch.num_rows
        return rows, columns
    except Exception as error:  # pyarrow's ArrowInvalid and friends
        raise ValueError(f"{path} is not a readable {format_} file: {error}") from None
