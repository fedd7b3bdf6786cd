"""The C allocator told to keep the memory a run of `eris validate` frees and takes again at every unit.

glibc's malloc gives a block of 128 KiB or more its own mapping, and hands the top of its heap back to the system
once 128 KiB of it are free; both limits rise as it sees large blocks freed, but not far enough for this loop: each
unit reads a megabyte of input, splits it into lines of about a kilobyte and parses them, then frees it all, and
every new unit faulted its pages in again (46,000 page faults, ~0.1 s of system time for 100,000 payloads, 5-7% of
the run). With blocks up to 4 MiB taken from the heap and up to 64 MiB of free heap kept, the same run faults 7,000
times. The peak stays what it was: memory freed is kept for the next unit, not added to. Where the C library is not
glibc (no mallopt) nothing changes."""

from __future__ import annotations

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 4 << 20
"""Blocks below this come from the heap: a unit's input (a span of 1 MiB and the rest of its last line, a file of up
to 1 MiB) and everything made of it."""
TRIM_THRESHOLD = 64 << 20
"""Free memory at the top of the heap kept up to this: several units' worth."""


def keep_freed_memory() -> bool:
    """Set glibc's thresholds for this process (and the workers it forks later); whether they were set."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without mallopt (musl, macOS)
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
