"""The same verdict from every seed: the embedded reference implementation and each conformant variant certified
with many seeds of the property phase (issue 27, point 6).

    python bench/seeds.py [--seeds 20] [--first-seed 1] [--target reference|variants|VARIANT ...]
                          [--mode auto|full|properties] [--jobs 1] [--examples 12] [--keep DIR]

A run is `eris certify --seed S` as a user starts it (a subprocess), of the checkout this file is in: run it from a
clone of a commit (`git clone`, then the project's venv) to measure that commit while others edit theirs. Modes:

- **full**: the whole certification; what is compared is the verdict and the failed MUST requirements.
- **properties**: only the tests that draw from the seed (SEEDED_TESTS); the verdict of such a selection is
  always incomplete, so what is compared is the set of failed MUST requirements. The seed changes nothing
  else, so this covers a target's seeds at about half the cost.

`--mode auto` (the default) certifies the reference implementation in full and the variants in the properties
mode. Prints one line per run as it ends, then per target: the outcome of each seed, whether it ever flipped, and
every failed MUST requirement with its seeds. Exit 0 when no target flipped or failed, 1 otherwise, 2 when a run
could not be made.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
# bench/ is first on the path when this file runs as a script, and bench/reports.py would hide the reports
# package that the reference implementation imports; the checkout's own packages go before an editable install
sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench")]

from conformance.deviations import VARIANT, catalogue  # noqa: E402

REFERENCE = "reference"
EVERY_VARIANT = "variants"
FULL, PROPERTIES, AUTO = "full", "properties", "auto"
SEEDED_TESTS = "properties or orders_with_one_fault"
"""-k expression of the tests that take the property budget's seed: the property phase
(conformance/suite/properties/) and the drawn faulty report orders of conformance/suite/reports/test_errors.py."""
RUN_TIMEOUT = 900.0


@dataclass(frozen=True)
class Run:
    target: str
    mode: str
    seed: int
    verdict: str = ""
    failed: tuple[str, ...] = ()
    seconds: float = 0.0
    error: str = ""
    """Why the run gave no verdict (exit 2, a timeout); empty when it gave one."""

    @property
    def outcome(self) -> str:
        """What is compared between seeds: the verdict in full mode, the failed MUST set in both."""
        failed = ", ".join(self.failed) or "no MUST failed"
        if self.error:
            return f"run failed: {self.error}"
        return f"{self.verdict}: {failed}" if self.mode == FULL else failed


def certify(target: str, mode: str, seed: int, examples: int, report_dir: Path) -> Run:
    command = [sys.executable, "-m", "conformance.cli", "certify", "--quiet", "--report-dir", str(report_dir)]
    command += ["--seed", str(seed), "--examples", str(examples)]
    if target != REFERENCE:
        command += ["--variant", target]
    if mode == PROPERTIES:
        command += ["-k", SEEDED_TESTS]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Run(target, mode, seed, seconds=RUN_TIMEOUT, error=f"no verdict within {RUN_TIMEOUT:.0f} s")
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1, 3):
        report_dir.mkdir(parents=True, exist_ok=True)
        log = report_dir / "eris.log"
        log.write_text(done.stdout + done.stderr, encoding="utf-8")
        lines = (done.stderr or done.stdout).strip().splitlines()
        last = lines[-1] if lines else f"exit {done.returncode}"
        return Run(target, mode, seed, seconds=seconds, error=f"{last} [{log}]")
    summary = json.loads((report_dir / "certification.json").read_text(encoding="utf-8"))["summary"]
    return Run(target, mode, seed, summary["verdict"], tuple(sorted(summary["failed_must"])), seconds)


def target_report(runs: list[Run]) -> list[str]:
    """The seeds of one target: each seed's outcome, whether it flipped, and the seeds of each failed MUST."""
    runs = sorted(runs, key=lambda run: run.seed)
    outcomes = Counter(run.outcome for run in runs)
    flipped = len(outcomes) > 1
    head = f"{runs[0].target} ({runs[0].mode}, {len(runs)} seeds): "
    if not flipped:
        lines = [head + f"no flip; every seed: {runs[0].outcome}"]
    else:
        lines = [head + f"FLIPPED between {len(outcomes)} outcomes"]
        for outcome, count in outcomes.most_common():
            seeds = [run.seed for run in runs if run.outcome == outcome]
            lines.append(f"    {count:2} seed(s) {_seeds(seeds)}: {outcome}")
    by_requirement: dict[str, list[int]] = {}
    for run in runs:
        for requirement in run.failed:
            by_requirement.setdefault(requirement, []).append(run.seed)
    for requirement, seeds in sorted(by_requirement.items()):
        lines.append(f"    {requirement} failed with {len(seeds)} of {len(runs)} seeds: {_seeds(seeds)}")
    return lines


