"""What the benchmarks print about the machine they ran on."""

import os
import subprocess
from pathlib import Path


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def checkout_state(paths: list[str], what: str) -> str:
    """The commit of the checkout, and whether `paths` differ from it (read-only git)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", *paths], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{commit}{f' with uncommitted changes to {what}' if changed else ''}"
