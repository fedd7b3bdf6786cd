"""The reports of `eris validate` on a fixed set of inputs, recorded before the writers and the explanation were made
faster (issue 39), so that tests/conformance/cli/test_validate_reports.py can hold today's reports to them byte for
byte: every code, pointer, message, severity and requirement, in every format.

The inputs: payloads of bench/corpus.py (a fifth of them with one fault) each followed by its twins with one warning of
bench/warned_corpus.py, as NDJSON, as one JSON array and as a folder of files; and the payloads of every case file of
tests/cases, one NDJSON file per set of options (type, context, profile). Each run is `eris validate` with its options
in every output format.

    PYTHONPATH=tests python -m validate_reports     # from the checkout: records tests/data/validate-reports.json.gz
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from case_files import load_tests
from project_paths import DATA_DIR, ROOT

__all__ = ["FIXTURE", "FORMATS", "RUNS_OF_CORPUS", "read_fixture", "report", "write_inputs"]

FIXTURE = DATA_DIR / "validate-reports.json.gz"
FORMATS = ("text", "json", "sarif")
CORPUS_SEED = 39
CORPUS_COUNT = 500
FAULT_SHARE = 0.2
EDGES = (
    # what encoders write differently: non-ASCII (SARIF escapes it), beyond the BMP, control characters, U+2028, DEL,
    # quotes and backslashes, in member names (the pointer) and in values a message quotes
    {"resourceType": "Party", "id": "e-1", "zażółć": 1, 'a\nb\u2028\u007f"\\': 2, "\u001f\t": 3, "\U0001f600": 4},
    {"resourceType": "Party", "id": "e-2", "status": {"coding": [{"system": "x", "code": "żółw \U0001f422"}]}},
    {"resourceType": "Lokacja \u2028", "id": "e-3"},
)
RUNS_OF_CORPUS = {
    "corpus": ["corpus.ndjson", "edges.ndjson", "array.json", "files"],
    "corpus --strict": ["--strict", "corpus.ndjson"],
    "corpus --write": ["--write", "corpus.ndjson"],
}


def _bench_modules() -> Any:
    """bench/corpus.py and bench/warned_corpus.py (bench/ is no package: its scripts put it on the path too)."""
    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.append(bench)
    import corpus
    import warned_corpus

    return corpus, warned_corpus


def _corpus_documents() -> Iterator[Any]:
    corpus, warned_corpus = _bench_modules()
    rng = random.Random(CORPUS_SEED)
    for _, document, _ in corpus.generate_labelled(CORPUS_COUNT, CORPUS_SEED, FAULT_SHARE):
        if "resourceType" not in document:
            continue  # a report order: its key is made anew by each process
        yield document
        yield from warned_corpus.twins(document, rng)


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_inputs(folder: Path) -> dict[str, list[str]]:
    """The inputs, written into `folder`; the runs, by name: the arguments of `eris validate` before --format, with
    paths relative to `folder`."""
    documents = list(_corpus_documents())
    (folder / "corpus.ndjson").write_text("".join(_line(d) + "\n" for d in documents), encoding="utf-8")
    (folder / "array.json").write_text(json.dumps(documents[:60], indent=1, ensure_ascii=False), encoding="utf-8")
    files = folder / "files"
    files.mkdir()
    for index, document in enumerate(documents[60:140]):
        (files / f"{index:03}.json").write_text(_line(document), encoding="utf-8")
    (files / "źródło.json").write_text(_line(EDGES[1]), encoding="utf-8")
    (folder / "edges.ndjson").write_text("".join(_line(d) + "\n" for d in EDGES), encoding="utf-8")
    runs = dict(RUNS_OF_CORPUS)
    groups: dict[tuple[tuple[str, Any], ...], list[Any]] = {}
    for test in load_tests():
        groups.setdefault(tuple(sorted(test.options().items())), []).append(test.data)
    for number, (options, data) in enumerate(sorted(groups.items())):
        name = f"cases-{number:02}.ndjson"
        (folder / name).write_text("".join(_line(value) + "\n" for value in data), encoding="utf-8")
        arguments = []
        for option, value in options:
            if option == "context":
                arguments += ["--write"] if value == "write" else []
            else:
                arguments += [f"--{option.replace('_', '-')}", value]
        runs[f"cases {' '.join(arguments) or '(resource)'} {name}"] = [*arguments, name]
    return runs


def inputs_digest(folder: Path) -> str:
    """One digest of every input file: a fixture recorded from other inputs says so instead of differing."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def report(folder: Path, arguments: list[str], output: str, jobs: int = 1) -> str:
    """The report of `eris validate --format output` over inputs of `folder`, run in this process from `folder`."""
    from conformance.cli import main

    target = folder / f".report-{output}"
    with contextlib.chdir(folder):
        status = main(["validate", "--jobs", str(jobs), "--format", output, "-o", target.name, *arguments])
    if status not in (0, 1):
        raise AssertionError(f"eris validate {' '.join(arguments)} exited with {status}")
    text = target.read_text(encoding="utf-8")
    target.unlink()
    return text


def read_fixture() -> dict[str, Any]:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))


def _record() -> None:
    import tempfile

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix="eris-reports-") as scratch:
        folder = Path(scratch)
        runs = write_inputs(folder)
        recorded = {
            "provenance": f"eris validate at commit {commit.stdout.strip()}, recorded by tests/validate_reports.py",
            "inputs": inputs_digest(folder),
            "runs": {
                name: {"arguments": arguments, **{output: report(folder, arguments, output) for output in FORMATS}}
                for name, arguments in runs.items()
            },
        }
    FIXTURE.write_bytes(gzip.compress(json.dumps(recorded, ensure_ascii=False, indent=0).encode(), mtime=0))
    print(f"{FIXTURE.relative_to(ROOT)}: {len(recorded['runs'])} runs, {FIXTURE.stat().st_size:,} bytes")


if __name__ == "__main__":
    _record()
