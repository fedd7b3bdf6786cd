"""`eris validate` end to end on clean payloads, on payloads with one warning each and on a realistic mix, in every
output format and with one and two jobs, beside check-jsonschema on the same files, in one run.

    python bench/validate_cli.py [--count 200000] [--files 5000] [--repeat 5] [--seed 1] [--dask]

`--count` is large enough that the command's start (about 0.2 s: Python, the contract, the gates built before the
workers fork) is a few per cent of a run, as in the exports of millions of payloads `eris validate` is made for; at
50,000 it was a fifth of a run with two jobs, and no pool could double the rest.

Writes (not timed) three NDJSON files of bench/warned_corpus.py: `--count` served payloads eris finds nothing about,
their twins with exactly one warning each (an identifier of another installation or in a key the configuration does
not name, an owner by PESEL, a NIP check digit), and the mix in which 22% of the payloads are warned; and the first
`--files` payloads of the mix as files of one resource each, a folder per resource type. Then times, as a user runs
them (a new process each, the report to /dev/null), in turns so that a slower minute of the shared machine weighs on
every figure alike:

1. `eris validate --jobs 1 --format F` over each NDJSON file, for F in text, json and sarif;
2. `eris validate --jobs 2 --format F` over the mix;
3. `eris validate` (one and two jobs) over the folder, and check-jsonschema (PyPI) with the same schema files over
   the same folder: one invocation per resource type with that type's schema (`--schemafile`, `--base-uri` at the
   file so that references stay local), files in batches of 2,000. check-jsonschema reads no NDJSON (a file is one
   document) and knows no profile rule: it checks the structure only;
4. with `--dask`, the Dask integration (conformance/cli/dask_validate.py) over the mix cut into 8 files on a
   LocalCluster of 1 and of 2 workers.

Each figure is the median of `--repeat` runs, payloads a second; then the ratios of issue 39, each the median of the
ratios of its two commands' runs in each turn (run one after the other, seconds apart: the speed of the shared machine
drifts by a fifth over a run): a warned payload's cost against a clean one's (goal <= 2), the mix's rate against the
clean rate (goal >= 0.8), and two jobs against one on the mix (goal >= 1.8).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))  # after the project: bench/reports.py is no package

from machine import checkout_state, load_average
from warned_corpus import MIX_SHARE, corpora

from profiles.validator import Validator

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FORMATS = ("text", "json", "sarif")
CORPORA = ("clean", "warned", "mix")
PAIRED_ORDER = ("warned", "clean", "mix")
"""The corpora in the order they run in a turn: each ratio's two runs adjacent, seconds apart."""
GOAL_FINDING_COST = 2.0
GOAL_MIX_RATE = 0.8
GOAL_SCALING = 1.8
CHECK_JSONSCHEMA_BATCH = 2_000
DASK_PARTITIONS = 8
AS_INSTALLED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
"""The commands run as installed: pip compiles a package's modules at install, so a user's eris starts from bytecode.
(An environment with PYTHONDONTWRITEBYTECODE set, as this machine's is, compiled them at every start: ~0.03 s.)"""


def _timed(command: list[str]) -> tuple[float, int, int, float]:
    """Seconds, exit status, peak RSS (KiB) of the command's own process, and CPU seconds of it and its workers."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=AS_INSTALLED)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{command[:3]} failed ({process.returncode}): {process.stderr.read().decode()[-2000:]}")
    return elapsed, process.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def _eris(paths: list[str], output: str, jobs: int) -> list[str]:
    return [str(BIN / "eris"), "validate", "--jobs", str(jobs), "--format", output, *paths]


Turns = dict[str, list[tuple[float, float]]]
"""Of each command, its seconds and CPU seconds (the command's and its workers') in each turn."""


def _in_turns(commands: dict[str, list[str]], repeat: int) -> Turns:
    """Each command `repeat` times, all of them in turns (the order reversed every other round)."""
    runs: Turns = {name: [] for name in commands}
    names = list(commands)
    for turn in range(repeat):
        for name in names if turn % 2 == 0 else reversed(names):
            seconds, _, _, cpu = _timed(commands[name])
            runs[name].append((seconds, cpu))
    return runs


def _ratios(turns: Turns, numerator: str, denominator: str, cpu: bool = False) -> list[float]:
    """The turns' ratios of two commands' seconds: the two runs of a turn follow each other, so a slower minute of
    the shared machine weighs on both."""
    at = 1 if cpu else 0
    return [top[at] / bottom[at] for top, bottom in zip(turns[numerator], turns[denominator], strict=True)]


def _ratio(turns: Turns, numerator: str, denominator: str, cpu: bool = False) -> float:
    return statistics.median(_ratios(turns, numerator, denominator, cpu))


def _spread(turns: Turns, numerator: str, denominator: str) -> str:
    """The quartiles of the turns' ratios: how far one run's figure may stray on this machine."""
    ratios = _ratios(turns, numerator, denominator)
    if len(ratios) < 2:
        return ""
    low, _, high = statistics.quantiles(ratios, n=4, method="inclusive")
    return f" ({low:.2f}-{high:.2f})"


def _check_jsonschema(by_type: dict[str, list[str]], schemas: dict[str, str], repeat: int) -> tuple[float, int]:
    """Seconds for every file with its type's schema, and how many invocations failed (files with errors)."""
    times, failed = [], 0
    for _ in range(repeat):
        total, failed = 0.0, 0
        for resource_type, files in by_type.items():
            schema = ROOT / "schemas" / schemas[resource_type]
            for start in range(0, len(files), CHECK_JSONSCHEMA_BATCH):
                command = [str(BIN / "check-jsonschema"), "--schemafile", str(schema), "--base-uri", schema.as_uri()]
                seconds, status, _, _ = _timed([*command, *files[start : start + CHECK_JSONSCHEMA_BATCH]])
                total += seconds
                failed += status
        times.append(total)
    return statistics.median(times), failed


