"""`eris validate --jobs 2` against `--jobs 1` in many pairs: the scaling figure of issue 16, with its spread.

    python bench/jobs_ratio.py [--count 100000] [--pairs 25] [--stdin] [--against CLONE ...]

validate_cli.py gives the ratio of two medians of a few runs. This machine's speed drifts by a quarter within an
hour, so that figure moves by ±0.05 from one run to the next: more than a change to `--jobs` is worth. Here each
pair runs `--jobs 1` and `--jobs 2` back to back, their order alternating, and the script prints the median of the
pairs' ratios with its quartiles.

With `--against`, each named checkout runs in turn with this one, through PYTHONPATH, on the same corpus: a change
measured side by side. The checkout is a clone of another commit.

The corpus is bench/corpus.py's, written as NDJSON (not timed); `--stdin` pipes it to `eris validate -` through
`cat`, as `zcat export.ndjson.gz | eris validate -` would, instead of naming the file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))  # after the project: bench/reports.py is no package

from corpus import served
from machine import checkout_state, load_average

ERIS = Path(sys.executable).parent / "eris"
GOAL_SCALING = 1.8
AS_INSTALLED = {
    name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
}
"""As validate_cli.py runs it: from bytecode, as installed; PYTHONPATH is set per checkout."""


def _write_corpus(path: Path, count: int, seed: int) -> None:
    with path.open("w", encoding="utf-8") as corpus:
        for _, document in served(count, seed):
            corpus.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")


def _seconds(corpus: Path, jobs: int, checkout: str | None, stdin: bool) -> float:
    environment = dict(AS_INSTALLED, **({"PYTHONPATH": checkout} if checkout else {}))
    command = [str(ERIS), "validate", "--jobs", str(jobs), "-" if stdin else str(corpus)]
    start = time.perf_counter()
    if stdin:  # a pipe, as from zcat: not a file the command could read at any offset
        cat = subprocess.Popen(["cat", str(corpus)], stdout=subprocess.PIPE)
        finished = subprocess.run(command, stdin=cat.stdout, stdout=subprocess.DEVNULL, env=environment)
        cat.stdout.close()
        cat.wait()
    else:
        finished = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=environment)
    seconds = time.perf_counter() - start
    if finished.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed with exit status {finished.returncode}")
    return seconds


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 4], statistics.median(ordered), ordered[(3 * len(ordered)) // 4]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="documents of the NDJSON corpus (default 100000)")
    parser.add_argument("--pairs", type=int, default=25, help="pairs of --jobs 1 and --jobs 2 a checkout (default 25)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stdin", action="store_true", help="pipe the corpus to `eris validate -` (through cat)")
    parser.add_argument(
        "--against", action="append", default=[], metavar="CLONE", help="another checkout to run in turns with this one"
    )
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.count < 1:
        parser.error("--pairs and --count must be at least 1")
    for clone in args.against:
        if not (Path(clone) / "conformance" / "cli").is_dir():
            parser.error(f"--against {clone}: not a checkout of eris (no conformance/cli in it)")
    checkouts: list[tuple[str, str | None]] = [("this checkout", None)]
    checkouts += [(clone, str(Path(clone).resolve())) for clone in args.against]

    print(f"eris commit {checkout_state(['conformance', 'profiles', 'schemas'], 'the validator')}")
    print(f"cpus usable: {len(os.sched_getaffinity(0))}; load average before: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="eris-bench-jobs-") as scratch:
        corpus = Path(scratch) / "corpus.ndjson"
        _write_corpus(corpus, args.count, args.seed)
        print(
            f"corpus: {args.count:,} documents as NDJSON ({corpus.stat().st_size / 1e6:.0f} MB), "
            f"{'piped to stdin' if args.stdin else 'named as a file'}; {args.pairs} pairs a checkout"
        )
        for _, checkout in checkouts:
            _seconds(corpus, 1, checkout, args.stdin)  # not timed: writes the bytecode, as an install does
        times: dict[str | None, dict[int, list[float]]] = {checkout: {1: [], 2: []} for _, checkout in checkouts}
        for pair in range(args.pairs):
            turn = checkouts if pair % 2 == 0 else checkouts[::-1]
            for _, checkout in turn:
                for jobs in (1, 2) if pair % 2 == 0 else (2, 1):
                    times[checkout][jobs].append(_seconds(corpus, jobs, checkout, args.stdin))

    print()
    for label, checkout in checkouts:
        one, two = times[checkout][1], times[checkout][2]
        low, ratio, high = _quartiles([a / b for a, b in zip(one, two, strict=True)])
        verdict = "met" if ratio >= GOAL_SCALING else "NOT met"
        print(
            f"{label}: --jobs 1 {statistics.median(one):.3f} s ({args.count / statistics.median(one):,.0f}/s), "
            f"--jobs 2 {statistics.median(two):.3f} s; --jobs 2 / --jobs 1 of each pair: median {ratio:.3f}x "
            f"(quartiles {low:.3f}-{high:.3f}; goal >= {GOAL_SCALING}x: {verdict})"
        )
    print(f"load average after: {load_average()} (2 shared cores: other work slows every figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
