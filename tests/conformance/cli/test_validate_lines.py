"""`eris validate` over NDJSON read in runs of lines: what a line reports does not depend on how the lines were cut,
read or parsed together (CRLF lines, lines beside a broken one, the boundaries of the units)."""

from __future__ import annotations

import json

import pytest
from project_paths import ROOT

from conformance.cli import main, units

EXAMPLES = ROOT / "tests" / "data" / "examples"
CONTRACTOR = json.loads((EXAMPLES / "party-contractor.json").read_text())


def _report(args: list[str], capsys) -> dict:  # type: ignore[no-untyped-def]
    main(["validate", "--format", "json", *args])
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def lines_units(monkeypatch):
    """Every NDJSON file read as runs of lines (not as a small file), of a few kilobytes."""
    monkeypatch.setattr(units, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(units, "LINES_BYTES", 4 * 1024)


def test_a_broken_crlf_line_is_reported_at_the_column_of_its_text_without_the_carriage_return(
    lines_units, tmp_path, capsys
):
    """strict_json reads the carriage return as a space and would place 'Expecting value' one column further."""
    line = json.dumps(CONTRACTOR)
    lf, crlf = tmp_path / "lf.ndjson", tmp_path / "crlf.ndjson"
    lf.write_bytes(f'{line}\n{{"a":\n{line}\n'.encode())
    crlf.write_bytes(f'{line}\r\n{{"a":\r\n{line}\r\n'.encode())
    expected = [{"source": str(lf), "message": "invalid JSON: Expecting value", "line": 2, "column": 6}]
    assert _report([str(lf)], capsys)["unreadable"] == expected
    assert _report([str(crlf)], capsys)["unreadable"] == [{**expected[0], "source": str(crlf)}]


def _lines_file(tmp_path, name: str) -> str:  # type: ignore[no-untyped-def]
    """NDJSON with what a cut may fall into: a byte-order mark, characters of two and three bytes, CRLF lines, blank
    lines, a broken line, a line that is not UTF-8, a duplicate member, and a last line without a newline."""
    invalid = dict(CONTRACTOR, id="bad", note="zażółć gęślą jaźń €")
    del invalid["id"]
    lines = [
        json.dumps(CONTRACTOR, ensure_ascii=False).encode(),
        json.dumps(dict(CONTRACTOR, note="zażółć gęślą jaźń €"), ensure_ascii=False).encode() + b"\r",
        json.dumps(invalid, ensure_ascii=False).encode(),
        b"",
        b'{"resourceType": "Party", "note": "\xe9"}',
        b'{"resourceType": ',
        b"   \r",
        b'{"resourceType": "Party", "id": "x", "id": "y"}\r',
        json.dumps(invalid, ensure_ascii=False).encode() + b"\r",
        json.dumps(invalid, ensure_ascii=False).encode(),
    ]
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines))
    return str(path)


@pytest.mark.parametrize("suffix", [".ndjson", ".json"])
@pytest.mark.parametrize("span_bytes", [1, 2, 3, 7, 100, 1 << 20])
def test_spans_cut_at_any_byte_report_as_the_file_read_whole(suffix, span_bytes, tmp_path, monkeypatch, capsys):
    """The .ndjson file read whole as a small file is the reference; cut into spans of every size down to one byte,
    each cut falls once inside a character, at a line's end, between CR and LF, inside the mark and the last line. A
    large .json file of NDJSON is cut alike. (A small .json file is read by the streaming reader, as text: its line
    that is not UTF-8 would make all of it unreadable.)"""
    reference = _report([_lines_file(tmp_path, "reference.ndjson")], capsys)
    assert reference["summary"] == {
        "documents": 5, "invalid": 4, "unreadable": 3, "errors": 7, "warnings": 0, "information": 0
    }  # fmt: skip
    assert [entry["line"] for entry in reference["results"]] == [2, 3, 9, 10]  # "note" is no member of a Party
    path = _lines_file(tmp_path, "export" + suffix)
    expected = json.loads(json.dumps(reference).replace("reference.ndjson", "export" + suffix))
    monkeypatch.setattr(units, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(units, "LINES_BYTES", span_bytes)
    assert _report(["--jobs", "1", path], capsys) == expected
    assert _report(["--jobs", "2", path, path], capsys)["results"] == expected["results"] * 2


def test_a_line_longer_than_many_spans_is_read_once_by_the_span_it_begins_in(tmp_path, monkeypatch, capsys):
    path = tmp_path / "long.ndjson"
    long = dict(CONTRACTOR, note="x" * 5000)
    del long["id"]
    path.write_text("\n".join(json.dumps(document) for document in (CONTRACTOR, long, CONTRACTOR, long)) + "\n")
    monkeypatch.setattr(units, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(units, "LINES_BYTES", 256)
    report = _report([str(path)], capsys)
    assert report["summary"]["documents"] == 4
    assert [entry["line"] for entry in report["results"]] == [2, 4]


def test_the_last_spans_of_the_run_are_cut_in_four(tmp_path, monkeypatch):
    """So that the processes of --jobs end together. Only the run's last spans: those of a file before another stay
    whole. The spans of each file still follow each other from its first byte to its end."""
    first, last = tmp_path / "a.ndjson", tmp_path / "b.ndjson"
    first.write_bytes(b"x" * 1000)
    last.write_bytes(b"x" * 1000)
    monkeypatch.setattr(units, "SMALL_FILE_BYTES", 0)
    monkeypatch.setattr(units, "LINES_BYTES", 100)
    spans = list(units.units([str(first), str(last)]))
    for path, whole in ((first, [100] * 9), (last, [100] * 7 + [25] * 11)):
        starts = [span.start for span in spans if span.source == str(path)]
        ends = [span.end for span in spans if span.source == str(path)]
        assert starts[0] == 0 and ends[:-1] == starts[1:] and ends[-1] is None
        assert [end - start for start, end in zip(starts[:-1], ends[:-1], strict=True)] == whole
        assert starts[-1] == (900 if path == first else 975)
