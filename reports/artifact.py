"""The service side in one call: generate a report, compress it if asked, encrypt it, into a file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reports.compression import GzipWriter
from reports.crypto import ArtifactEncryptor, SessionKey
from reports.generate import ReportData, ReportRequest, write_report

__all__ = ["ArtifactFigures", "build_artifact"]


@dataclass(frozen=True)
class ArtifactFigures:
    rows: int
    report_bytes: int
    """Bytes of the report file (parquet or csv) before compression."""
    artifact_bytes: int
    """Bytes of the artifact: ciphertext plus the 16-byte tag."""


class _Counting:
    """Counts what passes into the next stream (the size of the report before compression)."""

    def __init__(self, inner: GzipWriter | ArtifactEncryptor) -> None:
        self.inner = inner
        self.count = 0
        self.closed = False

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self.count += memoryview(data).nbytes
        return self.inner.write(data)

    def flush(self) -> None:
        pass


def build_artifact(
    path: Path,
    request: ReportRequest,
    data: ReportData,
    session: SessionKey,
    *,
    compression: bool,
) -> ArtifactFigures:
    """Write the encrypted artifact of `request` to `path`, which appears complete or not at all."""
    partial = path.with_name(path.name + ".part")
    try:
        with partial.open("wb") as destination:
            encryptor = ArtifactEncryptor(destination, session)
            gzip = GzipWriter(encryptor) if compression else None
            counting = _Counting(gzip or encryptor)
            rows = write_report(request, data, counting)
            (gzip or encryptor).close()  # the gzip writer closes the encryptor, which writes the tag
            destination.flush()
            os.fsync(destination.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return ArtifactFigures(rows, counting.count, encryptor.artifact_bytes)
