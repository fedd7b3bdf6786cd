"""`eris validate` end to end, side by side with check-jsonschema, and on a Dask cluster, in one run.

    python bench/validate_cli.py [--count 100000] [--export 192038] [--files 20000] [--repeat 3] [--seed 1]

Writes the corpus of bench/corpus.py (not timed; without its report orders, which have no resourceType) as one
NDJSON file, as the NDJSON export of issue 16 (`--export` documents, the corpus's and more: 170 MB), and as `--files`
files of one resource each (a folder per resource type), then times, as a user runs them (a new process each, output
to /dev/null):

1. `eris validate --jobs 1` and `--jobs 2`, in turns, over the NDJSON file, the export and the folder;
2. check-jsonschema (PyPI), with the same schema files, over the same folder: one invocation per resource type with
   that type's schema (`--schemafile`, `--base-uri` at the file so that references stay local), files given in
   batches of 2,000. check-jsonschema reads no NDJSON (a file is one document), so the NDJSON figure has no peer;
3. the Dask integration (conformance/cli/dask_validate.py) on a LocalCluster of 1 and of 2 worker processes over
   the NDJSON cut into 8 files: `validate_bag(...).compute()` and `write_report`, the cluster started and each
   worker's validator built before the clock starts.

Each figure: the median of `--repeat` runs (check-jsonschema: `--baseline-repeat`, default 1), documents per
second, and the peak RSS of the command's own process. Then the ratios against the goals of issue 16.
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

from corpus import served
from machine import checkout_state, load_average

from profiles.validator import Validator

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GOAL_PER_CORE = 60_000
GOAL_SCALING = 1.8
GOAL_FILES_RATIO = 50
CHECK_JSONSCHEMA_BATCH = 2_000
EXPORT_DOCUMENTS = 192_038
"""The NDJSON export issue 16 describes (192,038 documents, 170 MB): the per-core and --jobs figures are given at its
size too, as each process's start (~0.1 s: the interpreter, the imports, each process's gates compiled) weighs less
on a longer run."""
DASK_PARTITIONS = 8


AS_INSTALLED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
"""The commands run as installed: pip compiles a package's modules at install, so a user's eris starts from bytecode.
(An environment with PYTHONDONTWRITEBYTECODE set, as this machine's is, compiled them at every start: ~0.03 s.)"""


def _timed(command: list[str]) -> tuple[float, int, int]:
    """Seconds, exit status and peak RSS (KiB) of the command's own process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=AS_INSTALLED)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{command[:3]} failed ({process.returncode}): {process.stderr.read().decode()[-2000:]}")
    return elapsed, process.returncode, usage.ru_maxrss


def _eris_interleaved(paths: list[str], repeat: int) -> dict[int, tuple[float, int]]:
    """--jobs 1 and --jobs 2 in turns (1, 2, 1, 2...), so that a slower minute of the shared machine weighs on both:
    for each, the median seconds and the largest peak RSS."""
    runs: dict[int, list[tuple[float, int, int]]] = {1: [], 2: []}
    for _ in range(repeat):
        for jobs in runs:
            runs[jobs].append(_timed([str(BIN / "eris"), "validate", "--jobs", str(jobs), *paths]))
    return {
        jobs: (statistics.median(seconds for seconds, _, _ in timed), max(rss for _, _, rss in timed))
        for jobs, timed in runs.items()
    }


def _check_jsonschema(by_type: dict[str, list[str]], schemas: dict[str, str], repeat: int) -> tuple[float, int]:
    """Seconds for every file with its type's schema, and how many invocations failed (files with errors)."""
    times, failed = [], 0
    for _ in range(repeat):
        total, failed = 0.0, 0
        for resource_type, files in by_type.items():
            schema = ROOT / "schemas" / schemas[resource_type]
            for start in range(0, len(files), CHECK_JSONSCHEMA_BATCH):
                command = [
                    str(BIN / "check-jsonschema"),
                    "--schemafile",
                    str(schema),
                    "--base-uri",
                    schema.as_uri(),
                    *files[start : start + CHECK_JSONSCHEMA_BATCH],
                ]
                seconds, status, _ = _timed(command)
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


def _rate(documents: int, seconds: float) -> str:
    return f"{documents / seconds:,.0f}/s"


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="documents of the NDJSON file (default 100000)")
    parser.add_argument(
        "--export",
        type=int,
        default=EXPORT_DOCUMENTS,
        help=f"documents of a second NDJSON file, the export of issue 16 (default {EXPORT_DOCUMENTS}, 170 MB; 0: none)",
    )
    parser.add_argument("--files", type=int, default=20_000, help="documents written as files (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each eris and Dask figure (default 3)")
    parser.add_argument("--baseline-repeat", type=int, default=1, help="runs of check-jsonschema (default 1)")
    args = parser.parse_args(argv)
    if shutil.which("check-jsonschema", path=str(BIN)) is None:
        parser.error(f"check-jsonschema is not installed in {BIN}: pip install check-jsonschema")

    print(f"eris commit {checkout_state(['conformance', 'profiles', 'schemas'], 'the validator')}")
    print(
        f"python {sys.version.split()[0]}; orjson {_version('orjson')}, jsonschema-rs {_version('jsonschema_rs')}, "
        f"check-jsonschema {_version('check-jsonschema')}, dask {_version('dask')}"
    )
    print(f"cpus usable: {len(os.sched_getaffinity(0))}; load average before: {load_average()}")
    schemas = {name: rules.schema for name, rules in Validator().contract.resources.items() if rules.schema}

    with tempfile.TemporaryDirectory(prefix="eris-bench-cli-") as scratch:
        root = Path(scratch)
        ndjson = root / "corpus.ndjson"
        export = root / "export.ndjson"
        folder = root / "files"
        by_type: dict[str, list[str]] = defaultdict(list)
        parts = [root / f"part-{n}.ndjson" for n in range(DASK_PARTITIONS)]
        started = time.perf_counter()
        largest = max(args.count, args.export)
        with ndjson.open("w", encoding="utf-8") as whole, export.open("w", encoding="utf-8") as exported:
            handles = [part.open("w", encoding="utf-8") for part in parts]
            for index, (resource_type, document) in enumerate(served(largest, args.seed)):
                line = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
                if index < args.export:
                    exported.write(line + "\n")  # the same payloads as the corpus, then more
                if index >= args.count:
                    continue
                whole.write(line + "\n")
                handles[index % DASK_PARTITIONS].write(line + "\n")
                if index < args.files:
                    (folder / resource_type).mkdir(parents=True, exist_ok=True)
                    path = folder / resource_type / f"{index:07}.json"
                    path.write_text(line, encoding="utf-8")
                    by_type[resource_type].append(str(path))
            for handle in handles:
                handle.close()
        files = sum(len(paths) for paths in by_type.values())
        print(
            f"corpus: {args.count:,} documents as NDJSON ({ndjson.stat().st_size / 1e6:.0f} MB), the first {files:,} "
            f"also as files; the export: {args.export:,} documents as NDJSON ({export.stat().st_size / 1e6:.0f} MB); "
            f"written in {time.perf_counter() - started:.0f} s (not timed)"
        )

        for command in ([str(BIN / "eris"), "validate", str(folder)], [str(BIN / "check-jsonschema"), "--version"]):
            _timed(command)  # not timed: writes the bytecode of every module they import, as an install does
        print("each command ran once before the clock, so that both start from bytecode, as installed")

        figures: dict[str, float] = {}
        measured = [("NDJSON", [str(ndjson)], args.count), ("files", [str(folder)], files)]
        if args.export:
            measured.insert(1, ("export", [str(export)], args.export))
        for label, paths, documents in measured:
            for jobs, (seconds, rss) in _eris_interleaved(paths, args.repeat).items():
                figures[f"{label} {jobs}"] = documents / seconds
                print(
                    f"eris validate --jobs {jobs}, {label}: {seconds:.2f} s, {_rate(documents, seconds)}, "
                    f"peak RSS {rss / 1024:.0f} MiB"
                )
        seconds, failed = _check_jsonschema(by_type, schemas, args.baseline_repeat)
        figures["check-jsonschema"] = files / seconds
        print(
            f"check-jsonschema, files: {seconds:.2f} s, {_rate(files, seconds)} "
            f"({failed} of its invocations found errors); NDJSON: not read by check-jsonschema"
        )
        for workers in (1, 2):
            seconds_dask = _dask([str(part) for part in parts], workers, args.repeat)
            if seconds_dask is None:
                print("dask: not installed (pip install -e '.[dask]')")
                break
            figures[f"dask {workers}"] = args.count / seconds_dask
            print(f"dask, LocalCluster of {workers} worker(s), NDJSON: {seconds_dask:.2f} s, "
                  f"{_rate(args.count, seconds_dask)}")  # fmt: skip

    print()
    for label, documents in (("NDJSON", args.count), ("export", args.export)):
        if f"{label} 1" not in figures:
            continue
        per_core, scaling = figures[f"{label} 1"], figures[f"{label} 2"] / figures[f"{label} 1"]
        print(f"{label} ({documents:,} documents) end to end, per core: {per_core:,.0f}/s (goal >= {GOAL_PER_CORE:,}: "
              f"{'met' if per_core >= GOAL_PER_CORE else 'NOT met'}); --jobs 2 / --jobs 1: {scaling:.2f}x "
              f"(goal >= {GOAL_SCALING}x: {'met' if scaling >= GOAL_SCALING else 'NOT met'})")  # fmt: skip
    files_ratio = figures["files 1"] / figures["check-jsonschema"]
    files_ratio_2 = figures["files 2"] / figures["check-jsonschema"]
    print(f"eris / check-jsonschema, files: {files_ratio:.0f}x with --jobs 1, {files_ratio_2:.0f}x with --jobs 2 "
          f"(goal >= {GOAL_FILES_RATIO}x: {'met' if files_ratio_2 >= GOAL_FILES_RATIO else 'NOT met'})")  # fmt: skip
    if "dask 2" in figures:
        print(f"dask 2 workers / 1 worker: {figures['dask 2'] / figures['dask 1']:.2f}x")
    print(f"load average after: {load_average()} (2 shared cores: other work slows every figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
