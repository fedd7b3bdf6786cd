"""Throughput and latency of the reference implementation (`eris serve`) against 1,000 and 100,000 parties.

    python bench/serve.py [--sizes 1000,100000] [--seconds 5] [--connections 16]

For each size N: builds a SQLite file database in a temporary directory with the seed data set plus
`large=N-34` Contractors (N parties in all, each large one with a PartyRole and a GrantAssignment;
not timed), starts the server in a separate process pinned to one core, and drives it from this
process, pinned to another core, over keep-alive connections on 127.0.0.1:

  (a) identifier reads: GET /v1/parties?identifier=<system|value> of random parties of the large set
      (their contractor, warehouse or NIP identifier); every answer must be 200 with a non-empty
      `items` list holding the asked value;
  (b) filtered list reads, alternately: GET /v1/parties?owner=<nip|Employer NIP>&count=20&offset=<random>
      (the Employer owns every party; offsets from 0 to `--max-offset`, 980 by default at every size)
      and GET /v1/parties?type=<system|code>&status=<system|code>&count=20, each (type, status) pair
      that the parties have in turn (six pairs: one matches nearly every party, five match 1 to 11);
      every answer must be 200 with an `items` list of the expected length.

Each workload runs `--connections` concurrent connections for `--seconds` (after an untimed warm-up),
then identifier reads run once more over a single connection, one request at a time: the cleanest
figure for "does the cost of a read grow with the data". When `wrk` is on the PATH, it repeats
workload (a) as a cross-check that this Python load generator is not what limits the figures.

The server keeps the answers of identifier reads until its next write (ServerSettings.answer_cache_bytes), and
(a) repeats its identifiers: after the warm-up they are answered from that cache. So (a) runs once more,
concurrently, on a server without the cache: every read from SQLite, as a read of an identifier not read since
the last write is.

At each size, a trivial aiohttp server (one GET handler answering a small constant JSON, no middlewares)
runs first the same way: its own process pinned to the same core, the same load generator, connections
and seconds. Identifier reads are reported as a share of it: what the service costs beyond aiohttp itself,
on the machine as busy as it was during the run.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import platform
import pstats
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
# bench/ is first on the path when this file runs as a script, and bench/reports.py would hide the reports
# package that the reference implementation imports; the checkout's own packages come first instead
sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench")]
FIXED_PARTIES = 34
"""Parties of the seed data set without `large`."""
TARGET_RATE = 3_000
TARGET_RATIO = 1.5
TARGET_LIST_RATE = 2_000
TARGET_LIST_SIZE = 100_000
"""List reads (b) per second at this many parties (issue 16)."""
TARGET_SHARE_OF_TRIVIAL = 0.60
"""Identifier reads (a) per second as a share of the trivial aiohttp GET of the same run (issue 16)."""
TRIVIAL_PATH = b"/trivial"
TRIVIAL_BODY = b'{"status":"ok"}'
HOST = "127.0.0.1"
SAMPLE = 5_000
"""Random large-set parties whose identifiers workload (a) asks for."""


# -- the child processes: build a database, serve it ----------------------------------------------


def _build(size: int, path: str) -> None:
    """Seed a new database file exactly as `eris serve --db PATH --seed large:N` does on first start."""
    from aiohttp import web

    from reference_impl.app import ServerSettings, create_app
    from reference_impl.seed import seed_resources

    large = size - FIXED_PARTIES
    app = create_app(ServerSettings(db=path, seed=lambda contract: seed_resources(contract, large=large)))

    async def build() -> None:
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()  # the startup context opens the store and loads the seed into the empty file
        await runner.cleanup()

    asyncio.run(build())


def _serve(path: str | None, cpu: int | None, profile: str | None, answer_cache: bool = True) -> None:
    """Serve an existing database on a free port of 127.0.0.1 until SIGTERM; print `ready PORT`. With
    `profile`, the whole life of the server runs under cProfile, whose statistics go to that file. Without
    a database, the trivial server: GET TRIVIAL_PATH answers TRIVIAL_BODY, nothing else runs. Without
    `answer_cache`, every identifier read is answered from SQLite (ServerSettings.answer_cache_bytes = 0)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    from aiohttp import web

    if path is None:

        async def constant(request: web.Request) -> web.Response:
            return web.Response(body=TRIVIAL_BODY, content_type="application/json")

        app = web.Application()
        app.router.add_get(TRIVIAL_PATH.decode(), constant)
    else:
        from reference_impl.app import ServerSettings, create_app

        # As `eris serve`, but the gateway rate limit (200/s per client by default) is off: every request of
        # the benchmark comes from one client.
        settings = ServerSettings(db=path, seed=None, rate_per_second=0)
        if not answer_cache:
            settings.answer_cache_bytes = 0
        app = create_app(settings)

    async def serve() -> None:
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, HOST, 0)
            await site.start()
            stopped = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, stopped.set)
            print(f"ready {runner.addresses[0][1]}", flush=True)
            await stopped.wait()
        finally:
            await runner.cleanup()

    if profile is None:
        asyncio.run(serve())
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        asyncio.run(serve())
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


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


