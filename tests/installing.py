"""Helpers of the tests that install eris as its users do (tests/ci/): commands whose output is kept for the failure
message, and a user's environment."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def run(command: list[str], **options) -> subprocess.CompletedProcess[str]:
    """A command whose output is shown when it fails: pytest shows only the assertion otherwise."""
    done = subprocess.run(command, capture_output=True, text=True, check=False, **options)
    assert done.returncode == 0, f"{' '.join(command)} ended {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def outside_the_checkout(bin_dir: Path) -> dict[str, str]:
    """The environment of a user with `bin_dir` first on PATH, nothing of this checkout importable."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env
