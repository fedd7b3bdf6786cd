"""Memory of `eris validate` as its input grows: peak RSS for the same payloads as NDJSON on stdin, as an NDJSON
file and as one JSON array file, at two sizes, with `--jobs 1` and `--jobs 2`. Flat means the larger input costs
about what the smaller does.

    python bench/validate_memory.py [--megabytes 20 80] [--jobs 1 2]

Prints one line per (jobs, form, size): documents, seconds, peak RSS of the largest process (the command, or one of
the workers of --jobs), and the ratio of the peaks of the two sizes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
MEASURE = (
    "import resource, subprocess, sys\n"
    "stdin = open(sys.argv[1], 'rb') if sys.argv[1] != '-' else None\n"
    "subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _payloads() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from profiles import load_contract
    from reference_impl.seed import seed_resources

    return [json.dumps(r, ensure_ascii=False) for r in seed_resources(load_contract())]


def _write(folder: Path, megabytes: int, payloads: list[str]) -> tuple[Path, Path, int]:
    ndjson, array = folder / f"in-{megabytes}.ndjson", folder / f"in-{megabytes}.json"
    count = 0
    with ndjson.open("w", encoding="utf-8") as lines, array.open("w", encoding="utf-8") as items:
        items.write("[")
        while lines.tell() < megabytes * 1_000_000:
            text = payloads[count % len(payloads)]
            lines.write(text + "\n")
            items.write(("," if count else "") + text)
            count += 1
        items.write("]")
    return ndjson, array, count


def _peak(stdin: str, command: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURE, stdin, *command], capture_output=True, text=True, check=True)
    return time.perf_counter() - started, int(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, nargs=2, default=[20, 80], metavar=("SMALL", "LARGE"))
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="--jobs of the runs (default: 1 2)")
    args = parser.parse_args()
    print(f"machine: load {load_average()}; commit {checkout_state(['conformance', 'profiles'], 'the validator')}")
    eris = [sys.executable, "-m", "conformance.cli", "validate"]
    payloads = _payloads()
    forms = ("stdin NDJSON", "NDJSON file", "JSON array file")
    with tempfile.TemporaryDirectory(prefix="eris-bench-memory-") as folder:
        peaks: dict[tuple[int, str], list[int]] = {(jobs, form): [] for jobs in args.jobs for form in forms}
        for megabytes in args.megabytes:
            ndjson, array, count = _write(Path(folder), megabytes, payloads)
            for jobs in args.jobs:
                for form, stdin, path in zip(
                    forms, (str(ndjson), "-", "-"), ("-", str(ndjson), str(array)), strict=True
                ):
                    seconds, peak_kib = _peak(stdin, [*eris, "--jobs", str(jobs), path])
                    peaks[jobs, form].append(peak_kib)
                    print(
                        f"--jobs {jobs}  {form:16} {megabytes:4d} MB  {count:8,d} documents  {seconds:6.1f} s  "
                        f"peak RSS {peak_kib / 1024:7.1f} MiB"
                    )
        for (jobs, form), (small, large) in peaks.items():
            print(
                f"--jobs {jobs}  {form}: peak RSS at {args.megabytes[1]} MB / at {args.megabytes[0]} MB "
                f"= {large / small:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
