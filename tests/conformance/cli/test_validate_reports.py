"""The reports of `eris validate` are the ones recorded before the writers and the explanation of findings were made
faster (issue 39): byte for byte, in every format, with one job and with two. The inputs and the recording:
tests/validate_reports.py (payloads of bench/corpus.py with faults and warnings, and every case file's payloads)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from validate_reports import FORMATS, inputs_digest, read_fixture, report, write_inputs

from conformance.cli import units

RECORDED = read_fixture()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    folder = tmp_path_factory.mktemp("reports")
    runs = write_inputs(folder)
    if inputs_digest(folder) != RECORDED["inputs"]:
        pytest.fail("the inputs differ from those of the recorded reports: record them (tests/validate_reports.py)")
    return folder, runs


def test_the_recording_holds_findings_of_every_severity() -> None:
    """A fixture that recorded nothing would hold any writer to nothing."""
    severities = {
        issue["severity"]
        for run in RECORDED["runs"].values()
        for result in json.loads(run["json"])["results"]
        for issue in result["issues"]
    }
    assert severities == {"error", "warning", "information"}


@pytest.mark.parametrize("output", FORMATS)
@pytest.mark.parametrize("name", sorted(RECORDED["runs"]))
def test_report_is_the_recorded_one(inputs: tuple[Path, dict[str, list[str]]], name: str, output: str) -> None:
    folder, runs = inputs
    assert runs[name] == RECORDED["runs"][name]["arguments"]
    _assert_same(report(folder, runs[name], output), RECORDED["runs"][name][output])


@pytest.mark.parametrize("output", FORMATS)
def test_report_of_two_jobs_is_the_recorded_one(
    inputs: tuple[Path, dict[str, list[str]]], output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small units, so that the workers take many each and the command writes what they encoded."""
    monkeypatch.setattr(units, "LINES_BYTES", 16 * 1024)
    monkeypatch.setattr(units, "FILES_PER_BATCH", 7)
    folder, runs = inputs
    _assert_same(report(folder, runs["corpus"], output, jobs=2), RECORDED["runs"]["corpus"][output])


def _assert_same(written: str, recorded: str) -> None:
    if written == recorded:
        return
    lines, expected = written.splitlines(), recorded.splitlines()
    first = next((n for n, pair in enumerate(zip(lines, expected, strict=False)) if pair[0] != pair[1]), None)
    if first is None:
        first = min(len(lines), len(expected))
    context = slice(max(first - 3, 0), first + 3)
    raise AssertionError(
        f"the report differs from line {first + 1} on ({len(lines)} lines written, {len(expected)} recorded)\n"
        f"written:\n" + "\n".join(lines[context]) + "\nrecorded:\n" + "\n".join(expected[context])
    )
