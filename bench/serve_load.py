"""The load of bench/serve.py: a keep-alive HTTP/1.1 load generator over asyncio streams, the requests of its
workloads (each with a check of its answer) and the cross-check of a workload with wrk."""

from __future__ import annotations

import asyncio
import os
import random
import re
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from serve_processes import HOST, TRIVIAL_BODY

SAMPLE = 5_000
"""Random large-set parties whose identifiers workload (a) asks for."""


# -- the load generator ---------------------------------------------------------------------------


@dataclass
class Run:
    """What one timed run saw."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""
    elapsed: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float = 0.0

    def error(self, text: str) -> None:
        self.errors += 1
        if not self.first_error:
            self.first_error = text

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


# A request: its path, and a check of the answer's body returning an error text or "".
Request = tuple[bytes, Callable[[bytes], str]]


class Connection:
    """One keep-alive HTTP/1.1 connection over raw asyncio streams: a request, then its whole answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        self.writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\n\r\n")
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        headers = head.lower()
        match = re.search(rb"\r\ncontent-length: *(\d+)", headers)
        if match:
            body = await self.reader.readexactly(int(match.group(1)))
        elif b"transfer-encoding: chunked" in headers:
            body = await self._chunked()
        else:
            raise ValueError("an answer without Content-Length or chunked encoding")
        if b"\r\nconnection: close" in headers:
            self.close()
        return status, body

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await self.reader.readexactly(size + 2))  # the chunk and its CRLF
            if size == 0:  # the last chunk (no trailers)
                return b"".join(part[:-2] for part in parts)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (Linux /proc), 0.0 where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


async def _drive(port: int, next_request: Callable[[], Request], connections: int, seconds: float, run: Run) -> None:
    """`connections` workers, each sending one request at a time until `seconds` have passed."""
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        connection = Connection(port)
        try:
            while time.perf_counter() < deadline:
                path, check = next_request()
                started = time.perf_counter()
                try:
                    status, body = await connection.get(path)
                except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as failure:
                    run.error(f"{path.decode()}: {type(failure).__name__}: {failure}")
                    connection.close()
                    continue
                run.latencies.append(time.perf_counter() - started)
                problem = f"status {status}" if status != 200 else check(body)
                if problem:
                    run.error(f"{path.decode()}: {problem}: {body[:200]!r}")
        finally:
            connection.close()

    await asyncio.gather(*(worker() for _ in range(connections)))


def timed(
    port: int, server_pid: int, next_request: Callable[[], Request], connections: int, seconds: float, warmup: float
) -> Run:
    """An untimed warm-up, then one timed run."""
    asyncio.run(_drive(port, next_request, connections, warmup, Run()))
    run = Run()
    client, server = time.process_time(), _cpu_seconds(server_pid)
    started = time.perf_counter()
    asyncio.run(_drive(port, next_request, connections, seconds, run))
    run.elapsed = time.perf_counter() - started
    run.client_cpu = (time.process_time() - client) / run.elapsed
    run.server_cpu = (_cpu_seconds(server_pid) - server) / run.elapsed
    return run


# -- what the workloads ask for -------------------------------------------------------------------


def _query(path: str, **parameters: str | int) -> bytes:
    return (
        path + "?" + "&".join(f"{name}={quote(str(value), safe='')}" for name, value in parameters.items())
    ).encode()


def _items(expected: int) -> Callable[[bytes], str]:
    """An {items} envelope with `expected` items (each item of a Party holds one "resourceType")."""

    def check(body: bytes) -> str:
        if not body.startswith(b'{"items":['):
            return "not an {items} envelope"
        found = body.count(b'"resourceType":"Party"')
        return "" if found == expected else f"{found} items, {expected} expected"

    return check


def check_constant(body: bytes) -> str:
    return "" if body == TRIVIAL_BODY else "not the constant answer"


def _holding(value: str) -> Callable[[bytes], str]:
    wanted = f'"value":"{value}"'.encode()

    def check(body: bytes) -> str:
        if not body.startswith(b'{"items":[{'):
            return "no items"
        return "" if wanted in body else f"no item with the identifier value {value}"

    return check