def _dask(parts: list[str], workers: int, repeat: int) -> float | None:
    try:
        import dask.bag as db
        import distributed
    except ImportError:
        return None
    from conformance.cli.dask_validate import validate_bag, validate_partition, write_report

    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    try:
        with distributed.Client(cluster) as client:
            client.run(validate_partition, ['{"resourceType": "Party"}\n'])  # each worker builds its validator
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                lines = db.read_text(parts, include_path=True, errors="surrogateescape")
                write_report(client.compute(validate_bag(lines)).result(), "text", io.StringIO())
                times.append(time.perf_counter() - start)
    finally:
        cluster.close()
    return statistics.median(times)


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _met(holds: bool) -> str:
    return "met" if holds else "NOT met"


def _write_corpora(root: Path, count: int, files: int, seed: int) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """The three NDJSON files, and the mix's first `files` payloads as files (their paths by resource type)."""
    lines = dict(zip(CORPORA, corpora(count, seed), strict=True))
    paths = {name: root / f"{name}.ndjson" for name in CORPORA}
    for name, path in paths.items():
        path.write_text("\n".join(lines[name]) + "\n", encoding="utf-8")
    by_type: dict[str, list[str]] = defaultdict(list)
    for index, line in enumerate(lines["mix"][:files]):
        resource_type = json.loads(line)["resourceType"]
        (root / "files" / resource_type).mkdir(parents=True, exist_ok=True)
        path = root / "files" / resource_type / f"{index:07}.json"
        path.write_text(line, encoding="utf-8")
        by_type[resource_type].append(str(path))
    for part in range(DASK_PARTITIONS):
        with (root / f"part-{part}.ndjson").open("w", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines["mix"][part::DASK_PARTITIONS]))
    return paths, by_type


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200_000, help="payloads of each NDJSON file (default 200000)")
    parser.add_argument("--files", type=int, default=5_000, help="payloads of the mix written as files (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each eris figure (default 5)")
    parser.add_argument("--baseline-repeat", type=int, default=1, help="runs of check-jsonschema (default 1)")
    parser.add_argument("--dask", action="store_true", help="also time the Dask integration on 1 and 2 workers")
    args = parser.parse_args(argv)
    if shutil.which("check-jsonschema", path=str(BIN)) is None:
        parser.error(f"check-jsonschema is not installed in {BIN}: pip install check-jsonschema")

    print(f"eris commit {checkout_state(['conformance', 'profiles', 'schemas'], 'the validator')}")
    print(
        f"python {sys.version.split()[0]}; orjson {_version('orjson')}, jsonschema-rs {_version('jsonschema_rs')}, "
        f"check-jsonschema {_version('check-jsonschema')}"
    )
    print(f"cpus usable: {len(os.sched_getaffinity(0))}; load average before: {load_average()}")
    schemas = {name: rules.schema for name, rules in Validator().contract.resources.items() if rules.schema}

    with tempfile.TemporaryDirectory(prefix="eris-bench-cli-") as scratch:
        root = Path(scratch)
        started = time.perf_counter()
        ndjson, by_type = _write_corpora(root, args.count, args.files, args.seed)
        files = sum(len(paths) for paths in by_type.values())
        print(
            f"corpus: {args.count:,} payloads in each of clean, warned (one warning each) and mix ({MIX_SHARE:.0%} "
            f"warned) NDJSON ({ndjson['clean'].stat().st_size / 1e6:.0f} MB each); {files:,} payloads of the mix "
            f"also as files; written in {time.perf_counter() - started:.0f} s (not timed)"
        )
        for command in ([str(BIN / "eris"), "validate", str(root / "files")], [str(BIN / "check-jsonschema"), "-h"]):
            _timed(command)  # not timed: writes the bytecode of every module they import, as an install does

        # in each format the two commands of every ratio run one after the other: warned, clean, mix, mix -j2
        commands = {}
        for output in FORMATS:
            for name in PAIRED_ORDER:
                commands[f"{name} {output} 1"] = _eris([str(ndjson[name])], output, 1)
            commands[f"mix {output} 2"] = _eris([str(ndjson["mix"])], output, 2)
        commands |= {f"files text {jobs}": _eris([str(root / "files")], "text", jobs) for jobs in (1, 2)}
        turns = _in_turns(commands, args.repeat)
        seconds = {name: statistics.median(run[0] for run in runs) for name, runs in turns.items()}
        rates = {name: (files if name.startswith("files") else args.count) / value for name, value in seconds.items()}
        print(f"\npayloads/s, medians of {args.repeat} runs in turns:")
        print(f"{'format':8} {'clean':>9} {'warned':>9} {'mix':>9} {'mix -j2':>9}")
        for output in FORMATS:
            row = [rates[f"{name} {output} 1"] for name in CORPORA] + [rates[f"mix {output} 2"]]
            print(f"{output:8} " + " ".join(f"{rate:9,.0f}" for rate in row))
        baseline, failed = _check_jsonschema(by_type, schemas, args.baseline_repeat)
        print(
            f"files of the mix ({files:,}): eris --jobs 1 {rates['files text 1']:,.0f}/s, --jobs 2 "
            f"{rates['files text 2']:,.0f}/s; check-jsonschema {files / baseline:,.0f}/s ({failed} of its invocations "
            f"found errors): eris is {rates['files text 1'] * baseline / files:.0f}x with one job"
        )
        if args.dask:
            parts = [str(root / f"part-{part}.ndjson") for part in range(DASK_PARTITIONS)]
            for workers in (1, 2):
                dask_seconds = _dask(parts, workers, args.repeat)
                if dask_seconds is None:
                    print("dask: not installed (pip install -e '.[dask]')")
                    break
                print(f"dask, LocalCluster of {workers} worker(s), the mix: {args.count / dask_seconds:,.0f}/s")

    print("\nratios of issue 39 (each the median of its turns' ratios of two runs, their quartiles in brackets):")
    for output in FORMATS:
        clean, warned, mix = (f"{name} {output} 1" for name in CORPORA)
        two_jobs = f"mix {output} 2"
        cost, mix_rate, scaling = _ratio(turns, warned, clean), _ratio(turns, clean, mix), _ratio(turns, mix, two_jobs)
        print(
            f"{output:6} a warned payload costs {cost:.2f}x{_spread(turns, warned, clean)} a clean one (goal <= "
            f"{GOAL_FINDING_COST:g}: {_met(cost <= GOAL_FINDING_COST)}); the mix runs at {mix_rate:.2f}x"
            f"{_spread(turns, clean, mix)} the clean rate (goal >= {GOAL_MIX_RATE:g}: {_met(mix_rate >= GOAL_MIX_RATE)}"
            f"); --jobs 2 / --jobs 1 on the mix {scaling:.2f}x{_spread(turns, mix, two_jobs)} (goal >= "
            f"{GOAL_SCALING:g}: {_met(scaling >= GOAL_SCALING)})"
        )
    print("\nthe same by CPU seconds (the command's and its workers'; steadier than the clock on a busy machine):")
    for output in FORMATS:
        clean, warned, mix = (f"{name} {output} 1" for name in CORPORA)
        print(
            f"{output:6} a warned payload {_ratio(turns, warned, clean, cpu=True):.2f}x a clean one's CPU; the mix "
            f"{_ratio(turns, clean, mix, cpu=True):.2f}x the clean rate; --jobs 2 costs "
            f"{_ratio(turns, f'mix {output} 2', mix, cpu=True):.2f}x the CPU of --jobs 1 on the mix"
        )
    print(f"load average after: {load_average()} (2 shared cores: other work slows every figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
