"""Wall time of `eris certify` of the embedded reference implementation across a network: directly, and behind a
proxy that answers every request a fixed time later (bench/latency_proxy.py: one round trip of that length), in one
process, with eris's own choice of workers, and with `--workers N` (issue 30).

    python bench/latency.py [--delays 0,20,50,150] [--modes default,1] [--workers 2,4,8 --workers-at 50,150]
                            [--concurrency 1,8] [--seed 1] [--examples 12] [-k EXPR]

Each row is one `eris certify --target <proxy> --config <the reference's target description> --seed S --quiet`, a
subprocess as a user starts it, against a reference implementation started afresh for the row in this process (its
data as seeded, whatever the rows before wrote). The description's base_url is overridden by --target; the receiver
of deliveries and notifications stays on loopback, as the reference pushes to it directly. A mode is `default` (no
--workers: what eris chooses), or a number of workers (1: one process); directly and at 0 ms only the first mode
runs (on loopback eris chooses one process). With --concurrency, every row runs once with each `--concurrency N`
(requests of a test sent at once; without it, eris's default). Prints, for each row, the wall time, the ratio to the
direct run, the verdict and the failed MUST requirements, which must be the same in every row, the requests sent (in
brackets those the rate limit answered 429, each waited out as its Retry-After says; from traffic.har) and what eris
said it chose;
at the end whether every verdict and every requirement's status agreed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
# bench/ after the project: bench/reports.py must not hide the package `reports` the reference imports
sys.path[:] = [str(ROOT)] + [entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench"]
sys.path.append(str(ROOT / "bench"))

from latency_proxy import LatencyProxy  # noqa: E402

from conformance.run.embedded import EmbeddedReference  # noqa: E402

RUN_TIMEOUT = 3600
DIRECT = "direct"


def _eris() -> list[str]:
    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def _numbers(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of whole numbers: {text!r}") from None


def certify(delay: int | None, mode: str, concurrency: int | None, options: argparse.Namespace) -> dict:
    """One certification of a fresh reference implementation, behind a proxy of `delay` ms (None: directly)."""
    extra = ["--seed", str(options.seed), "--examples", str(options.examples)]
    extra += ["-k", options.keyword] if options.keyword else []
    extra += [] if mode == "default" else ["--workers", mode]
    extra += [] if concurrency is None else ["--concurrency", str(concurrency)]
    with EmbeddedReference() as reference, tempfile.TemporaryDirectory(prefix="eris-bench-latency-") as folder:
        proxy = LatencyProxy(reference.base_url, delay).start() if delay is not None else None
        try:
            url = proxy.url if proxy else reference.base_url
            command = [*_eris(), "certify", "--target", url, "--config", str(reference.description)]
            started = time.perf_counter()
            done = subprocess.run(
                [*command, "--report-dir", folder, "--quiet", *extra],
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
            seconds = time.perf_counter() - started
        finally:
            if proxy:
                proxy.stop()
        path = Path(folder) / "certification.json"
        document = json.loads(path.read_text("utf-8")) if path.exists() else {}
        har = Path(folder) / "traffic.har"
        entries = json.loads(har.read_text("utf-8"))["log"]["entries"] if har.exists() else []
    said = [line.removeprefix("eris certify: ") for line in done.stdout.splitlines() if "round trip" in line]
    summary = document.get("summary", {})
    return {
        "exit": done.returncode,
        "seconds": seconds,
        "verdict": summary.get("verdict", f"none (exit {done.returncode}: {done.stderr.strip()[-300:]})"),
        "failed": summary.get("failed_must", []),
        "statuses": {r["id"]: r["status"] for r in document.get("requirements", [])},
        "chosen": said[0] if said else "",
        "requests": sum(entry.get("_eris_direction") == "outbound" for entry in entries),
        "refused": sum(entry["response"]["status"] == 429 for entry in entries),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delays", type=_numbers, default=[0, 20, 50, 150], help="ms a request (default 0,20,50,150)")
    parser.add_argument(
        "--modes",
        default="default,1",
        help="comma-separated: default (eris chooses) and/or numbers of workers (default: default,1)",
    )
    parser.add_argument(
        "--workers", type=_numbers, default=[2, 4, 8], help="--workers N measured as well (default 2,4,8)"
    )
    parser.add_argument("--workers-at", type=_numbers, default=[50, 150], help="at these delays (default 50,150)")
    parser.add_argument(
        "--concurrency",
        type=_numbers,
        default=[],
        help="comma-separated --concurrency N: each row runs with each (default: eris's default only)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of every run (default 1)")
    parser.add_argument("--examples", type=int, default=12, help="--examples of every run (default 12)")
    parser.add_argument("-k", dest="keyword", help="only the tests matching this pytest -k expression")
    options = parser.parse_args()
    modes = [mode.strip() for mode in options.modes.split(",") if mode.strip()]
    for mode in modes:
        if mode != "default" and not mode.isdigit():
            parser.error(f"--modes: {mode!r} is neither `default` nor a number of workers")
    # on loopback (directly, or 0 ms added) eris keeps one process, so the first mode alone stands for all
    placed: list[tuple[int | None, str]] = [(None, modes[0])]
    placed += [(delay, mode) for delay in options.delays for mode in (modes if delay else modes[:1])]
    placed += [(delay, str(n)) for delay in options.workers_at for n in options.workers if str(n) not in modes]
    concurrencies: list[int | None] = list(options.concurrency) or [None]
    rows = [(delay, mode, concurrency) for delay, mode in placed for concurrency in concurrencies]
    print(f"eris {version('eris')}, commit {checkout_state(['conformance', 'bench'], 'conformance/ or bench/')}")
    print(
        f"Python {platform.python_version()}, {len(os.sched_getaffinity(0))} CPUs, load average {load_average()}; "
        f"seed {options.seed}, --examples {options.examples}" + (f", -k {options.keyword}" if options.keyword else "")
    )
    print(
        "| added ms | --workers | --concurrency | wall s | ratio to direct | verdict | failed MUST | requests (429) "
        "| eris chose |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    direct: dict[str, float] = {}
    results = []
    for delay, mode, concurrency in rows:
        found = certify(delay, mode, concurrency, options)
        results.append(found)
        if delay is None:
            direct.setdefault(mode, found["seconds"])
        base = next(iter(direct.values()), None)
        ratio = f"{found['seconds'] / base:.2f}" if base else "-"
        print(
            f"| {DIRECT if delay is None else delay} | {'(default)' if mode == 'default' else mode} "
            f"| {'(default)' if concurrency is None else concurrency} | {found['seconds']:.1f} | {ratio} "
            f"| {found['verdict']} | {', '.join(found['failed']) or 'none'} "
            f"| {found['requests']} ({found['refused']}) | {found['chosen'] or '-'} |",
            flush=True,
        )
    verdicts = {(r["verdict"], tuple(r["failed"])) for r in results}
    statuses = {json.dumps(r["statuses"], sort_keys=True) for r in results}
    print(
        f"verdicts {'the same in every row' if len(verdicts) == 1 else 'DIFFER: ' + repr(sorted(verdicts))}; "
        f"per-requirement statuses {'the same' if len(statuses) == 1 else f'DIFFER ({len(statuses)} sets)'}"
    )
    print(f"load average after: {load_average()}")
    return 0 if len(verdicts) == 1 and len(statuses) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
