"""What the receiver tests send and look at: a Notification to push, a POST made later, uploads under way."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx


def part_files(directory: Path) -> list[Path]:
    """The .part files of uploads still under way in `directory`."""
    return sorted(directory.glob("*.part"))


def post_later(url: str, delay: float, **kwargs: object) -> threading.Thread:
    """A thread that POSTs `kwargs` to `url` after `delay` seconds, as a service delivering late would."""

    def post() -> None:
        time.sleep(delay)
        httpx.post(url, timeout=30, **kwargs)

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def notification_about(identifier: str) -> dict[str, object]:
    """A Notification about the Party with this identifier value."""
    return {
        "resourceType": "Notification",
        "id": f"n-{identifier}",
        "reference": {"type": "Party", "identifier": {"system": "urn:example", "value": identifier}},
    }
