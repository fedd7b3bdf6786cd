"""The type check: mypy over profiles/, reports/ and conformance/ as [tool.mypy] of pyproject.toml says, clean.

Marked `typecheck`, so that it can run alone (`pytest -m typecheck`), and `slow`, so that CI's main step starts it
first, beside the other slow tests, rather than in a step of its own on one core."""

import subprocess
import sys

import pytest
from project_paths import ROOT


@pytest.mark.typecheck
@pytest.mark.slow
def test_mypy_finds_nothing():
    # the files, the settings and the modules left out are pyproject's: a test that named them would be a second
    # list to keep; mypy keeps its incremental cache in .mypy_cache (which ignores itself for git)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-color-output"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, f"mypy found type errors:\n{result.stdout}{result.stderr}"
