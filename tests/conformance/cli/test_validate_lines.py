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
