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
import os
import platform
import pstats
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from importlib.metadata import version
from pathlib import Path

from machine import checkout_state, load_average
from serve_load import Run, check_constant, cycler, run_wrk, timed, workloads
from serve_processes import FIXED_PARTIES, TRIVIAL_PATH, build_database, run_server, start_server, stop_server

ROOT = Path(__file__).resolve().parent.parent
# bench/ is first on the path when this file runs as a script (the siblings above come from there), and
# bench/reports.py would hide the reports package that the reference implementation imports; the checkout's own
# packages come first instead
sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench")]
TARGET_RATE = 3_000
TARGET_RATIO = 1.5
TARGET_LIST_RATE = 2_000
TARGET_LIST_SIZE = 100_000
"""List reads (b) per second at this many parties (issue 16)."""
TARGET_SHARE_OF_TRIVIAL = 0.60
"""Identifier reads (a) per second as a share of the trivial aiohttp GET of the same run (issue 16)."""


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
    server, port = start_server(__file__, None, cpus[0] if cpus else None, None)
    try:
        constant = [(TRIVIAL_PATH, check_constant)]
        trivial = timed(port, server.pid, cycler(constant), args.connections, args.seconds, warmup)
        print(_line(f"trivial aiohttp GET (the yardstick), {args.connections} connections", trivial))
        if use_wrk:
            text, wrk_trivial = run_wrk(port, constant, args.connections, args.seconds, directory)
            print(f"  trivial GET, cross-check with wrk, {args.connections} connections: {text}")
    finally:
        stop_server(server)
    profile = str(Path(directory, f"server-{size}.prof")) if args.profile else None
    server, port = start_server(__file__, db_path, cpus[0] if cpus else None, profile)
    try:
        identifier = timed(port, server.pid, cycler(loads.identifier), args.connections, args.seconds, warmup)
        print(_line(f"(a) identifier reads, {args.connections} connections", identifier))
        lists = timed(port, server.pid, cycler(loads.lists), args.connections, args.seconds, warmup)
        print(_line(f"(b) owner pages and type+status lists, {args.connections} connections", lists))
        sequential = timed(port, server.pid, cycler(loads.identifier), 1, args.seconds, warmup)
        print(_line("(a) identifier reads, 1 connection, one request at a time", sequential))
        if use_wrk:
            text, wrk_identifier = run_wrk(port, loads.identifier, args.connections, args.seconds, directory)
            print(f"  (a) cross-check with wrk, {args.connections} connections: {text}")
    finally:
        stop_server(server)
    server, port = start_server(__file__, db_path, cpus[0] if cpus else None, None, answer_cache=False)
    try:
        uncached = timed(port, server.pid, cycler(loads.identifier), args.connections, args.seconds, warmup)
        print(_line(f"(a) identifier reads, answer cache off, {args.connections} connections", uncached))
    finally:
        stop_server(server)
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
        build_database(int(args.child_build[0]), args.child_build[1])
        return 0
    if args.child_serve or args.child_trivial:
        run_server(args.child_serve, args.child_cpu, args.child_profile, not args.child_no_answer_cache)
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
