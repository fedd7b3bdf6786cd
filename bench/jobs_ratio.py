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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))  # after the project: bench/reports.py is no package

from corpus import served
from machine import checkout_state, load_average

ERIS = Path(sys.executable).parent / "eris"
GOAL_SCALING = 1.7
AS_INSTALLED = {
    name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
}
"""As validate_cli.py runs it: from bytecode, as installed; PYTHONPATH is set per checkout."""


def _write_corpus(path: Path, count: int, seed: int) -> None:
    with path.open("w", encoding="utf-8") as corpus:
        for _, document in served(count, seed):
            corpus.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float
    """User and system time of the command and of the workers it reaped."""
    peak_mib: float
    """Peak RSS of the command or of one of its workers, the largest."""


def _run(corpus: Path, jobs: int, checkout: str | None, stdin: bool) -> Run:
    environment = dict(AS_INSTALLED, **({"PYTHONPATH": checkout} if checkout else {}))
    command = [str(ERIS), "validate", "--jobs", str(jobs), "-" if stdin else str(corpus)]
    cat = subprocess.Popen(["cat", str(corpus)], stdout=subprocess.PIPE) if stdin else None  # a pipe, as from zcat
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=cat.stdout if cat else subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=environment
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if cat is not None:
        assert cat.stdout is not None
        cat.stdout.close()
        cat.wait()
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed with exit status {process.returncode}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


@dataclass(frozen=True)
class Instructions:
    before_fork: int
    """The command's, up to its last fork (all of them with --jobs 1)."""
    workers: list[int]
    """Each worker's own, from its fork."""
    after_fork: int
    """The command's, after its last fork."""

    def critical_path(self, jobs: int) -> float:
        return self.before_fork + (sum(self.workers) + self.after_fork) / jobs


def _instructions(corpus: Path, jobs: int, checkout: str | None, stdin: bool, folder: Path) -> Instructions:
    environment = dict(AS_INSTALLED, **({"PYTHONPATH": checkout} if checkout else {}))
    out = folder / f"callgrind-{len(list(folder.iterdir()))}"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        "--zero-before=PyOS_AfterFork_Child",  # a worker's counts start at its fork
        "--dump-before=PyOS_AfterFork_Parent",  # the command's counts up to each fork in a part of their own
        f"--callgrind-out-file={out}.%p",
        str(ERIS),
        "validate",
        "--jobs",
        str(jobs),
        "-" if stdin else str(corpus),
    ]
    with corpus.open("rb") if stdin else open(os.devnull, "rb") as source:
        process = subprocess.Popen(
            command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment
        )
        _, errors = process.communicate()
    if process.returncode not in (0, 1):
        raise SystemExit(f"valgrind {' '.join(command[-4:])} failed: {errors.decode()[-2000:]}")
    counts: dict[str, int] = {}
    for path in folder.glob(f"{out.name}.*"):
        summary = next(line for line in path.read_text().splitlines() if line.startswith("summary:"))
        counts[path.name.removeprefix(f"{out.name}.")] = int(summary.split()[1])
    command_pid = str(process.pid)  # valgrind runs the command in its own process
    parts = [count for name, count in counts.items() if name.startswith(f"{command_pid}.")]
    workers = [count for name, count in counts.items() if "." not in name and name != command_pid]
    if not parts:  # it never forked
        return Instructions(counts[command_pid], [], 0)
    return Instructions(sum(parts), workers, counts[command_pid])


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 4], statistics.median(ordered), ordered[(3 * len(ordered)) // 4]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="documents of the NDJSON corpus (default 100000)")
    parser.add_argument("--pairs", type=int, default=25, help="pairs of --jobs 1 and --jobs 2 a checkout (default 25)")
    parser.add_argument(
        "--instructions", action="store_true", help="count the instructions of each mode once (valgrind's callgrind)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stdin", action="store_true", help="pipe the corpus to `eris validate -` (through cat)")
    parser.add_argument(
        "--against", action="append", default=[], metavar="CLONE", help="another checkout to run in turns with this one"
    )
    args = parser.parse_args(argv)
    if args.pairs < (0 if args.instructions else 1) or args.count < 1:
        parser.error("--pairs (but with --instructions) and --count must be at least 1")
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (apt-get install valgrind)")
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
            _run(corpus, 1, checkout, args.stdin)  # not timed: writes the bytecode, as an install does
        runs: dict[str | None, dict[int, list[Run]]] = {checkout: {1: [], 2: []} for _, checkout in checkouts}
        for pair in range(args.pairs):
            turn = checkouts if pair % 2 == 0 else checkouts[::-1]
            for _, checkout in turn:
                for jobs in (1, 2) if pair % 2 == 0 else (2, 1):
                    runs[checkout][jobs].append(_run(corpus, jobs, checkout, args.stdin))
        counted: dict[str | None, dict[int, Instructions]] = {}
        for _, checkout in checkouts if args.instructions else ():
            with tempfile.TemporaryDirectory(prefix="callgrind-", dir=scratch) as folder:
                counted[checkout] = {
                    jobs: _instructions(corpus, jobs, checkout, args.stdin, Path(folder)) for jobs in (1, 2)
                }

    print()
    for label, checkout in checkouts:
        if checkout in counted:
            _print_instructions(label, counted[checkout])
        one, two = runs[checkout][1], runs[checkout][2]
        if not one:
            continue
        low, ratio, high = _quartiles([a.seconds / b.seconds for a, b in zip(one, two, strict=True)])
        verdict = "met" if ratio >= GOAL_SCALING else "NOT met"
        seconds_one, seconds_two = (statistics.median(run.seconds for run in runs) for runs in (one, two))
        cpu_one, cpu_two = (statistics.median(run.cpu_seconds for run in runs) for runs in (one, two))
        peak_one, peak_two = (max(run.peak_mib for run in runs) for runs in (one, two))
        print(
            f"{label}: --jobs 1 {seconds_one:.3f} s ({args.count / seconds_one:,.0f}/s), --jobs 2 {seconds_two:.3f} s; "
            f"--jobs 2 / --jobs 1 of each pair: median {ratio:.3f}x (quartiles {low:.3f}-{high:.3f}; "
            f"floor >= {GOAL_SCALING}x: {verdict})"
        )
        print(
            f"{' ' * len(label)}  CPU seconds (medians) --jobs 1 {cpu_one:.3f}, --jobs 2 {cpu_two:.3f} "
            f"(+{cpu_two - cpu_one:.3f} s, {cpu_two / cpu_one - 1:+.1%}); "
            f"peak RSS of a process {peak_one:.0f} / {peak_two:.0f} MiB"
        )
    print(f"load average after: {load_average()} (2 shared cores: other work slows every figure)")
    return 0


def _print_instructions(label: str, counted: dict[int, Instructions]) -> None:
    one, two = counted[1].critical_path(1), counted[2]
    path = two.critical_path(2)
    verdict = "met" if one / path >= GOAL_SCALING else "NOT met"
    print(
        f"{label}: instructions --jobs 1 {one / 1e9:.3f} G; --jobs 2: before the fork {two.before_fork / 1e9:.3f} G, "
        f"workers {' + '.join(f'{count / 1e9:.3f}' for count in two.workers)} G, the command after the fork "
        f"{two.after_fork / 1e9:.3f} G (+{(two.critical_path(1) - one) / one:.1%} in all); critical path "
        f"{path / 1e9:.3f} G: projected ratio {one / path:.3f}x (floor >= {GOAL_SCALING}x: {verdict})"
    )


if __name__ == "__main__":
    sys.exit(main())
