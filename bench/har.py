"""HAR validation and `eris proxy`, measured in one run.

    python bench/har.py [--har traffic.har] [--exchanges 100000] [--requests 2000] [--repeat 3] [--items 100000]

(a) `eris validate --format json -o /dev/null FILE` (the command as a user runs it), pinned to one core: exchanges
    a second and peak RSS, on the traffic.har of a full certification of the embedded reference (`eris certify`
    runs first, untimed, unless --har names one) and on a HAR of `--exchanges` exchanges made by repeating that
    one's entries (written to a temporary file, untimed). The certification's HAR is timed `--repeat` times, the
    median is given; the large one once.
(b) the latency `eris proxy` adds: `eris serve` (no rate limit, data in memory) pinned to one core, `eris proxy` of
    it pinned to the other, and this process sending `--requests` GETs directly and `--requests` through the proxy,
    in turns (direct, proxied, direct...) over one keep-alive connection each, so that a busier moment of the
    shared machine weighs on both. The reads alternate between /v1/parties?count=20 (about 24 KB of answer, its
    20 items judged) and /v1/capabilities?count=5. Median and p99 of each, and of the proxied minus the direct
    time of each pair.
(c) the items of answers against the same items as NDJSON (issue 39): `--items` payloads of bench/warned_corpus.py's
    realistic mix (22% with a warning), as the answers of list reads, 20 items a page of one type (GET /v1/parties
    ?count=20...), in a HAR; and as one NDJSON file. Both `eris validate --jobs 1 --format json`, in turns, `--repeat`
    times: items a second of each (medians) and their ratio (goal: the HAR's at least half the NDJSON's), with each
    one's peak RSS; then a HAR of the same items four times over, for memory.
With --skip-certification and --skip-proxy, (a) and (b) are left out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from machine import checkout_state, load_average  # noqa: E402

BIN = Path(sys.executable).parent
ERIS = [str(BIN / "eris")] if (BIN / "eris").exists() else [sys.executable, "-m", "conformance.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
READS = ("/v1/parties?count=20", "/v1/capabilities?count=5")


def _pinned(core: int) -> Callable[[], None]:
    """A preexec_fn that keeps the child on one core of those this process may use."""
    cores = sorted(os.sched_getaffinity(0))
    chosen = {cores[core % len(cores)]}
    return lambda: os.sched_setaffinity(0, chosen)


def _certification_har(folder: Path) -> Path:
    print("certifying the embedded reference for its traffic.har (untimed)...", flush=True)
    subprocess.run(
        [*ERIS, "certify", "--quiet", "--report-dir", str(folder / "certification")],
        env=ENV,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    har = folder / "certification" / "traffic.har"
    if not har.is_file():
        raise SystemExit("eris certify wrote no traffic.har")
    return har


def _entries(har: Path) -> list[dict]:
    return json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]


def _large_har(entries: list[dict], count: int, path: Path) -> Path:
    """`count` exchanges: the entries given, again and again, written one at a time."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"log": {"version": "1.2", "creator": {"name": "bench/har.py", "version": "1"}, "entries": [\n')
        for index in range(count):
            out.write(("," if index else "") + json.dumps(entries[index % len(entries)]) + "\n")
        out.write("]}}\n")
    return path


def _validate(har: Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of `eris validate` of the HAR, on one core."""
    command = [*ERIS, "validate", "--format", "json", "-o", os.devnull, str(har)]
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_pinned(0)
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"eris validate failed: {process.stderr.read().decode()[-2000:] if process.stderr else ''}")
    return seconds, usage.ru_maxrss


class _Started:
    """A command that prints its URL on its first line of stdout, on one core, stopped by SIGINT."""

    def __init__(self, command: list[str], core: int, pattern: str) -> None:
        self.process = subprocess.Popen(
            command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=_pinned(core)
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            found = re.search(pattern, line)
            if found:
                self.url = found.group(1)
                break
        else:
            raise SystemExit(f"{command[:2]} did not start")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


PAGE = 20
_ON_ONE_CORE = (
    "import os, resource, subprocess, sys\n"
    "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "sys.exit(done.stderr.decode()[-2000:]) if done.returncode not in (0, 1) else None\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
"""Runs a command on one core from a small process: a command started from this one (a fork, then the exec) counts
this process's memory, the corpus's, in its peak RSS."""


def _validate_alone(path: Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of `eris validate --jobs 1` of `path`, on one core."""
    command = [*ERIS, "validate", "--jobs", "1", "--format", "json", "-o", os.devnull, str(path)]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _ON_ONE_CORE, *command], env=ENV, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"eris validate failed: {done.stderr[-2000:]}")
    return time.perf_counter() - start, int(done.stdout.split()[-1])


