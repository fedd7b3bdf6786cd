"""Wall time of `eris verify` against that of the `eris certify` run it re-checks, on the embedded reference
implementation.

    python bench/verify.py [--repeat 3] [-k EXPR] [--variant NAME]

Each round is `eris certify --seed 1 --report-dir <temporary>` then `eris verify <that folder>`, both as a user
starts them (subprocesses). Prints the median, min and max of each, their ratio, and what verify said (its last
line), so that a re-check that no longer verifies is not timed as if it did.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import checkout_state, load_average

RUN_TIMEOUT = 1800


def _eris() -> list[str]:
    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def _timed(arguments: list[str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run([*_eris(), *arguments], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)
    lines = done.stdout.strip().splitlines()
    return time.perf_counter() - started, done.returncode, lines[-1] if lines else done.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("-k", dest="keyword")
    parser.add_argument("--variant")
    args = parser.parse_args()
    extra = (["-k", args.keyword] if args.keyword else []) + (["--variant", args.variant] if args.variant else [])
    certify_times, verify_times = [], []
    said = ""
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="eris-bench-verify-") as folder:
            seconds, _, _ = _timed(["certify", "--quiet", "--seed", "1", *extra, "--report-dir", folder])
            certify_times.append(seconds)
            seconds, code, said = _timed(["verify", folder])
            verify_times.append(seconds)
            said = f"exit {code}: {said}"
    print(f"commit {checkout_state(['conformance'], 'conformance/')}; load {load_average()}")
    for name, times in (("certify", certify_times), ("verify", verify_times)):
        print(f"{name:8} median {statistics.median(times):6.1f} s  (min {min(times):.1f}, max {max(times):.1f})")
    print(f"verify / certify: {statistics.median(verify_times) / statistics.median(certify_times):.2f}x")
    print(f"last verify said: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
