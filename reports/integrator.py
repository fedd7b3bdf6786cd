"""The integrator's whole round in one call: a fresh key pair, the order, the delivery on a local
receiver, the decryption with tag check, and a look into the report file."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
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

__all__ = ["ReportOutcome", "describe_report_file", "obtain_report", "utc_now_text"]


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


def obtain_report(
    *,
    base_url: str,
    token: str | None,
    order: dict[str, Any],
    receiver: Receiver,
    output: Path,
    timeout: float,
    progress: Callable[[str], None] = lambda message: None,
) -> ReportOutcome:
    """Order the report described by `order` (without publicKeyPem and storage, which this fills in),
    wait for its delivery on `receiver` (started), decrypt it into `output` and read it back."""
    progress(f"generating a fresh RSA-{KEY_BITS} key pair for this order")
    private_key = generate_key_pair()
    name = uuid.uuid4().hex
    full_order = {
        **order,
        "publicKeyPem": public_key_pem(private_key),
        "storage": {"type": "http", "connectionString": receiver.delivery_url(name)},
    }
    progress(f"ordering {order.get('reportId')} from {base_url}")
    accepted = place_order(base_url, token, full_order)
    session = open_session_key(private_key, accepted.sealed_session_key)
    progress(
        f"accepted: executionId {accepted.execution_id}; waiting for the delivery at {receiver.delivery_url(name)}"
    )
    started = time.monotonic()
    delivery = _wait_with_progress(receiver, name, timeout, progress)
    waited = time.monotonic() - started
    progress(f"received {delivery.size:,} bytes after {waited:.1f} s; decrypting and checking the GCM tag")
    compressed = order.get("compression", LIMITS.compression_default)
    decrypt_artifact(delivery.path, session, output, transform=gunzip_chunks if compressed else None)
    rows, columns = describe_report_file(output, order["format"])
    return ReportOutcome(accepted.execution_id, output, rows, columns, delivery.size, waited)


def _wait_with_progress(receiver: Receiver, name: str, timeout: float, progress: Callable[[str], None]) -> Any:
    started = time.monotonic()
    while True:
        left = timeout - (time.monotonic() - started)
        try:
            return receiver.wait_for_delivery(name, timeout=max(0.0, min(5.0, left)))
        except TimeoutError:
            if left <= 5.0:
                raise TimeoutError(
                    f"no delivery at {receiver.delivery_url(name)} within {timeout:g} s "
                    "(is the receiver reachable from the service? see --public-url)"
                ) from None
            progress(f"still waiting for the delivery ({time.monotonic() - started:.0f} s of {timeout:g} s)")


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
