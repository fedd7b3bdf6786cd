"""What a target publishes about its installation, read instead of asked for: the placeholder values and the
installation namespaces of the contract, from GET /v1/naming-systems, /v1/value-sets and /v1/parties.

The contract shows few shapes here (NamingSystem: "the key, the actual system, and the reference key"; the rest
of its fields are not shown), so discovery looks for values, not for field names: a string equal to a namespace
key of the contract beside a string that is a URI, a profile URL ending in /StructureDefinition/<profile>, a value
set URL ending in the name of an implementation-defined set. What cannot be found is reported as missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from profiles import Contract, load_contract
from profiles.installation import INSTALLATION_OID_ARC

__all__ = ["Discovery", "discover", "published_namespaces", "registry_placeholders", "target_toml"]


_INSTALLATION_SYSTEM = re.compile(re.escape(INSTALLATION_OID_ARC) + r"([0-9]+)\.([0-9]+)")
_PROFILE_URL = re.compile(r"(?P<base>.+)/StructureDefinition/(?P<profile>[A-Za-z]+)")
_PAGE = 100
_NOT_OWN = ("owner", "meta", "contained", "attribute")


@dataclass
class Discovery:
    """Placeholder values and namespace arcs found, each with the read it came from."""

    values: dict[str, str] = field(default_factory=dict)
    namespaces: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    more_namespaces: list[tuple[str, str]] = field(default_factory=list)
    """Further namespaces of a kind already found (key, system): certify reads them from the target each run."""
    problems: list[str] = field(default_factory=list)
    """Reads that failed, and values found twice with different answers."""

    def missing(self, contract: Contract) -> list[str]:
        """Placeholders and namespace keys of the contract that were not found."""
        wanted = [*contract.installation.values, *(f"namespaces.{k}" for k in contract.installation.namespace_keys)]
        found = {*self.values, *(f"namespaces.{k}" for k in self.namespaces)}
        return [name for name in wanted if name not in found]

    def _found(self, name: str, value: str, source: str) -> None:
        table, key = (
            (self.namespaces, name.removeprefix("namespaces."))
            if name.startswith("namespaces.")
            else (
                self.values,
                name,
            )
        )
        if key in table and table[key] != value:
            self.problems.append(f"{name}: {source} gives {value!r}, {self.sources[name]} gave {table[key]!r}")
            return
        table[key] = value
        self.sources.setdefault(name, source)


def discover(base_url: str, *, token: str | None = None, client: httpx.Client | None = None) -> Discovery:
    """Read the target at `base_url` (without /v1) and return what it shows of its installation."""
    contract = load_contract(None)  # the shipped example installation: its keys and names, not its values
    own = client or httpx.Client(base_url=base_url.rstrip("/"), timeout=30)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    found = Discovery()
    try:
        _naming_systems(contract, _items(own, "/v1/naming-systems", headers, found), found)
        _value_sets(contract, _items(own, "/v1/value-sets", headers, found), found)
        _parties(_items(own, "/v1/parties", headers, found), found)
    finally:
        if client is None:
            own.close()
    return found


def _items(client: httpx.Client, path: str, headers: dict[str, str], found: Discovery) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    try:
        while True:
            response = client.get(path, params={"count": _PAGE, "offset": len(items)}, headers=headers)
            if response.status_code != 200:
                found.problems.append(f"GET {path} answered {response.status_code}")
                return items
            page = response.json().get("items")
            if not isinstance(page, list) or not page:
                return items
            items += [item for item in page if isinstance(item, dict)]
            if len(page) < _PAGE or len(items) >= 10 * _PAGE:
                return items
    except (httpx.HTTPError, ValueError, AttributeError) as error:
        found.problems.append(f"GET {path} could not be read: {error}")
        return items


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def registry_placeholders(contract: Contract) -> dict[str, str]:
    """Namespace key of a public registry -> the installation placeholder its system is (nip -> nip_system)."""
    by_value = {value: name for name, value in contract.installation.values.items()}
    return {ns.key: by_value[ns.system] for ns in contract.namespaces.values() if ns.system in by_value}


def _key_and_system(contract: Contract, items: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(namespace key, system) of each naming system that names exactly one key of the contract and one URI."""
    namespace_keys = {namespace.key for namespace in contract.namespaces.values()}
    for item in items:
        # A system named in the owner (a reference to a Party by its NIP) is not the naming system's own.
        strings = list(_strings({name: value for name, value in item.items() if name not in _NOT_OWN}))
        keys = {s for s in strings if s in namespace_keys}
        systems = [s for s in strings if s.startswith(("urn:", "http://", "https://"))]
        if len(keys) == 1 and len(set(systems)) == 1:
            yield keys.pop(), systems[0]


