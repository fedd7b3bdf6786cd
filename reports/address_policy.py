"""Where deliveries over the network may go: the HttpPolicy of the service, applied to the literal address of
an order when it is placed and to every resolution of a host name when a delivery connects (blob endpoints and
http receivers alike; smb resolves through `allowed_addresses`)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver
from aiohttp.resolver import ThreadedResolver

__all__ = [
    "DEFAULT_DENIED",
    "AddressRefused",
    "HttpPolicy",
    "PolicyResolver",
    "allowed_addresses",
    "literal_refusal",
    "networks",
]


DEFAULT_DENIED = (
    "169.254.0.0/16",  # IPv4 link-local, the cloud metadata address 169.254.169.254 among them
    "fe80::/10",  # IPv6 link-local
    "fd00:ec2::254/128",  # AWS metadata over IPv6
    "100.100.100.200/32",  # Alibaba Cloud metadata
    "0.0.0.0/8",
    "::/128",
)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """CIDR blocks (or single addresses); ValueError naming one that is not."""
    found = []
    for spec in specs:
        try:
            found.append(ipaddress.ip_network(spec, strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or CIDR block: {spec!r}") from None
    return tuple(found)


@dataclass(frozen=True)
class HttpPolicy:
    """Where `http` deliveries may go: no address of `denied`; only addresses of `allowed` when it is not empty;
    never `own` (the service's own listening address and port: an order must not make it call its own API)."""

    denied: tuple[Network, ...] = networks(DEFAULT_DENIED)
    allowed: tuple[Network, ...] = ()
    own: frozenset[tuple[str, int]] = frozenset()

    def refusal(self, address: str, port: int) -> str | None:
        """Why `address`:`port` is refused, or None."""
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if any(ip in block for block in self.denied):
            return f"{address} is an address deliveries never go to (link-local, metadata or unspecified)"
        if self.allowed and not any(ip in block for block in self.allowed):
            return f"{address} is outside the addresses deliveries may go to"
        if (str(ip), port) in self.own or (ip.is_loopback and ("loopback", port) in self.own):
            return f"{address}:{port} is this service's own address"
        return None


class AddressRefused(OSError):
    """Every address of a delivery's host is refused by the HttpPolicy."""


class PolicyResolver(AbstractResolver):
    """The system resolver, keeping only the addresses the policy allows (checked at each resolution)."""

    def __init__(self, policy: HttpPolicy) -> None:
        self._policy = policy
        self._resolver: ThreadedResolver | None = None  # made on the loop that resolves

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> Any:
        self._resolver = self._resolver or ThreadedResolver()
        found = await self._resolver.resolve(host, port, family)
        kept = [entry for entry in found if self._policy.refusal(entry["host"], port) is None]
        if not kept:
            reasons = {self._policy.refusal(entry["host"], port) for entry in found}
            raise AddressRefused(f"{host} resolves only to refused addresses: {'; '.join(sorted(map(str, reasons)))}")
        return kept

    async def close(self) -> None:
        if self._resolver is not None:
            await self._resolver.close()


def literal_refusal(url: str, policy: HttpPolicy) -> str | None:
    """The policy's refusal of a URL whose host is an IP address (or localhost), known without resolving."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = "127.0.0.1" if parts.hostname == "localhost" else parts.hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: its addresses are checked when it is resolved
    return policy.refusal(host, port)


def allowed_addresses(host: str, port: int, policy: HttpPolicy) -> list[str]:
    """The addresses of `host` the policy lets a connection to `port` go to (resolving a name once, blocking);
    AddressRefused naming the reasons when there is none."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"{host} does not resolve: {error.strerror}") from None
    addresses = list(dict.fromkeys(str(entry[4][0]) for entry in found))
    kept = [address for address in addresses if policy.refusal(address, port) is None]
    if not kept:
        reasons = sorted({str(policy.refusal(address, port)) for address in addresses})
        raise AddressRefused(f"{host} resolves only to refused addresses: {'; '.join(reasons)}")
    return kept
