"""Where the project's files are, for tests in any folder of tests/."""

import os
import subprocess
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
ROOT = TESTS_DIR.parent
CASES_DIR = TESTS_DIR / "cases"
DATA_DIR = TESTS_DIR / "data"


def eris_command() -> list[str]:
    """The `eris` command of the environment running the tests (the module where no script was installed)."""
    import sys

    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def run_certify(*arguments: str, timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`eris certify` with these arguments as a user runs it, its output captured; no input, no warnings of the
    libraries it imports (a test reads its lines)."""
    return subprocess.run(
        [*eris_command(), "certify", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        stdin=subprocess.DEVNULL,
    )
