"""Loopback ports for the servers eris starts and gives to others before they listen (the embedded target's
notification receiver, Azurite, Samba)."""

from __future__ import annotations

import random
import socket
from pathlib import Path

__all__ = ["ephemeral_range", "free_port"]

_LOWEST = 10_000


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now, below the range the system hands to outgoing connections. A port of that
    range (what binding port 0 gives) can be taken, between this choice and its use, by any connection a process
    opens: CI once saw the embedded target's receiver refused with "Address already in use" seconds after its port
    was chosen. A port below it can only be taken by a server choosing it as this does."""
    low, _ = ephemeral_range()
    if low - _LOWEST >= 1_000:
        for _ in range(100):
            port = random.randrange(_LOWEST, low)
            with socket.socket() as probe:
                try:
                    probe.bind((host, port))
                except OSError:
                    continue
                return port
    with socket.socket() as probe:  # no room below the range, or every try taken: what the system gives
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def ephemeral_range() -> tuple[int, int]:
    """The ports the system gives outgoing connections (Linux: ip_local_port_range; elsewhere IANA's dynamic
    range, which macOS and Windows use)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        return 49_152, 65_535
    return low, high
