"""Where the project's files are, for tests in any folder of tests/."""

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
ROOT = TESTS_DIR.parent
CASES_DIR = TESTS_DIR / "cases"
DATA_DIR = TESTS_DIR / "data"