def _pages_har(lines: list[str], path: Path) -> list[str]:
    """The payloads as answers of list reads, PAGE items of one type a page, in a HAR; returns those it holds, in
    its order (a type no list read answers as such, ValueSet, is left out)."""
    from profiles.openapi_index import list_reads

    reads = {
        read.item_type: read.path + "".join(f"&{name}=x" for name in read.required)
        for read in list_reads()
        if read.item_type and "{" not in read.path
    }
    by_type: dict[str, list[str]] = {}
    for line in lines:
        by_type.setdefault(json.loads(line)["resourceType"], []).append(line)
    pages, held = 0, []
    with path.open("w", encoding="utf-8") as out:
        out.write('{"log": {"version": "1.2", "creator": {"name": "bench/har.py", "version": "1"}, "entries": [\n')
        for resource_type, items in by_type.items():
            if resource_type not in reads:
                continue
            held += items
            for start in range(0, len(items), PAGE):
                body = '{"items": [' + ",".join(items[start : start + PAGE]) + '], "nextToken": null}'
                entry = {
                    "startedDateTime": "2026-12-06T10:00:00.000Z",
                    "time": 5,
                    "request": {
                        "method": "GET",
                        "url": f"https://erp.example{reads[resource_type].replace('&', f'?count={PAGE}&', 1)}"
                        if "&" in reads[resource_type]
                        else f"https://erp.example{reads[resource_type]}?count={PAGE}",
                        "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "Authorization", "value": "Bearer x"}],
                        "queryString": [{"name": "count", "value": str(PAGE)}],
                        "cookies": [],
                        "headersSize": -1,
                        "bodySize": 0,
                    },
                    "response": {
                        "status": 200,
                        "statusText": "OK",
                        "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "Content-Type", "value": "application/json"}],
                        "cookies": [],
                        "content": {"size": len(body.encode()), "mimeType": "application/json", "text": body},
                        "redirectURL": "",
                        "headersSize": -1,
                        "bodySize": len(body.encode()),
                    },
                    "cache": {},
                    "timings": {"send": 0, "wait": 5, "receive": 0},
                }
                out.write(("," if pages else "") + json.dumps(entry, ensure_ascii=False) + "\n")
                pages += 1
        out.write("]}}\n")
    return held


