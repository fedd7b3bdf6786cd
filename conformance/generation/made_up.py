"""Values the suite makes up (names, identifiers, folder names that no other run uses), drawn from one recorded
seed: the same seed and test make the same values, so `eris verify` sends what the certified run sent and its
replay finds the recorded answers. Per test, so that the order in which tests run (workers) changes nothing."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import threading

__all__ = ["made_up_hex", "running_test", "set_names_seed"]

_SEED: list[str] = []
_DRAWN: dict[str, int] = {}
_LOCK = threading.Lock()
_PHASE = re.compile(r" \((setup|call|teardown)\)$")
_GROUP_SUFFIX = re.compile(r"@[A-Za-z0-9_.-]+$")  # as conformance.run.xdist_groups appends it


def set_names_seed(seed: str | None) -> None:
    """Draw from `seed` from now on (None: a new one for this process, as a run outside `eris certify`)."""
    with _LOCK:
        _SEED[:] = [seed if seed is not None else secrets.token_hex(16)]
        _DRAWN.clear()


def running_test() -> str:
    """The node id of the test pytest runs now in this process ("" outside one), as without workers."""
    current = _PHASE.sub("", os.environ.get("PYTEST_CURRENT_TEST", ""))
    return _GROUP_SUFFIX.sub("", current)


def made_up_hex(length: int = 12) -> str:
    """`length` hex digits, the next of the running test: unique to a run as a random value is (the seed is one a
    run), and the same again in a run with the same seed."""
    test = running_test()
    with _LOCK:
        if not _SEED:
            _SEED.append(secrets.token_hex(16))
        drawn = _DRAWN.get(test, 0)
        _DRAWN[test] = drawn + 1
        seed = _SEED[0]
    digest = hashlib.sha256(f"{seed}\0{test}\0{drawn}".encode()).hexdigest()
    while len(digest) < length:
        digest += hashlib.sha256(digest.encode()).hexdigest()
    return digest[:length]