def _constant(body: bytes) -> str:
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


def _cycler(requests: list[Request]) -> Callable[[], Request]:
    position = -1

    def next_request() -> Request:
        nonlocal position
        position = (position + 1) % len(requests)
        return requests[position]

    return next_request


# -- wrk, when installed --------------------------------------------------------------------------


def _wrk(port: int, requests: list[Request], connections: int, seconds: float, directory: str) -> tuple[str, float]:
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


# -- the report -----------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _environment() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    commit = checkout_state(["reference_impl", "profiles", "schemas", "conformance"], "the server or its data")
    return [
        f"eris {version('eris')}, commit {commit}",
        f"python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}, "
        f"aiohttp {version('aiohttp')}, SQLite {sqlite3.sqlite_version}",
        f"cpus: {os.cpu_count()} (usable by this process: {usable}), {_cpu_model()}",
        f"load average {load_average()}; date {date.today().isoformat()}",
    ]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _line(name: str, run: Run) -> str:
    text = (
        f"  {name}: {run.rate:,.0f} requests/s, median {_ms(run.percentile(0.5))}, p99 {_ms(run.percentile(0.99))}, "
        f"{len(run.latencies):,} answers, errors {run.errors}; CPU: server {run.server_cpu:.0%}, "
        f"load generator {run.client_cpu:.0%} of a core"
    )
    if run.first_error:
        text += f"\n    first error: {run.first_error}"
    return text


@dataclass
class SizeResult:
    size: int
    trivial: Run
    identifier: Run
    lists: Run
    sequential: Run
    uncached: Run
    """(a) again on a server without the answer cache: every read from SQLite."""
    wrk_trivial: float = float("nan")
    wrk_identifier: float = float("nan")
    """The rates of the cross-checks with wrk; nan without wrk."""

    @property
    def share_of_trivial(self) -> float:
        return self.identifier.rate / self.trivial.rate if self.trivial.rate else float("nan")

    @property
    def share_of_trivial_per_cpu(self) -> float:
        """The same per second of the server's CPU: steadier where other work takes the cores now and then, and
        lower where the trivial server is not kept busy (by a load generator that shares its core)."""
        return _share_per_cpu(self.identifier, self.trivial)

    @property
    def uncached_share_of_trivial_per_cpu(self) -> float:
        return _share_per_cpu(self.uncached, self.trivial)

    @property
    def share_of_trivial_by_wrk(self) -> float:
        return self.wrk_identifier / self.wrk_trivial if self.wrk_trivial else float("nan")


def _share_per_cpu(measured: Run, trivial: Run) -> float:
    """`measured` as a share of the trivial GET, each per second of its server's CPU."""
    if not (trivial.rate and trivial.server_cpu and measured.server_cpu):
        return float("nan")
    return (measured.rate / measured.server_cpu) / (trivial.rate / trivial.server_cpu)