def _items_against_ndjson(folder: Path, count: int, repeat: int) -> None:
    from warned_corpus import corpora

    _, _, mix = corpora(count)
    har, large = folder / "items.har", folder / "items-4x.har"
    held = _pages_har(mix, har)
    held_large = _pages_har(mix * 4, large)
    ndjson = folder / "items.ndjson"
    ndjson.write_text("\n".join(held) + "\n", encoding="utf-8")
    count, pages = len(held), -(-len(held) // PAGE)
    runs: dict[str, list[tuple[float, int]]] = {"har": [], "ndjson": []}
    for turn in range(repeat):
        for name in ("har", "ndjson") if turn % 2 == 0 else ("ndjson", "har"):
            runs[name].append(_validate_alone(har if name == "har" else ndjson))
    rate = {name: count / statistics.median(run[0] for run in timed) for name, timed in runs.items()}
    rss = {name: max(run[1] for run in timed) / 1024 for name, timed in runs.items()}
    ratio = rate["har"] / rate["ndjson"]
    print(
        f"  {count:,} items of the mix in {pages:,} answers of {PAGE} ({har.stat().st_size / 1e6:.0f} MB): "
        f"{rate['har']:,.0f} items/s, peak RSS {rss['har']:.0f} MiB; as NDJSON {rate['ndjson']:,.0f}/s, peak RSS "
        f"{rss['ndjson']:.0f} MiB"
    )
    print(f"  items of a HAR / items of NDJSON: {ratio:.2f} (goal >= 0.5: {'met' if ratio >= 0.5 else 'NOT met'})")
    seconds, peak = _validate_alone(large)
    print(
        f"  {len(held_large):,} items ({large.stat().st_size / 1e6:.0f} MB): {len(held_large) / seconds:,.0f} "
        f"items/s, peak RSS {peak / 1024:.0f} MiB ({peak / 1024 / rss['har']:.2f}x the peak of {count:,})"
    )


def _latencies(direct: str, proxied: str, requests: int) -> Iterator[tuple[float, float]]:
    with httpx.Client(base_url=direct, timeout=30) as straight, httpx.Client(base_url=proxied, timeout=30) as through:
        for index in range(-50, requests):  # 50 pairs of warm-up, not kept
            path = READS[index % len(READS)]
            times = []
            for client in (straight, through):
                start = time.perf_counter()
                response = client.get(path)
                times.append(time.perf_counter() - start)
                if response.status_code != 200:
                    raise SystemExit(f"{path} answered {response.status_code}")
            if index >= 0:
                yield times[0], times[1]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--har", type=Path, help="a HAR to measure instead of a new certification's traffic.har")
    parser.add_argument("--exchanges", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--items", type=int, default=100_000, help="payloads of (c) (default 100000; 0: no (c))")
    parser.add_argument("--skip-certification", action="store_true", help="leave (a) out")
    parser.add_argument("--skip-proxy", action="store_true", help="leave (b) out")
    args = parser.parse_args()
    print(f"checkout {checkout_state(['conformance', 'profiles', 'bench/har.py'], 'the judge or this bench')}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load_average()}")
    with tempfile.TemporaryDirectory(prefix="eris-bench-har-") as scratch:
        folder = Path(scratch)
        if args.items:
            print("\n(c) the items of answers in a HAR against the same items as NDJSON, one core, in turns")
            _items_against_ndjson(folder, args.items, args.repeat)
        if args.skip_certification:
            return
        har = args.har or _certification_har(folder)
        entries = _entries(har)
        large = _large_har(entries, args.exchanges, folder / "large.har")
        print(f"\n(a) eris validate of a HAR, one core ({len(entries):,} and {args.exchanges:,} exchanges)")
        runs = [_validate(har) for _ in range(args.repeat)]
        seconds = statistics.median(run[0] for run in runs)
        print(
            f"  certification HAR: {len(entries):,} exchanges, {har.stat().st_size / 1e6:.1f} MB: {seconds:.2f} s, "
            f"{len(entries) / seconds:,.0f} exchanges/s, peak RSS {max(run[1] for run in runs) / 1024:.0f} MiB"
        )
        seconds, rss = _validate(large)
        print(
            f"  generated HAR: {args.exchanges:,} exchanges, {large.stat().st_size / 1e6:.0f} MB: {seconds:.1f} s, "
            f"{args.exchanges / seconds:,.0f} exchanges/s, peak RSS {rss / 1024:.0f} MiB"
        )

        if args.skip_proxy:
            return
        print(f"\n(b) eris proxy: {args.requests:,} GETs direct and {args.requests:,} through it, in turns")
        serve = _Started(
            [*ERIS, "serve", "--port", "0", "--db", ":memory:", "--rate-limit", "0", "--keys", str(folder / "keys")],
            0,
            r"listening on (http://\S+)",
        )
        try:
            proxy = _Started(
                [*ERIS, "proxy", "--target", serve.url, "--port", "0", "--report-dir", str(folder / "proxy")],
                1,
                r"eris proxy: (http://\S+)",
            )
            try:
                pairs = list(_latencies(serve.url, proxy.url, args.requests))
            finally:
                proxy.stop()
        finally:
            serve.stop()
        direct = [pair[0] for pair in pairs]
        through = [pair[1] for pair in pairs]
        added = [pair[1] - pair[0] for pair in pairs]
        for name, values in (("direct", direct), ("through the proxy", through), ("added (pairwise)", added)):
            print(f"  {name:<18} median {_ms(statistics.median(values))}, p99 {_ms(_percentile(values, 0.99))}")


if __name__ == "__main__":
    main()
