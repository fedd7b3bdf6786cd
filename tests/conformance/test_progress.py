"""The progress of eris certify (conformance/run/progress.py) as a real pytest run reports it: a bar on a terminal (a
real pseudo-terminal here), plain lines elsewhere and in CI."""

from __future__ import annotations

import io
import os

import pytest
from pseudo_terminal import pseudo_terminal

from conformance.run.progress import BAR, LINES, RunProgress, progress_mode

SUITE = {
    "suite/reads/test_a.py": "def test_one():\n    pass\n\ndef test_two():\n    assert False\n",
    "suite/master_data/test_b.py": (
        "import pytest\n\n@pytest.mark.parametrize('n', range(8))\ndef test_many(n):\n    pass\n"
    ),
}


@pytest.fixture
def suite(tmp_path):
    for name, text in SUITE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / "suite"


def _run(suite, progress: RunProgress) -> None:  # type: ignore[no-untyped-def]
    with open(os.devnull, "w") as quiet, pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", quiet)
        # importlib: each test's suite has modules of the same names as the last one's
        arguments = [str(suite), "-q", "-p", "no:cacheprovider", "--import-mode=importlib", f"--rootdir={suite.parent}"]
        pytest.main(arguments, plugins=[progress])


def test_plain_lines_name_the_parts_and_every_tenth_of_the_run(suite):
    out = io.StringIO()
    _run(suite, RunProgress(out, LINES))
    lines = out.getvalue().splitlines()
    assert lines[0] == "eris certify: 10 tests in 2 parts of the contract"
    assert "eris certify: part master data" in lines and "eris certify: part reads" in lines
    counted = [line for line in lines if "/10 tests" in line]
    assert counted[-1].startswith("eris certify: 10/10 tests (100%), 1 failed")
    assert len(counted) == 10  # one line a tenth: ten tests


def test_a_terminal_gets_a_bar_and_ci_gets_lines(suite, monkeypatch):
    monkeypatch.setenv("COLUMNS", "150")
    monkeypatch.delenv("CI", raising=False)
    with pseudo_terminal() as (terminal, shown):
        assert progress_mode(terminal) == BAR
        _run(suite, RunProgress(terminal, BAR))
        monkeypatch.setenv("CI", "true")
        assert progress_mode(terminal) == LINES
    text = shown.decode("utf-8", "replace")
    assert "tests, 1 failed" in text and "10/10" in text
    assert progress_mode(io.StringIO()) == LINES