def _seeds(seeds: list[int]) -> str:
    return " ".join(str(seed) for seed in seeds)


def _targets(parser: argparse.ArgumentParser, chosen: list[str] | None) -> list[str]:
    variants = [d.name for d in catalogue(VARIANT)]
    if not chosen:
        return [REFERENCE, *variants]
    unknown = [name for name in chosen if name not in (REFERENCE, EVERY_VARIANT, *variants)]
    if unknown:
        known = ", ".join([REFERENCE, EVERY_VARIANT, *variants])
        parser.error(f"no conformant variant is named {', '.join(unknown)}; known: {known}")
    expanded = [name for entry in chosen for name in (variants if entry == EVERY_VARIANT else [entry])]
    return list(dict.fromkeys(expanded))


def _mode(target: str, mode: str) -> str:
    if mode != AUTO:
        return mode
    return FULL if target == REFERENCE else PROPERTIES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per target (default 20)")
    parser.add_argument("--first-seed", type=int, default=1, help="the seeds are this one and the next (default 1)")
    parser.add_argument(
        "--target",
        action="append",
        metavar="NAME",
        help=f"'{REFERENCE}', a conformant variant of `eris deviations`, or '{EVERY_VARIANT}' for all of them "
        "(repeatable; default: the reference and every variant)",
    )
    parser.add_argument(
        "--mode",
        choices=[AUTO, FULL, PROPERTIES],
        default=AUTO,
        help="full certification, or the seeded tests only; auto: full for the reference, properties for variants",
    )
    parser.add_argument("--jobs", type=int, default=1, help="certifications at a time (default 1)")
    parser.add_argument("--examples", type=int, default=12, help="examples per property (default 12, as certify)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep each run's outputs in DIR/<target>/seed-<S>")
    args = parser.parse_args()
    if args.seeds < 1 or args.jobs < 1 or args.examples < 1:
        parser.error("--seeds, --jobs and --examples must be 1 or more")
    if not 0 <= args.first_seed <= 2**32 - args.seeds:
        parser.error(f"--first-seed must be between 0 and {2**32 - args.seeds}")
    targets = _targets(parser, args.target)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    state = checkout_state(["conformance", "reference_impl"], "the suite or the reference implementation")
    print(f"machine: load {load_average()}; commit {state}")
    print(
        f"{len(targets)} target(s) x {args.seeds} seeds ({seeds[0]}..{seeds[-1]}), --examples {args.examples}, "
        f"{args.jobs} at a time; properties mode: -k '{SEEDED_TESTS}'",
        flush=True,
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="eris-seeds-") as scratch, ThreadPoolExecutor(args.jobs) as pool:
        root = args.keep or Path(scratch)
        futures = [
            pool.submit(certify, target, _mode(target, args.mode), seed, args.examples, root / target / f"seed-{seed}")
            for target in targets
            for seed in seeds
        ]
        runs = []
        for future in as_completed(futures):
            run = future.result()
            runs.append(run)
            print(f"  {run.target:40} seed {run.seed:<6} {run.seconds:6.1f} s  {run.outcome}", flush=True)
    print()
    flips = failing = 0
    for target in targets:
        mine = [run for run in runs if run.target == target]
        flips += len({run.outcome for run in mine}) > 1
        failing += any(run.failed or run.error for run in mine)
        print("\n".join(target_report(mine)))
    broken = sum(bool(run.error) for run in runs)
    print(
        f"\n{len(runs)} runs, {len(targets)} targets: {flips} flipped, {failing} failed a MUST requirement with some "
        f"seed, {broken} runs gave no verdict; wall time {time.monotonic() - started:.0f} s; load {load_average()}"
    )
    if broken:
        return 2
    return 1 if flips or failing else 0


if __name__ == "__main__":
    sys.exit(main())
