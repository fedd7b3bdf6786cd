"""A NamingSystem item read in whatever shape a target serves it. The contract names what an item states ("Identifier
namespaces of the installation: the key, the actual system, and the reference key"; "Filterable by `usage`") and
leaves the rest open ("Field lists of ... NamingSystem beyond the names given above: not shown"; "allowed values of
`usage` and the shape of its items: not shown"), so every reasonable form is read:

- the system: the one URI of the item that is no coding's system, else its one installation namespace, else the one
  URI under a member named for a system (`system`, `uniqueId`, `uri`, `value`, ...); a bare OID counts as urn:oid:;
- the key: a string, a number or a Coding; it names a kind of the contract only when it is the contract's own key
  (`contractor-warehouse`), and a registry when one of its words is the registry's name (NIP-PL, "tax number (NIP)");
- the reference key: a member named for a reference holding a yes/no, as a boolean, yes/no or true/false text, 1/0
  or a code; else the item's one member holding a yes/no;
- usage: every resource type or profile named anywhere under a member named for usage (`usage`, `use`, `appliesTo`,
  ...), as a bare name, a profile URL, `Party.identifier`, or an object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from conformance.discovery.served_values import NOT_OWN, installation_arcs

__all__ = ["PublishedNamespace", "read_naming_system", "words"]

_URI = ("urn:", "http://", "https://")
_BARE_OID = re.compile(r"[0-2](\.[0-9]+)+")
_SYSTEM_MEMBER = re.compile(r"system|uniqueid|^uri$|^value$|^oid$|namespace")
_REFERENCE_MEMBER = re.compile(r"referen|refkey|^ref$|^isref")
_USAGE_MEMBER = re.compile(r"usage|^use|^used|applies|context|scope")
_YES = frozenset({"yes", "y", "true", "t", "tak"})
_NO = frozenset({"no", "n", "false", "f", "nie"})


@dataclass(frozen=True)
class PublishedNamespace:
    """What one NamingSystem item states."""

    system: str | None
    keys: frozenset[str]
    """The contract's namespace keys (profiles/namespaces.json) the item names outright."""
    words: frozenset[str]
    """The lower-case words of its names (key, name, title...), without its system and usage."""
    reference_key: bool | None
    usage: frozenset[str]
    """The resource types and profile names (as `names` spells them) its usage names."""


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def read_naming_system(item: dict[str, Any], keys: Iterable[str], names: Iterable[str]) -> PublishedNamespace:
    """The statements of `item`; `keys`: the contract's namespace keys; `names`: the resource types and profile
    names a usage may name."""
    own = {name: value for name, value in item.items() if name not in (*NOT_OWN, "resourceType")}
    usage_members = {name for name in own if _USAGE_MEMBER.search(name.lower())}
    reference_members = {name for name in own if _REFERENCE_MEMBER.search(name.lower())}
    described = {name: value for name, value in own.items() if name not in usage_members | reference_members}
    system = _system(described)
    texts = [text for text in _texts(described) if text != system and not text.startswith(_URI)]
    by_spelling = {_spelling(name): name for name in names}
    usage = {
        by_spelling[spelled]
        for name in usage_members
        for text in _texts(own[name])
        for spelled in _usage_spellings(text)
        if spelled in by_spelling
    }
    return PublishedNamespace(
        system=system,
        keys=frozenset(text for text in texts if text in set(keys)),
        words=frozenset(word for text in texts for word in words(text)),
        reference_key=_reference_key(own, reference_members),
        usage=frozenset(usage),
    )


def _texts(node: Any) -> Iterator[str]:
    """Every string and number of `node` as text (a key may be served as a number), booleans left out."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield str(node)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value)


def _uris(node: Any, member: str = "") -> Iterator[tuple[str, str]]:
    """(member name, URI) of every URI in `node`, a bare OID as urn:oid:, leaving out the systems of codings."""
    if isinstance(node, str):
        if node.startswith(_URI):
            yield member, node
        elif _BARE_OID.fullmatch(node) and installation_arcs(f"urn:oid:{node}") is not None:
            yield member, f"urn:oid:{node}"
    elif isinstance(node, dict):
        coding = "code" in node
        for name, value in node.items():
            if not (coding and name == "system"):
                yield from _uris(value, name)
    elif isinstance(node, list):
        for value in node:
            yield from _uris(value, member)


def _system(described: dict[str, Any]) -> str | None:
    found = list(_uris(described))
    for candidates in (
        {uri for _, uri in found},
        {uri for _, uri in found if installation_arcs(uri) is not None},
        {uri for member, uri in found if _SYSTEM_MEMBER.search(member.lower())},
    ):
        if len(candidates) == 1:
            return candidates.pop()
    return None


def _spelling(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _usage_spellings(text: str) -> set[str]:
    """A usage text as the names it may spell: a profile URL by its last segment, `Party.identifier` by its type."""
    last = text.rstrip("/").rsplit("/", 1)[-1]
    return {_spelling(text), _spelling(last), _spelling(last.split(".", 1)[0])}


def _yes_no(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _YES | {"1"} else False if text in _NO | {"0"} else None
    if isinstance(value, list) and len(value) == 1:
        return _yes_no(value[0])
    if isinstance(value, dict):
        codes = [value, *(c for c in value.get("coding") or [] if isinstance(c, dict))]
        answers = {_yes_no(code.get(name)) for code in codes for name in ("code", "value", "valueBoolean", "valueCode")}
        answers.discard(None)
        return answers.pop() if len(answers) == 1 else None
    return None


def _reference_key(own: dict[str, Any], reference_members: set[str]) -> bool | None:
    """The yes/no of the members named for a reference; without one, of the item's one member holding a boolean or
    a yes/no text (a number or a code elsewhere says too little)."""
    named = {_yes_no(own[name]) for name in reference_members} - {None}
    if named:
        return named.pop() if len(named) == 1 else None
    plain = [
        value
        for value in own.values()
        if isinstance(value, bool) or (isinstance(value, str) and value.strip().lower() in _YES | _NO)
    ]
    return _yes_no(plain[0]) if len(plain) == 1 else None
