"""Whether the target can reach the suite's receiver at all: a receiver known only by a loopback or unspecified
address (127.0.0.1, ::1, localhost, 0.0.0.0) is this machine's own, and a target on another machine sends its
deliveries and notifications to itself there. Decided from addresses alone, before anything is ordered: a target
whose host is an address of this machine (loopback, or one a socket here can bind) may reach it."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = ["receiver_unreachable"]

_LOCAL_NAMES = {"localhost", "localhost.localdomain"}


def receiver_unreachable(receiver_url: str, target_base_url: str) -> str | None:
    """Why a target at `target_base_url` cannot reach a receiver at `receiver_url`; None when it may."""
    receiver_host = urlsplit(receiver_url).hostname or ""
    if not _only_this_machine(receiver_host):
        return None
    target_host = urlsplit(target_base_url).hostname or ""
    addresses = _addresses(target_host)
    if not addresses or any(_of_this_machine(address) for address in addresses):
        return None  # unknown, or the target runs here: it may reach the receiver
    return (
        f"the receiver listens at {receiver_url}, an address of this machine only, and the target at "
        f"{target_base_url} ({', '.join(sorted(addresses))}) is on another machine: it cannot deliver there"
    )


def _only_this_machine(host: str) -> bool:
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _addresses(host: str) -> set[str]:
    try:
        # the address is text for IPv4 and IPv6 (the int of typeshed's union is for other families)
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return set()


def _of_this_machine(address: str) -> bool:
    parsed = ipaddress.ip_address(address.split("%", 1)[0])
    if parsed.is_loopback or parsed.is_unspecified:
        return True
    family = socket.AF_INET6 if parsed.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))  # only an address of one of this machine's interfaces can be bound
    except OSError:
        return False
    return True
