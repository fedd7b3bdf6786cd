"""`eris validate` shows its progress on stderr when stderr is a terminal (a real pseudo-terminal here), and
nothing when it is not; the report on stdout is the same either way."""

from __future__ import annotations

import json
import sys

import pytest
from project_paths import ROOT
from pseudo_terminal import pseudo_terminal

from conformance.cli import main, progress

CONTRACTOR = json.loads((ROOT / "tests" / "data" / "examples" / "party-contractor.json").read_text())


@pytest.fixture
def export(tmp_path):
    path = tmp_path / "export.ndjson"
    lines = []
    for number in range(300):
        document = dict(CONTRACTOR, id=f"c-{number}")
        if number % 10 == 0:
            document.pop("id")
        lines.append(json.dumps(document))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _run_with_stderr(stream, export, capsys):  # type: ignore[no-untyped-def]
    saved = sys.stderr
    sys.stderr = stream
    try:
        code = main(["validate", "--jobs", "1", export])
    finally:
        sys.stderr = saved
    return code, capsys.readouterr().out


def test_a_terminal_sees_the_progress_and_the_report_is_unchanged(export, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)
    monkeypatch.setenv("COLUMNS", "160")
    with pseudo_terminal() as (terminal, shown):
        code, report = _run_with_stderr(terminal, export, capsys)
    text = shown.decode("utf-8", "replace")
    assert "eris validate" in text and "documents" in text and "invalid" in text
    plain = tmp_path / "stderr.txt"
    with plain.open("w", encoding="utf-8") as not_a_terminal:
        assert _run_with_stderr(not_a_terminal, export, capsys) == (code, report)
    assert plain.read_text() == ""
    assert code == 1 and report.endswith("300 document(s) checked: 30 invalid, 30 error(s), 0 warning(s)\n")