def _start_server(
    db_path: str | None, cpu: int | None, profile: str | None, *, answer_cache: bool = True
) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, __file__, *(["--child-serve", db_path] if db_path else ["--child-trivial"])]
    if not answer_cache:
        command.append("--child-no-answer-cache")
    if cpu is not None:
        command += ["--child-cpu", str(cpu)]
    if profile is not None:
        command += ["--child-profile", profile]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("ready "):
        server.kill()
        server.wait()
        raise SystemExit(f"the server did not start (exit code {server.poll()})")
    return server, int(line.split()[1])


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def measure_size(size: int, args: argparse.Namespace, cpus: tuple[int, int] | None, directory: str) -> SizeResult:
    db_path = str(Path(directory, f"parties-{size}.db"))
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child-build", str(size), db_path], cwd=ROOT, check=True)
    megabytes = sum(f.stat().st_size for f in Path(directory).glob(f"parties-{size}.db*")) / 1e6
    print(
        f"\n{size:,} parties: database built in {time.perf_counter() - started:.1f} s ({megabytes:,.0f} MB; not timed)"
    )
    loads = workloads(db_path, size, args.max_offset, random.Random(args.seed))
    warmup = min(1.0, args.seconds)
    use_wrk = args.wrk and shutil.which("wrk") is not None
    wrk_trivial = wrk_identifier = float("nan")
    server, port = _start_server(None, cpus[0] if cpus else None, None)
    try:
        constant = [(TRIVIAL_PATH, _constant)]
        trivial = timed(port, server.pid, _cycler(constant), args.connections, args.seconds, warmup)
        print(_line(f"trivial aiohttp GET (the yardstick), {args.connections} connections", trivial))
        if use_wrk:
            text, wrk_trivial = _wrk(port, constant, args.connections, args.seconds, directory)
            print(f"  trivial GET, cross-check with wrk, {args.connections} connections: {text}")
    finally:
        _stop(server)
    profile = str(Path(directory, f"server-{size}.prof")) if args.profile else None
    server, port = _start_server(db_path, cpus[0] if cpus else None, profile)
    try:
        identifier = timed(port, server.pid, _cycler(loads.identifier), args.connections, args.seconds, warmup)
        print(_line(f"(a) identifier reads, {args.connections} connections", identifier))
        lists = timed(port, server.pid, _cycler(loads.lists), args.connections, args.seconds, warmup)
        print(_line(f"(b) owner pages and type+status lists, {args.connections} connections", lists))
        sequential = timed(port, server.pid, _cycler(loads.identifier), 1, args.seconds, warmup)
        print(_line("(a) identifier reads, 1 connection, one request at a time", sequential))
        if use_wrk:
            text, wrk_identifier = _wrk(port, loads.identifier, args.connections, args.seconds, directory)
            print(f"  (a) cross-check with wrk, {args.connections} connections: {text}")
    finally:
        _stop(server)
    server, port = _start_server(db_path, cpus[0] if cpus else None, None, answer_cache=False)
    try:
        uncached = timed(port, server.pid, _cycler(loads.identifier), args.connections, args.seconds, warmup)
        print(_line(f"(a) identifier reads, answer cache off, {args.connections} connections", uncached))
    finally:
        _stop(server)
        for leftover in Path(directory).glob(f"parties-{size}.db*"):  # the report spool beside it is a folder
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    if profile is not None and Path(profile).exists():
        _print_profile(profile, size)
    return SizeResult(size, trivial, identifier, lists, sequential, uncached, wrk_trivial, wrk_identifier)


def _print_profile(path: str, size: int) -> None:
    print(f"\ncProfile of the server at {size:,} parties, all runs (profiling slows it several times)")
    for order, count in (("cumulative", 30), ("tottime", 25)):
        print(f"\n-- top {count} by {order} time --")
        pstats.Stats(path, stream=sys.stdout).strip_dirs().sort_stats(order).print_stats(count)