@dataclass
class Workloads:
    identifier: list[Request]
    lists: list[Request]


def workloads(db_path: str, size: int, max_offset: int, rng: random.Random) -> Workloads:
    """Requests built from what the database holds (read-only; not timed)."""
    from reference_impl.seed import OWN_ORGANIZATION_NIP

    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT t.system, t.value FROM resource r JOIN search_token t ON t.resource_pk = r.pk"
            " WHERE r.type = 'Party' AND t.param = 'identifier' AND r.id LIKE 'party-contractor-1_____'"
        ).fetchall()
        (nip_system,) = db.execute(
            "SELECT DISTINCT t.system FROM search_token t JOIN resource r ON r.pk = t.resource_pk"
            " WHERE r.type = 'Party' AND t.param = 'identifier' AND t.value = ?",
            (OWN_ORGANIZATION_NIP,),
        ).fetchone()
        pairs = db.execute(
            "SELECT ty.system, ty.value, st.system, st.value, count(*) FROM resource r"
            " JOIN search_token ty ON ty.resource_pk = r.pk AND ty.param = 'type'"
            " JOIN search_token st ON st.resource_pk = r.pk AND st.param = 'status'"
            " WHERE r.type = 'Party' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
        ).fetchall()
    finally:
        db.close()
    if not rows:
        raise SystemExit(f"the database of size {size:,} has no party of the large set")
    identifier = [
        (_query("/v1/parties", identifier=f"{system}|{value}"), _holding(value))
        for system, value in rng.sample(rows, min(SAMPLE, len(rows)))
    ]
    owner = f"{nip_system}|{OWN_ORGANIZATION_NIP}"
    highest = max(0, min(max_offset, size - 20))
    lists: list[Request] = []
    for index in range(2 * SAMPLE):
        if index % 2 == 0:
            offset = rng.randint(0, highest)
            expected = max(0, min(20, size - offset))  # every party is owned by the Employer
            lists.append((_query("/v1/parties", owner=owner, count=20, offset=offset), _items(expected)))
        else:
            type_system, type_code, status_system, status_code, matching = pairs[(index // 2) % len(pairs)]
            path = _query(
                "/v1/parties", type=f"{type_system}|{type_code}", status=f"{status_system}|{status_code}", count=20
            )
            lists.append((path, _items(min(20, matching))))
    return Workloads(identifier, lists)


def cycler(requests: list[Request]) -> Callable[[], Request]:
    position = -1

    def next_request() -> Request:
        nonlocal position
        position = (position + 1) % len(requests)
        return requests[position]

    return next_request


# -- wrk, when installed --------------------------------------------------------------------------


def run_wrk(port: int, requests: list[Request], connections: int, seconds: float, directory: str) -> tuple[str, float]:
    """A workload again, driven by wrk (status codes checked, bodies not): its rate and median latency as text,
    and the rate (nan when wrk gave none)."""
    paths = ",\n".join(f'  "{path.decode()}"' for path, _ in requests[:2_000])
    script = Path(directory, "paths.lua")
    script.write_text(
        f"paths = {{\n{paths}\n}}\n"
        "counter = 0\n"
        "request = function()\n"
        "  counter = counter + 1\n"
        "  return wrk.format('GET', paths[(counter % #paths) + 1])\n"
        "end\n"
    )
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", "-s", str(script)]
    output = subprocess.run(
        [*command, f"http://{HOST}:{port}"], capture_output=True, text=True, check=False, timeout=seconds + 60
    ).stdout
    rate = re.search(r"Requests/sec:\s*([\d.]+)", output)
    median = re.search(r"50%\s+([\d.]+)(us|ms|s)\b", output)
    bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", output)
    errors = re.search(r"Socket errors:.*", output)
    if not rate or not median:
        return f"wrk gave no figures: {output.strip()[:300]}", float("nan")
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}[median.group(2)]
    text = (
        f"{float(rate.group(1)):,.0f} requests/s, median {float(median.group(1)) * scale:.2f} ms, "
        f"non-2xx {bad.group(1) if bad else 0}{'; ' + errors.group(0) if errors else ''}"
    )
    return text, float(rate.group(1))