def published_namespaces(
    contract: Contract, base_url: str, *, token: str | None = None, client: httpx.Client | None = None
) -> list[tuple[str, str]]:
    """(key, system) of every namespace the target publishes at GET /v1/naming-systems (nothing when it cannot
    be read: the configured namespaces stay). More than one system may share a key."""
    own = client or httpx.Client(base_url=base_url.rstrip("/"), timeout=30)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        return list(_key_and_system(contract, _items(own, "/v1/naming-systems", headers, Discovery())))
    finally:
        if client is None:
            own.close()


def _naming_systems(contract: Contract, items: list[dict[str, Any]], found: Discovery) -> None:
    source = "GET /v1/naming-systems"
    registries = registry_placeholders(contract)
    for key, system in _key_and_system(contract, items):
        if key in registries:
            found._found(registries[key], system, source)
        elif match := _INSTALLATION_SYSTEM.fullmatch(system):
            found._found("installation", match[1], source)
            if key in found.namespaces and found.namespaces[key] != match[2]:
                found.more_namespaces.append((key, system))  # a second inbox: read again at every run
                continue
            found._found(f"namespaces.{key}", match[2], source)


def _value_sets(contract: Contract, items: list[dict[str, Any]], found: Discovery) -> None:
    vocab_url = contract.installation.values["vocab_url"]
    names = sorted(
        {p.canonical_url.removeprefix(vocab_url) for p in contract.profiles.values() if p.canonical_url},
        key=len,
        reverse=True,
    )
    for item in items:
        url = item.get("url")
        if not isinstance(url, str):
            continue
        for name in names:
            if url.endswith(name) and len(url) > len(name):
                found._found("vocab_url", url.removesuffix(name), "GET /v1/value-sets (implementation-defined sets)")
                break


def _parties(items: list[dict[str, Any]], found: Discovery) -> None:
    for party in items:
        meta = party.get("meta")
        for url in meta.get("profile", []) if isinstance(meta, dict) else []:
            if isinstance(url, str) and (match := _PROFILE_URL.fullmatch(url)):
                found._found("ns_url", match["base"], "GET /v1/parties (meta.profile)")
        for identifier in party.get("identifier", []) if isinstance(party.get("identifier"), list) else []:
            if (
                isinstance(identifier, dict)
                and identifier.get("type") == "TAX"
                and isinstance(identifier.get("system"), str)
            ):
                found._found("nip_system", identifier["system"], "GET /v1/parties (an identifier of type TAX)")


def target_toml(base_url: str, discovery: Discovery, contract: Contract | None = None) -> str:
    """A commented target description: what was discovered, with its source, and what must still be filled in."""
    contract = contract or load_contract(None)
    missing = discovery.missing(contract)
    lines = [
        f"# written by eris init from what {base_url} publishes; see docs/certify-your-implementation.md",
        "[target]",
        f'base_url = "{base_url.rstrip("/")}"',
        '# token = "..."                        # a Bearer token holding the retrospective-report right',
        '# token_without_report_right = "..."   # a valid token without it: enables the 403 check',
        "",
        "[installation]",
    ]
    for name, default in contract.installation.values.items():
        lines += _entry(name, discovery.values.get(name), discovery.sources.get(name), default)
    lines += ["", "[installation.namespaces]"]
    for key, default in contract.installation.namespace_keys.items():
        name = f"namespaces.{key}"
        lines += _entry(key, discovery.namespaces.get(key), discovery.sources.get(name), default)
    for key, system in discovery.more_namespaces:
        lines.append(f"# {key}: the target also publishes {system}; eris certify reads it from GET /v1/naming-systems")
    lines += [
        "",
        "[receiver]                  # where the suite listens for report deliveries and notifications",
        'host = "127.0.0.1"',
        "port = 0                    # 0: any free port; notifications need a fixed one, given to the target",
        '# public_url = "https://tunnel.example/eris"   # how the target reaches the receiver',
        "",
        "[features]",
        "notifications = false       # true when the target pushes Notification resources to the receiver",
        "",
    ]
    if missing:
        lines.insert(1, f"# not discovered (check the commented defaults): {', '.join(missing)}")
    for problem in discovery.problems:
        lines.insert(1, f"# {problem}")
    return "\n".join(lines)


def _entry(name: str, value: str | None, source: str | None, default: str) -> list[str]:
    if value is not None:
        return [f'{name} = "{value}"   # from {source}']
    return [f'# {name} = "{default}"   # not discovered: the example installation\'s value']
