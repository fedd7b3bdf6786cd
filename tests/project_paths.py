"""Where the project's files are, for tests in any folder of tests/."""

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
