"""Report orders end to end: generation, encryption and delivery by `eris serve`, and the cost of
the encryption layer against raw streaming AES-256-GCM.

    python bench/reports.py [--sizes 100000,1000000] [--format parquet] [--repeat 5]

(1) For each size N: starts `eris serve` in its own process (in-memory database, no rate limit,
    a product catalogue of N/8 products so that the product-level report has N rows), starts the
    local HTTP receiver in this process, orders product-level-cost-calculation with runAt now,
    and times from the POST to the complete delivery on the receiver. The artifact is then
    decrypted and its row count checked (not timed). The server's peak resident memory (VmHWM of
    /proc/<pid>/status) is read after the delivery, and once before the order (idle).
(2) Encryption throughput, in this process: the 1,000,000-row report is generated once as CSV into
    memory, recording the size of every write pyarrow makes. Then the same bytes are encrypted
    (a) with `ArtifactEncryptor` fed in exactly those writes, and (b) raw: `cryptography`'s
    streaming AES-256-GCM encryptor with `update_into` on 1 MiB slices and one reused buffer.
    Both discard their output. Median of `--repeat` runs each; the ratio is (a) / (b).

Targets: (a) at least 80% of (b); peak memory at the largest size at most 1.5 times the smallest.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reports.client import place_order  # noqa: E402
from reports.crypto import ArtifactEncryptor, SessionKey, decrypt_artifact, open_session_key  # noqa: E402
from reports.generate import ReportData, ReportRequest, write_report  # noqa: E402
from reports.integrator import describe_report_file  # noqa: E402
from reports.keys import generate_key_pair, public_key_pem  # noqa: E402
from reports.receiver import Receiver  # noqa: E402

TARGET_ENCRYPTION_RATIO = 0.80
TARGET_MEMORY_RATIO = 1.5
COST_ELEMENTS = 8
COMPANY = "7251801126"


@dataclass
class DeliveryRun:
    rows: int
    seconds: float
    artifact_bytes: int
    idle_peak_kib: int
    peak_kib: int


def _peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))


def _start_server(folder: Path, products: int) -> tuple[subprocess.Popen[str], str, str]:
    config = folder / "target.toml"
    command = [
        sys.executable, "-m", "conformance.cli", "serve", "--port", "0", "--db", ":memory:",
        "--rate-limit", "0", "--keys", str(folder / "keys"), "--report-products", str(products),
        "--local-root", str(folder / "local"), "--write-config", str(config),
    ]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    banner = server.stdout.readline()
    found = re.search(r"listening on (http://\S+)", banner)
    if not found:
        server.kill()
        raise SystemExit(f"eris serve did not start: {banner!r}")
    token = re.search(r'^token = "([^"]+)"', config.read_text(), re.MULTILINE).group(1)
    return server, found.group(1), token


def delivery_run(rows: int, format_: str) -> DeliveryRun:
    with tempfile.TemporaryDirectory(prefix="eris-bench-reports-") as temporary:
        folder = Path(temporary)
        server, base_url, token = _start_server(folder, rows // COST_ELEMENTS)
        try:
            time.sleep(0.5)
            idle = _peak_kib(server.pid)
            key = generate_key_pair()
            with Receiver(folder / "received") as receiver:
                order = {
                    "reportId": "product-level-cost-calculation",
                    "format": format_,
                    "publicKeyPem": public_key_pem(key),
                    "runAt": "2020-01-01T00:00:00Z",
                    "storage": {"type": "http", "connectionString": receiver.delivery_url("bench")},
                    "parameters": {"CompanyTaxNo": COMPANY, "Year": "2024", "Month": "10"},
                }
                started = time.perf_counter()
                accepted = place_order(base_url, token, order)
                delivery = receiver.wait_for_delivery("bench", timeout=600)
                seconds = time.perf_counter() - started
                peak = _peak_kib(server.pid)
                out = folder / f"report.{format_}"
                decrypt_artifact(delivery.path, open_session_key(key, accepted.sealed_session_key), out)
                counted, _ = describe_report_file(out, format_)
                if counted != rows:
                    raise SystemExit(f"the delivered report has {counted} rows, not {rows}")
                return DeliveryRun(rows, seconds, delivery.size, idle, peak)
        finally:
            server.terminate()
            server.wait(30)


class _Recording:
    """Keeps the bytes and the size of every write."""

    closed = False

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.sizes: list[int] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:
        size = memoryview(data).nbytes
        self.buffer += data
        self.sizes.append(size)
        return size

    def flush(self) -> None:
        pass


class _Discard:
    def write(self, data: bytes) -> int:
        return len(data)


def report_bytes(rows: int) -> tuple[bytes, list[int]]:
    data = ReportData(COMPANY, "Bench", (), rows // COST_ELEMENTS)
    recording = _Recording()
    write_report(ReportRequest("product-level-cost-calculation", "csv", 2024, 10), data, recording)
    return bytes(recording.buffer), recording.sizes


def ours(plaintext: bytes, sizes: list[int]) -> float:
    view = memoryview(plaintext)
    encryptor = ArtifactEncryptor(_Discard(), SessionKey.generate())
    started = time.perf_counter()
    position = 0
    for size in sizes:
        encryptor.write(view[position : position + size])
        position += size
    encryptor.close()
    return time.perf_counter() - started


def raw(plaintext: bytes, chunk: int = 1 << 20) -> float:
    session = SessionKey.generate()
    view = memoryview(plaintext)
    out = bytearray(chunk + 15)
    sink = _Discard()
    started = time.perf_counter()
    encryptor = Cipher(algorithms.AES(session.key), modes.GCM(session.nonce)).encryptor()
    for start in range(0, len(view), chunk):
        written = encryptor.update_into(view[start : start + chunk], out)
        sink.write(memoryview(out)[:written])
    sink.write(encryptor.finalize() + encryptor.tag)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="report rows, comma-separated (multiples of 8)")
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each encryption (median)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load_average()}"
    )
    print(
        f"versions: pyarrow {version('pyarrow')}, cryptography {version('cryptography')}, aiohttp {version('aiohttp')}"
    )
    print(f"checkout: {checkout_state(['reports', 'reference_impl'], 'reports/ or reference_impl/')}")
    print()
    print(f"(1) product-level-cost-calculation as {args.format}, ordered from eris serve, delivered by HTTP POST")
    print(f"{'rows':>10} {'seconds':>8} {'rows/s':>10} {'artifact':>12} {'idle peak':>11} {'peak RSS':>10}")
    runs = []
    for rows in sizes:
        run = delivery_run(rows, args.format)
        runs.append(run)
        print(
            f"{run.rows:>10,} {run.seconds:>8.2f} {run.rows / run.seconds:>10,.0f} {run.artifact_bytes:>12,} "
            f"{run.idle_peak_kib / 1024:>9.1f} MiB {run.peak_kib / 1024:>6.1f} MiB"
        )
    memory_ratio = runs[-1].peak_kib / runs[0].peak_kib
    print(
        f"peak memory {runs[-1].rows:,} / {runs[0].rows:,} rows: {memory_ratio:.2f}x "
        f"(target at most {TARGET_MEMORY_RATIO}x: {'met' if memory_ratio <= TARGET_MEMORY_RATIO else 'MISSED'})"
    )

    print()
    plaintext, write_sizes = report_bytes(max(sizes))
    print(
        f"(2) encryption of the {max(sizes):,}-row report as CSV: {len(plaintext):,} bytes in {len(write_sizes):,} "
        f"writes (median {statistics.median(write_sizes):,.0f} bytes); median of {args.repeat}"
    )
    ours_seconds = statistics.median(ours(plaintext, write_sizes) for _ in range(args.repeat))
    raw_seconds = statistics.median(raw(plaintext) for _ in range(args.repeat))
    gib = len(plaintext) / 2**30
    ratio = raw_seconds / ours_seconds
    print(f"  ArtifactEncryptor (pyarrow's writes): {gib / ours_seconds:.2f} GiB/s")
    print(f"  raw AES-256-GCM update_into, 1 MiB:   {gib / raw_seconds:.2f} GiB/s")
    print(
        f"  ratio {ratio:.0%} (target at least {TARGET_ENCRYPTION_RATIO:.0%}: "
        f"{'met' if ratio >= TARGET_ENCRYPTION_RATIO else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