def _cpus() -> tuple[int, int] | None:
    """A core for the server and another for the load generator, when the platform lets us pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        return None
    return usable[0], usable[1]


def summary(results: list[SizeResult]) -> None:
    smallest, largest = results[0], results[-1]
    print()
    print(f"{'figure':<48}" + "".join(f"{r.size:>14,}" for r in results))
    rows: list[tuple[str, Callable[[SizeResult], str]]] = [
        ("trivial aiohttp GET/s, concurrent", lambda r: f"{r.trivial.rate:,.0f}"),
        ("(a) identifier reads/s, concurrent", lambda r: f"{r.identifier.rate:,.0f}"),
        ("(a) share of the trivial GET", lambda r: f"{r.share_of_trivial:.0%}"),
        ("(a) share of the trivial GET per server CPU-second", lambda r: f"{r.share_of_trivial_per_cpu:.0%}"),
        ("(a) share of the trivial GET, both driven by wrk", lambda r: f"{r.share_of_trivial_by_wrk:.0%}"),
        ("(a) answer cache off: reads/s, concurrent", lambda r: f"{r.uncached.rate:,.0f}"),
        ("(a) answer cache off: share per server CPU-second", lambda r: f"{r.uncached_share_of_trivial_per_cpu:.0%}"),
        ("(a) median latency, concurrent", lambda r: _ms(r.identifier.percentile(0.5))),
        ("(a) p99 latency, concurrent", lambda r: _ms(r.identifier.percentile(0.99))),
        ("(a) median latency, 1 connection", lambda r: _ms(r.sequential.percentile(0.5))),
        ("(a) reads/s, 1 connection", lambda r: f"{r.sequential.rate:,.0f}"),
        ("(b) list reads/s, concurrent", lambda r: f"{r.lists.rate:,.0f}"),
        ("(b) median latency, concurrent", lambda r: _ms(r.lists.percentile(0.5))),
        ("(b) p99 latency, concurrent", lambda r: _ms(r.lists.percentile(0.99))),
        (
            "errors (trivial + a concurrent + a sequential + b + a cache off)",
            lambda r: (
                f"{r.trivial.errors + r.identifier.errors + r.sequential.errors + r.lists.errors + r.uncached.errors}"
            ),
        ),
    ]
    for name, cell in rows:
        print(f"{name:<52}" + "".join(f"{cell(r):>14}" for r in results))
    print()
    # per second of the server's CPU: the requests/s of either server say as much about the load generator, which
    # shares the machine with other work (bench/README.md)
    share = min(r.share_of_trivial_per_cpu for r in results)
    verdict = "met" if share >= TARGET_SHARE_OF_TRIVIAL else "NOT met"
    print(
        f"identifier reads per server CPU-second as a share of the trivial GET's, lowest of the sizes: {share:.0%} "
        f"(goal >= {TARGET_SHARE_OF_TRIVIAL:.0%}: {verdict}); answer cache off: "
        f"{min(r.uncached_share_of_trivial_per_cpu for r in results):.0%}"
    )
    at_target = [r for r in results if r.size == TARGET_LIST_SIZE]
    if at_target:
        rate = at_target[0].lists.rate
        verdict = "met" if rate >= TARGET_LIST_RATE else "NOT met"
        print(
            f"(b) list reads/s at {TARGET_LIST_SIZE:,} parties: {rate:,.0f} (goal >= {TARGET_LIST_RATE:,}: {verdict})"
        )
    else:
        print(f"(b) list reads: the goal (>= {TARGET_LIST_RATE:,}/s) is for {TARGET_LIST_SIZE:,} parties, not measured")
    if len(results) < 2:
        return
    sizes = f"{largest.size:,} / {smallest.size:,} parties"
    for name, pick in (
        ("(a) concurrent", lambda r: r.identifier),
        ("(a) 1 connection", lambda r: r.sequential),
        ("(b) concurrent", lambda r: r.lists),
    ):
        ratio = pick(largest).percentile(0.5) / pick(smallest).percentile(0.5)
        verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
        print(f"median latency {sizes}, {name}: {ratio:.2f}x (target <= {TARGET_RATIO}x: {verdict})")
    slowest = min(r.identifier.rate for r in results)
    verdict = "met" if slowest >= TARGET_RATE else "NOT met"
    print(f"identifier reads/s on one core, lowest of the sizes: {slowest:,.0f} (target >= {TARGET_RATE:,}: {verdict})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,100000", help="parties in the database, comma-separated (>= 35)")
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each timed run (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections (default 16)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random choice of requests (default 1)")
    parser.add_argument(
        "--max-offset",
        type=int,
        default=980,
        help="highest offset of the owner pages (default 980, the same at every size)",
    )
    parser.add_argument("--no-wrk", dest="wrk", action="store_false", help="skip the wrk cross-check")
    parser.add_argument("--child-build", nargs=2, metavar=("N", "DB"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run the server under cProfile and print its top functions per size (profiling slows it: "
        "the figures of such a run are not the server's)",
    )
    parser.add_argument("--child-serve", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--child-trivial", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--child-cpu", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-no-answer-cache", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_build:
        _build(int(args.child_build[0]), args.child_build[1])
        return 0
    if args.child_serve or args.child_trivial:
        _serve(args.child_serve, args.child_cpu, args.child_profile, not args.child_no_answer_cache)
        return 0

    try:
        sizes = sorted({int(part) for part in args.sizes.split(",") if part.strip()})
    except ValueError:
        parser.error("--sizes must be whole numbers separated by commas")
    if not sizes or sizes[0] <= FIXED_PARTIES or args.seconds <= 0 or args.connections < 1:
        parser.error(f"--sizes must be above {FIXED_PARTIES}; --seconds and --connections must be positive")

    for line in _environment():
        print(line)
    cpus = _cpus()
    if cpus:
        os.sched_setaffinity(0, {cpus[1]})
        print(f"server pinned to cpu {cpus[0]}, load generator (and wrk) to cpu {cpus[1]}")
    else:
        print("not pinned: fewer than 2 usable cores, or no os.sched_setaffinity; server and load share the cores")
    print(
        f"{args.connections} keep-alive connections, {args.seconds:g} s per run after a warm-up; "
        f"load generator: Python asyncio streams{', cross-check: wrk' if args.wrk and shutil.which('wrk') else ''}"
    )

    if args.profile:
        print("--profile: the server runs under cProfile; the figures below are not the server's own")
    results = []
    with tempfile.TemporaryDirectory(prefix="eris-bench-serve-") as directory:
        for size in sizes:
            results.append(measure_size(size, args, cpus, directory))
    summary(results)
    print(f"load average after the runs: {load_average()} (2 shared cores: other work slows both processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
