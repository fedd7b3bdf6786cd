"""tests/accelerators.py: a test of a C module that was not built is skipped saying why, and fails instead where CI
demands the modules (ERIS_REQUIRE_COMPILED=1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from project_paths import ROOT

_TEST = """
from accelerators import compiled_or_skip

missing = compiled_or_skip("_not_a_module", "the Python code runs")


def test_never_reached():
    raise AssertionError("ran without its module")
"""


def _pytest(tmp_path: Path, required: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_missing_module.py").write_text(_TEST)
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'tests'}{os.pathsep}{ROOT}"}
    env.pop("ERIS_REQUIRE_COMPILED", None)
    if required:
        env["ERIS_REQUIRE_COMPILED"] = "1"
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)


def test_a_module_not_built_skips_its_tests_saying_so(tmp_path):
    done = _pytest(tmp_path, required=False)
    assert done.returncode == 5, done.stdout  # pytest's "no tests ran": the module skipped, not failed
    assert "profiles._not_a_module was not built (no C compiler at install): the Python code runs" in done.stdout
    assert "1 skipped" in done.stdout


def test_a_module_not_built_fails_where_ci_requires_them(tmp_path):
    done = _pytest(tmp_path, required=True)
    assert done.returncode != 0, done.stdout
    assert "ERIS_REQUIRE_COMPILED=1 but profiles._not_a_module was not built" in done.stdout
