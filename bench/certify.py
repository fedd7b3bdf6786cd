"""Wall time of a full `eris certify` of the embedded reference implementation, in one process and, when
pytest-xdist is installed, with `--workers 2`.

    python bench/certify.py [--repeat 3] [--workers 2 | --workers 0] [-k EXPR]

Each run is `eris certify --quiet --report-dir <temporary>` as a user starts it (a subprocess: the
interpreter's start, the seed of the reference implementation, the whole suite and the outputs are all in
the figure). Prints the median, min and max of `--repeat` runs of each mode, and what the runs certified
(tests per outcome and the verdict, from certification.json), so that figures of different suites are not
compared by mistake.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from machine import checkout_state, load_average

RUN_TIMEOUT = 1800


def _eris() -> list[str]:
    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def run_once(extra: list[str]) -> tuple[float, dict]:
    """One `eris certify`: its wall time in seconds and its certification.json."""
    with tempfile.TemporaryDirectory(prefix="eris-bench-certify-") as folder:
        started = time.perf_counter()
        result = subprocess.run(
            [*_eris(), "certify", "--quiet", "--report-dir", folder, *extra],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - started
        if result.returncode not in (0, 1):
            raise SystemExit(
                f"eris certify exited {result.returncode}: {result.stderr.strip() or result.stdout[-500:]}"
            )
        document = json.loads((Path(folder) / "certification.json").read_text("utf-8"))
    return seconds, document


def measure(name: str, extra: list[str], repeat: int) -> None:
    times = []
    document: dict = {}
    for turn in range(repeat):
        seconds, document = run_once(extra)
        times.append(seconds)
        print(f"  {name} run {turn + 1}: {seconds:.2f} s", flush=True)
    tests = document["summary"]["tests"]
    print(
        f"{name}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}) over {repeat} "
        f"run(s); {sum(tests.values())} tests ({', '.join(f'{n} {k}' for k, n in tests.items())}), "
        f"{document['summary']['verdict']}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each mode (default 1); the median is printed")
    parser.add_argument(
        "--workers", type=int, default=2, help="workers of the parallel mode (default 2; 0 leaves that mode out)"
    )
    parser.add_argument("-k", dest="keyword", help="only the tests matching this pytest -k expression")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be 1 or more")
    extra = ["-k", args.keyword] if args.keyword else []
    print(f"eris {version('eris')}, commit {checkout_state(['conformance'], 'conformance/')}")
    print(
        f"Python {platform.python_version()}, pytest {version('pytest')}, {len(os.sched_getaffinity(0))} "
        f"CPUs, load average {load_average()}"
    )
    measure("one process", extra, args.repeat)
    if args.workers == 0:
        pass
    elif importlib.util.find_spec("xdist") is None:
        print("--workers: pytest-xdist is not installed, not measured")
    else:
        print(f"pytest-xdist {version('pytest-xdist')}")
        measure(f"--workers {args.workers}", [*extra, "--workers", str(args.workers)], args.repeat)
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
