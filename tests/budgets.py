"""Hypothesis budgets, per profile: the one place they are set (tests/conftest.py loads the profile named by
HYPOTHESIS_PROFILE, "ci" by default). A test takes the profile's budget as it is, or `COSTLY` when every example
costs a server round trip or a draw from the whole contract, or `WIDE` when it compares a parser with its reference on
cheap generated texts, where a wide search is what finds a difference.

- "ci": deterministic (derandomized), bounded for a CI run;
- "dev": a quick local loop;
- "thorough": over thirty times CI's search, for a nightly run or before a release.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = {
    # profile: examples of a test, of a costly one, of a wide one
    "ci": (60, 10, 300),
    "dev": (20, 3, 100),
    "thorough": (2000, 200, 20000),
}
_QUIET = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


def load_profile() -> str:
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    if name not in EXAMPLES:
        raise SystemExit(f"HYPOTHESIS_PROFILE={name}: not a profile of tests/budgets.py ({', '.join(EXAMPLES)})")
    for profile, (examples, *_) in EXAMPLES.items():
        settings.register_profile(profile, max_examples=examples, derandomize=profile == "ci", **_QUIET)
    settings.load_profile(name)
    return name


PROFILE = load_profile()
COSTLY = settings(max_examples=EXAMPLES[PROFILE][1])
"""For a test whose every example costs a server round trip or a draw from the whole contract."""
WIDE = settings(max_examples=EXAMPLES[PROFILE][2])
"""For a test comparing a parser with its reference on cheap generated texts."""
