"""conformance.cli.dask_validate on a real Dask cluster (a LocalCluster of two worker processes on 127.0.0.1): the
report gathered from the workers is the one `eris validate` writes over the same files in one process."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from project_paths import ROOT

from conformance.cli import main
from conformance.cli.dask_validate import validate_bag, validate_partition, write_report

db = pytest.importorskip("dask.bag", reason="the dask extra is not installed (pip install -e '.[dask]')")
distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install -e '.[dask]')")

EXAMPLES = ROOT / "tests" / "data" / "examples"
CONTRACTOR = json.loads((EXAMPLES / "party-contractor.json").read_text())


def _line(file: int, number: int) -> str:
    if number % 29 == 7:
        return '{"resourceType": "Party", "id": "x", "id": "y"}'
    if number % 31 == 3:
        return "{broken"
    document = json.loads(json.dumps(CONTRACTOR))
    document["id"] = f"f{file}-{number}"
    if number % 11 == 0:
        document["status"] = "active"  # a plain string where the contract has a CodeableConcept
    return json.dumps(document)


@pytest.fixture
def exports(tmp_path: Path) -> list[str]:
    paths = []
    for file in range(4):
        path = tmp_path / f"export-{file}.ndjson"
        lines = [_line(file, number) for number in range(120 + 40 * file)]
        lines.insert(5, "")
        path.write_bytes(("\r\n".join(lines) + "\n").encode() + (b'{"name": "\xe9"}\n' if file == 2 else b""))
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    try:
        with distributed.Client(cluster) as connected:
            yield connected
    finally:
        cluster.close()


def _single_process(paths: list[str], output: str, capsys) -> str:  # type: ignore[no-untyped-def]
    main(["validate", "--jobs", "1", "--format", output, *paths])
    return capsys.readouterr().out


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_a_cluster_reports_what_one_process_reports(client, exports, output, capsys):
    lines = db.read_text(exports, include_path=True, errors="surrogateescape")
    assert lines.npartitions == len(exports)
    results = client.compute(validate_bag(lines)).result()
    stream = io.StringIO()
    tally = write_report(results, output, stream)
    assert stream.getvalue() == _single_process(exports, output, capsys)
    assert tally.documents > 400 and tally.invalid > 30 and tally.unreadable > 10


def test_the_workers_did_the_checking(client, exports):
    """Each partition is checked in a worker process, not in the test's."""
    lines = db.read_text(exports, include_path=True, errors="surrogateescape")
    pids = client.compute(lines.map_partitions(lambda part: [__import__("os").getpid()])).result()
    assert __import__("os").getpid() not in pids
    assert len(set(client.run(lambda: __import__("os").getpid()).values())) == 2


def test_plain_lines_are_checked_as_one_unnamed_source():
    (found,) = validate_partition(['{"resourceType": "Party"}\n', "\n", "[\n"])
    assert found.clean == 0
    (payload, issues), problem = found.reported
    assert (payload.source, payload.line, problem.line) == ("<partition>", 1, 3)
    assert issues and problem.message.startswith("invalid JSON")
