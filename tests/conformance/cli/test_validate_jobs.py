"""`eris validate --jobs N`: inputs of many units of work (NDJSON beyond one unit, folders of many files, a large
array, stdin) give the same report, byte for byte, whatever N, and that report is the one of checking each payload
on its own, at the right line, pointer and file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_paths import ROOT

from conformance.cli import main, units
from conformance.cli import validate as validate_command
from conformance.cli.checking import Checker, Span, renumbered
from conformance.cli.parallel import IN_FLIGHT_PER_JOB
from profiles.validator import Validator

EXAMPLES = ROOT / "tests" / "data" / "examples"
CONTRACTOR = json.loads((EXAMPLES / "party-contractor.json").read_text())
NOTIFICATION = json.loads((EXAMPLES / "notification.json").read_text())


def _payload(number: int) -> dict:
    """Valid payloads, every 37th without its id (an error), every 53rd with a status code out of its value set."""
    document = json.loads(json.dumps(NOTIFICATION if number % 3 == 0 else CONTRACTOR))
    document["id"] = f"p-{number}"
    if number % 37 == 0:
        del document["id"]
    if number % 53 == 0 and "status" in document and isinstance(document["status"], dict):
        document["status"]["coding"][0]["code"] = "gone"
    return document


@pytest.fixture
def small_units(monkeypatch):
    """Units of a few kilobytes and a few files, so that a test input makes many of them."""
    monkeypatch.setattr(units, "LINES_BYTES", 8 * 1024)
    monkeypatch.setattr(units, "FILES_PER_BATCH", 5)
    monkeypatch.setattr(units, "PAYLOADS_PER_BATCH", 7)
    monkeypatch.setattr(units, "SMALL_FILE_BYTES", 4 * 1024)


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    lines = []
    for number in range(400):
        lines.append(json.dumps(_payload(number)))
        if number % 41 == 0:
            lines.append("")  # blank lines are skipped, and counted
        if number % 97 == 0:
            lines.append('{"resourceType": "Party", "id": "twice", "id": "again"}')
        if number % 113 == 0:
            lines.append('{"resourceType": ')
    ndjson = tmp_path / "export.ndjson"
    ndjson.write_text("\ufeff" + "\r\n".join(lines) + "\n", encoding="utf-8")
    folder = tmp_path / "folder"
    for number in range(60):
        (folder / f"d{number // 20}").mkdir(parents=True, exist_ok=True)
        (folder / f"d{number // 20}" / f"{number:03}.json").write_text(json.dumps(_payload(number)))
    (folder / "d1" / "latin1.json").write_bytes(b'{"name": "\xe9"}')
    (folder / "d2" / "array.json").write_text(json.dumps([_payload(n) for n in range(30, 90)], indent=1))
    (folder / "d2" / "lines.jsonl").write_text("\n".join(json.dumps(_payload(n)) for n in range(20)))
    return [str(ndjson), str(folder), str(tmp_path / "missing.json")]


def _run(args: list[str], capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    code = main(["validate", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_the_report_is_the_same_whatever_the_number_of_jobs(small_units, inputs, capsys, output):
    one = _run(["--jobs", "1", "--format", output, *inputs], capsys)
    two = _run(["--jobs", "2", "--format", output, *inputs], capsys)
    three = _run(["--jobs", "3", "--format", output, *inputs], capsys)
    assert one == two == three
    assert one[0] == 2  # unreadable inputs


def test_each_finding_is_the_one_of_its_payload_at_its_line(small_units, inputs, capsys):
    _, text = _run(["--jobs", "2", inputs[0]], capsys)
    validator = Validator()
    expected = []  # (the start of the line, a text it holds)
    lines = Path(inputs[0]).read_text(encoding="utf-8-sig").split("\n")
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        try:
            document = json.loads(line)
        except json.JSONDecodeError:
            expected.append((f"{inputs[0]}:{number}:", "error: cannot be read: invalid JSON"))
            continue
        if line.count('"id"') == 2:
            expected.append((f"{inputs[0]}:{number}: ", "the member 'id' appears twice"))
            continue
        for issue in validator.validate(document):
            where = issue.location or "(root)"
            expected.append(
                (f"{inputs[0]}:{number}:{where}: ", f"{issue.severity.value}: {issue.message} [{issue.code}]")
            )
    *found, summary = text.splitlines()
    assert len(found) == len(expected) > 20
    for got, (start, held) in zip(found, expected, strict=True):
        assert got.startswith(start) and held in got
    assert summary.startswith("400 document(s) checked")


def test_json_and_sarif_written_as_they_come_are_what_json_dump_writes(small_units, inputs, capsys):
    for output, ascii_only in (("json", False), ("sarif", True)):
        _, text = _run(["--jobs", "2", "--format", output, *inputs], capsys)
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=ascii_only) + "\n"


def test_stdin_ndjson_over_many_units_is_checked_by_workers_in_order(tmp_path, inputs):
    command = [sys.executable, "-m", "conformance.cli", "validate", "--format", "json"]
    data = Path(inputs[0]).read_bytes().removeprefix("\ufeff".encode()) * 20  # 1.6 MB: two units of a megabyte
    one = subprocess.run([*command, "--jobs", "1", "-"], input=data, capture_output=True, check=False)
    two = subprocess.run([*command, "--jobs", "2", "-"], input=data, capture_output=True, check=False)
    assert one.returncode == two.returncode == 2, one.stderr  # the broken lines
    assert one.stdout == two.stdout
    report = json.loads(two.stdout)
    assert report["summary"]["documents"] == 20 * 400
    assert [entry["line"] for entry in report["results"]] == sorted(entry["line"] for entry in report["results"])


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_whole_number(value, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["validate", "--jobs", value, str(EXAMPLES / "notification.json")])
    assert stop.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_large_array_on_stdin_is_read_across_reads_cut_inside_a_character(tmp_path):
    """An array (not NDJSON) on stdin is read by the streaming reader from the bytes already read and the rest;
    the first read of 1 MiB ends inside a two-byte character."""
    documents = []
    for number in range(1500):
        document = _payload(number)
        document["note"] = "zażółć gęślą jaźń " * (number % 7)
        documents.append(document)
    cut = 1 << 20
    data = json.dumps(documents, ensure_ascii=False, indent=1).encode()
    inside = max(i for i in range(cut - 5000, cut + 1) if data[i] & 0xC0 == 0x80)  # a character's second byte
    documents[0]["note"] = " " * (cut - inside)  # moves that byte to the cut
    data = json.dumps(documents, ensure_ascii=False, indent=1).encode()
    assert len(data) > cut and data[cut] & 0xC0 == 0x80
    command = [sys.executable, "-m", "conformance.cli", "validate", "--format", "json"]
    one = subprocess.run([*command, "--jobs", "1", "-"], input=data, capture_output=True, check=False)
    two = subprocess.run([*command, "--jobs", "2", "-"], input=data, capture_output=True, check=False)
    assert one.stdout == two.stdout, two.stderr
    report = json.loads(two.stdout)
    assert report["summary"]["documents"] == 1500 and report["summary"]["unreadable"] == 0
    validator = Validator()
    expected = [f"/{n}" for n, document in enumerate(documents) if validator.validate(document)]
    assert [entry["pointer"] for entry in report["results"]] == expected


def test_a_batch_of_files_ends_at_its_byte_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(units, "BATCH_BYTES", 100)
    for number in range(5):
        (tmp_path / f"{number}.json").write_text(json.dumps({"n": "x" * 60}))  # 69 bytes each
    batches = list(units.units([str(tmp_path)]))
    assert [len(batch.paths) for batch in batches] == [2, 2, 1]
    assert [Path(name).name for batch in batches for name in batch.paths] == [f"{n}.json" for n in range(5)]


def test_the_units_read_ahead_of_the_report_are_bounded_whatever_the_input(small_units, inputs, monkeypatch, capsys):
    """Memory flat as the input grows: the command reads units only as far ahead of the report as the pool holds."""
    taken, reported, ahead = [0], [0], []

    def counted_units(*args, **kwargs):
        for unit in units.units(*args, **kwargs):
            taken[0] += 1
            ahead.append(taken[0] - reported[0])
            yield unit

    def counted_results(results):
        for checked in renumbered(results):
            reported[0] += 1
            yield checked

    monkeypatch.setattr(validate_command, "units", counted_units)
    monkeypatch.setattr(validate_command, "renumbered", counted_results)
    _run(["--jobs", "2", *inputs], capsys)
    assert taken[0] > 5 * IN_FLIGHT_PER_JOB * 2  # many more units than may be in flight
    assert max(ahead) <= IN_FLIGHT_PER_JOB * 2


_COMMAND = os.getpid()
_ENDED_AT = 3 * 8 * 1024
"""The start of the fourth span of the NDJSON input (small_units cuts spans of 8 KiB)."""


def _ending_its_worker_at_the_fourth_span(checker, unit):  # type: ignore[no-untyped-def]
    if isinstance(unit, Span) and unit.start == _ENDED_AT and os.getpid() != _COMMAND:
        os._exit(3)
    return _CHECK(checker, unit)


_CHECK = Checker.check


def _lines_before_the_fourth_span(report: str, ndjson: str) -> list[str]:
    data = Path(ndjson).read_bytes()
    first = data[:_ENDED_AT].count(b"\n") + 1 + (data[_ENDED_AT - 1 : _ENDED_AT] != b"\n")
    return [line for line in report.splitlines() if line.startswith(ndjson) and int(line.split(":")[1]) < first]


def test_a_worker_that_dies_is_one_clear_line_after_every_finding_before_its_unit(
    small_units, inputs, monkeypatch, capsys
):
    _, whole = _run(["--jobs", "1", inputs[0]], capsys)
    monkeypatch.setattr(Checker, "check", _ending_its_worker_at_the_fourth_span)
    code = main(["validate", "--jobs", "2", inputs[0]])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err == (
        f"eris: a worker process ended unexpectedly (exit status 3) while checking {inputs[0]} from byte {_ENDED_AT}; "
        "the report stops before it, without its summary\n"
    )
    kept = _lines_before_the_fourth_span(whole, inputs[0])
    assert len(kept) > 3
    assert captured.out.splitlines() == kept  # every finding before the unit, in order; no summary


def test_a_worker_that_dies_leaves_no_report_file(small_units, inputs, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(Checker, "check", _ending_its_worker_at_the_fourth_span)
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()
    code = main(["validate", "--jobs", "2", "--format", "json", "--output", str(report), inputs[0]])
    assert code == 2
    assert capsys.readouterr().err.endswith(f"from byte {_ENDED_AT}; {report} was not written\n")
    assert list(report.parent.iterdir()) == []  # nor its temporary file


def _failing_in_the_worker(checker, unit):  # type: ignore[no-untyped-def]
    if os.getpid() != _COMMAND:
        raise ZeroDivisionError("a defect of eris")
    return _CHECK(checker, unit)


def test_a_defect_raised_in_a_worker_is_one_line_not_a_traceback(small_units, inputs, monkeypatch, capsys):
    monkeypatch.setattr(Checker, "check", _failing_in_the_worker)
    monkeypatch.delenv("ERIS_DEBUG", raising=False)
    code = main(["validate", "--jobs", "2", inputs[0]])
    assert code == 2
    err = capsys.readouterr().err
    assert err == "eris: ZeroDivisionError: a defect of eris (ERIS_DEBUG=1 shows the traceback)\n"
