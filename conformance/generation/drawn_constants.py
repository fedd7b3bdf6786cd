"""What hypothesis draws, a function of the seed only: no constants harvested from the modules a process has loaded.

hypothesis (6.131 and later) now and then draws a "local constant" instead of a random value: a string or number
found in the source of every module of sys.modules outside site-packages and test files. Which modules are loaded
depends on the process, not on the seed: `eris certify` and `eris verify` import different parts of eris, a worker
of pytest-xdist imports what its earlier tests needed, and an editable install makes all of eris local. The same
seed then generated other requests in `eris verify` ("filterVocabularies" in a certified run, "extended" in its
re-check), which found no recorded answer. The suite's draws use hypothesis' fixed global constants only.
"""

from __future__ import annotations

import threading

__all__ = ["local_constants_disabled", "without_local_constants"]

_LOCK = threading.Lock()
_DISABLED: list[bool] = []


def without_local_constants() -> None:
    """From now on, hypothesis in this process draws no constant of the loaded modules (idempotent). Nothing to do
    with a hypothesis that has no local constants."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without the module has no local constants either
        return
    with _LOCK:
        if _DISABLED or not hasattr(providers, "_get_local_constants"):
            return
        empty = providers.Constants()

        def no_local_constants() -> providers.Constants:
            return empty

        providers._get_local_constants = no_local_constants
        # permitted constants computed from the loaded modules before, per choice type
        cache = getattr(providers, "CONSTANTS_CACHE", None)
        if cache is not None:
            cache.cache.clear()
        _DISABLED.append(True)


def local_constants_disabled() -> bool:
    return bool(_DISABLED)
