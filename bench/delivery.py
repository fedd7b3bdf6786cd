"""Delivery of one 1,000,000-row report artifact to each storage type, against the raw client upload of the same bytes.

    python bench/delivery.py [--rows 1000000] [--format csv] [--repeat 5]

The artifact is built once (product-level-cost-calculation, encrypted as the service does). Then, for each storage
type, two ways of putting those bytes in place are timed, each run in a fresh child process (so that its peak
resident memory is its own):

- eris: the delivery target of the reference implementation (reports/delivery.py), `await target.deliver(...)`;
- raw: what an integrator's own code would write with the same client library:
  http   aiohttp `session.post(data=<open file>)` to the same receiver;
  local  `shutil.copyfile` into the folder;
  blob   azure-storage-blob `BlobClient.upload_blob(<open file>, overwrite=True)` (the SDK's defaults: parallel
         blocks above 64 MiB, one Put Blob below);
  smb    smbprotocol `smbclient.open_file(..., "wb")` and `shutil.copyfileobj` (no temporary name, no rename).

The stores are real: the suite's HTTP receiver in this process, a folder on this disk, Azurite and Samba started on
free loopback ports. Each run writes a new name. Median of `--repeat` runs; the ratio is raw seconds / eris seconds
(1.0: as fast as the raw upload; the target is at least 0.8 for blob and smb). Peak memory is the child's whole
process after the libraries are imported (its VmHWM reset then through /proc/self/clear_refs), and in brackets
what the upload added to the resident size it started from; for eris and raw alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machine import checkout_state, load_average  # noqa: E402

COMPANY = "7251801126"
COST_ELEMENTS = 8
TARGET_RATIO = 0.80
TYPES = ("http", "local", "blob", "smb")


# -- the child: one upload, its time and its peak memory -------------------------------------------------------


def _child(way: str, storage_type: str, artifact: Path, destination: str) -> dict[str, float]:
    import aiohttp  # noqa: F401 - every library is imported before the clock starts, for both ways
    import azure.storage.blob  # noqa: F401
    import smbclient  # noqa: F401

    from reports.delivery import delivery_target

    name = f"{uuid.uuid4().hex}.enc"
    Path("/proc/self/clear_refs").write_text("5")  # resets the peak (VmHWM) to the present size: imports excluded
    idle_kib = _status_kib("VmRSS")
    started = time.perf_counter()
    if way == "eris":
        if storage_type == "local":  # the folder as a connectionString relative to its parent, the delivery root
            target = delivery_target("local", Path(destination).name, local_root=Path(destination).parent)
        else:
            target = delivery_target(storage_type, destination, local_root=None)
        asyncio.run(target.deliver(artifact, execution_id=name, file_name=name))
    else:
        _RAW[storage_type](artifact, destination, name)
    seconds = time.perf_counter() - started
    peak_kib = _status_kib("VmHWM")
    return {"seconds": seconds, "peak_kib": peak_kib, "added_kib": peak_kib - idle_kib}


def _status_kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.MULTILINE).group(1))


def _raw_http(artifact: Path, url: str, name: str) -> None:
    import aiohttp

    async def post() -> None:
        async with aiohttp.ClientSession() as session:
            with artifact.open("rb") as body:
                async with session.post(url, data=body) as answer:
                    answer.raise_for_status()

    asyncio.run(post())


def _raw_local(artifact: Path, folder: str, name: str) -> None:
    shutil.copyfile(artifact, Path(folder) / name)


def _raw_blob(artifact: Path, connection_string: str, name: str) -> None:
    from azure.storage.blob import BlobClient

    from reports.blob_delivery import parse_blob_location

    location = parse_blob_location(connection_string)
    assert location.connection_string is not None
    blob = BlobClient.from_connection_string(location.connection_string, location.container, location.blob_name(name))
    with artifact.open("rb") as data:
        blob.upload_blob(data, overwrite=True)


def _raw_smb(artifact: Path, url: str, name: str) -> None:
    import smbclient

    from reports.smb_delivery import parse_smb_location

    location = parse_smb_location(url)
    cache: dict[str, object] = {}
    reach = {"port": location.port, "connection_cache": cache}
    smbclient.register_session(
        location.host,
        username=location.username,
        password=location.password,
        connection_cache=cache,
        port=location.port,
    )
    smbclient.makedirs(location.unc(location.host), exist_ok=True, **reach)
    with smbclient.open_file(location.unc(location.host, name), "wb", **reach) as target, artifact.open("rb") as source:
        shutil.copyfileobj(source, target, 1 << 20)
    smbclient.reset_connection_cache(connection_cache=cache)


_RAW = {"http": _raw_http, "local": _raw_local, "blob": _raw_blob, "smb": _raw_smb}


# -- the parent ------------------------------------------------------------------------------------------------


def _build_artifact(folder: Path, rows: int, format_: str) -> Path:
    from reports.artifact import build_artifact
    from reports.crypto import SessionKey
    from reports.generate import ReportData, ReportRequest

    artifact = folder / "report.enc"
    data = ReportData(COMPANY, "Bench", (), rows // COST_ELEMENTS)
    request = ReportRequest("product-level-cost-calculation", format_, 2024, 10)
    build_artifact(artifact, request, data, SessionKey.generate(), compression=False)
    return artifact


def _run_child(way: str, storage_type: str, artifact: Path, destination: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", way, storage_type, str(artifact), destination],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{way} {storage_type} failed: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _peak(runs: list[dict[str, float]]) -> str:
    """The largest peak of the runs, and how much of it the upload added over the process with its imports."""
    worst = max(runs, key=lambda run: run["peak_kib"])
    return f"{worst['peak_kib'] / 1024:.0f} (+{max(run['added_kib'] for run in runs) / 1024:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", choices=("csv", "parquet"), default="csv")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--types", nargs="*", default=list(TYPES), choices=TYPES)
    parser.add_argument("--child", nargs=4, metavar=("WAY", "TYPE", "ARTIFACT", "DESTINATION"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        way, storage_type, artifact, destination = args.child
        print(json.dumps(_child(way, storage_type, Path(artifact), destination)))
        return

    from conformance.stores import Azurite, Samba
    from reports.receiver import Receiver

    print(f"machine: load {load_average()}; commit {checkout_state(['reports'], 'the report code')}")
    with tempfile.TemporaryDirectory(prefix="eris-bench-delivery-") as temporary:
        folder = Path(temporary)
        started = time.perf_counter()
        artifact = _build_artifact(folder, args.rows, args.format)
        size = artifact.stat().st_size
        print(
            f"artifact: {args.rows:,}-row {args.format} report, {size / 2**20:.1f} MiB, "
            f"built in {time.perf_counter() - started:.1f} s; {args.repeat} runs of each, median"
        )
        (folder / "local").mkdir()
        with Receiver(folder / "received") as receiver, Azurite() as azurite, Samba() as samba:
            from azure.storage.blob import BlobServiceClient

            BlobServiceClient.from_connection_string(azurite.connection_string).create_container("bench")
            destinations = {
                "http": lambda: receiver.delivery_url(uuid.uuid4().hex),
                "local": lambda: str(folder / "local"),
                "blob": lambda: f"{azurite.connection_string}Container=bench;Folder=runs",
                "smb": lambda: samba.url("runs"),
            }
            print()
            print("| storage | eris s | raw s | raw/eris | MiB/s | eris peak MiB (+upload) | raw peak MiB (+upload) |")
            print("|---|---|---|---|---|---|---|")
            for storage_type in args.types:
                figures: dict[str, list[dict[str, float]]] = {"eris": [], "raw": []}
                for _ in range(args.repeat):
                    for way in ("eris", "raw"):  # interleaved: load changes hit both alike
                        figures[way].append(_run_child(way, storage_type, artifact, destinations[storage_type]()))
                eris_s = statistics.median(run["seconds"] for run in figures["eris"])
                raw_s = statistics.median(run["seconds"] for run in figures["raw"])
                eris_peak, raw_peak = (_peak(figures[way]) for way in ("eris", "raw"))
                mark = "" if storage_type in ("http", "local") or raw_s / eris_s >= TARGET_RATIO else " (below 0.8)"
                print(
                    f"| {storage_type} | {eris_s:.3f} | {raw_s:.3f} | {raw_s / eris_s:.2f}{mark} | "
                    f"{size / 2**20 / eris_s:.0f} | {eris_peak} | {raw_peak} |"
                )


if __name__ == "__main__":
    main()
