"""What a target's reads show of its installation, and the values that follow from it without a guess.

Each observation is a value seen for one name of the installation (`installation`, `nip_system`,
`namespaces.contractor`, ...) with the read that showed it. One value seen: it is found, and says where from. Two
values seen for one name, or one namespace key seen for two kinds: a conflict, shown to the vendor and decided by
nobody. The two Contractor namespaces (the accounting register, a reference key; the warehouse copy, not one) are
told apart only by what the target publishes about them: the reference-key flag next to the system in a
NamingSystem, a NamingSystem that names the key, references that use one of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from profiles.installation import INSTALLATION_OID_ARC

__all__ = ["Candidate", "Conflict", "Discovery", "NamespaceEvidence", "cite"]

REGISTER, WAREHOUSE = "contractor", "contractor-warehouse"


def cite(sources: list[str] | tuple[str, ...], limit: int = 3) -> str:
    """The reads a value came from, the first `limit` of them."""
    shown = list(dict.fromkeys(sources))
    more = len(shown) - limit
    return "; ".join(shown[:limit]) + (f"; and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class Candidate:
    name: str
    value: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Conflict:
    """Values a target shows for names of its installation that cannot all be right, or that nothing tells apart."""

    candidates: tuple[Candidate, ...]
    reason: str

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(c.name for c in self.candidates))

    def describe(self) -> str:
        shown = " or ".join(f"{c.name} = {c.value} ({cite(c.sources, 2)})" for c in self.candidates)
        return f"{shown}: {self.reason}"


@dataclass
class Discovery:
    """Placeholder values and namespace keys found, each with the reads it came from; what could not be decided."""

    values: dict[str, str] = field(default_factory=dict)
    namespaces: dict[str, str] = field(default_factory=dict)
    more_namespaces: dict[str, list[str]] = field(default_factory=dict)
    """Further keys of a namespace kind (a second inbox), in the order of how many items use them."""
    sources: dict[str, str] = field(default_factory=dict)
    """`installation`, `nip_system`, `namespaces.contractor`, ... -> where it was seen."""
    conflicts: list[Conflict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Reads that failed."""
    unplaced: list[str] = field(default_factory=list)
    """Systems of the installation a NamingSystem publishes that no item shows the kind of."""
    seconds: list[str] = field(default_factory=list)
    """Systems of a second identifier of a kind's items (a document number): not a namespace of the kind, and why."""
    warnings: list[str] = field(default_factory=list)
    """What the target serves that eris validate warns of (registry numbers failing their check digit)."""

    def value_of(self, name: str) -> str | None:
        key = name.removeprefix("namespaces.")
        return self.namespaces.get(key) if name.startswith("namespaces.") else self.values.get(name)

    def conflict_of(self, name: str) -> Conflict | None:
        return next((conflict for conflict in self.conflicts if name in conflict.names), None)

    def settle(self, name: str, seen: dict[str, list[str]], reason: str) -> None:
        """`name` is the one value seen, or a conflict among those seen (`reason` says why they cannot all be)."""
        if len(seen) == 1:
            [(value, sources)] = seen.items()
            self.found(name, value, sources)
        elif seen:
            self.conflicts.append(Conflict(tuple(Candidate(name, v, tuple(s)) for v, s in seen.items()), reason))

    def found(self, name: str, value: str, sources: list[str], more: list[str] | None = None) -> None:
        if name.startswith("namespaces."):
            key = name.removeprefix("namespaces.")
            self.namespaces[key] = value
            if more:
                self.more_namespaces[key] = more
        else:
            self.values[name] = value
        self.sources[name] = cite(sources)


@dataclass
class NamespaceEvidence:
    """Installation namespaces seen in a target's reads, by installation and key arc."""

    installations: dict[str, list[str]] = field(default_factory=dict)
    systems_seen: Counter[str] = field(default_factory=Counter)
    """Installation -> how many identifiers name a system of it."""
    kinds: dict[tuple[str, str], dict[tuple[str, ...], list[str]]] = field(default_factory=dict)
    """(installation, key) -> the namespace kinds of the items identified there (a group: the two Contractor
    namespaces are one group until told apart) -> sources."""
    items: Counter[tuple[str, str]] = field(default_factory=Counter)
    named: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)
    """(installation, key) -> the namespace kind a NamingSystem names by the contract's key -> sources."""
    flags: dict[tuple[str, str], dict[bool, list[str]]] = field(default_factory=dict)
    """(installation, key) -> the reference-key yes/no a NamingSystem states beside the system -> sources."""
    referenced: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(installation, key) -> the reads whose references name a resource by an identifier there."""
    published: set[tuple[str, str]] = field(default_factory=set)
    """(installation, key) of every system of an installation namespace a NamingSystem names."""
    used: dict[tuple[str, str], dict[tuple[str, ...], list[str]]] = field(default_factory=dict)
    """(installation, key) -> the namespace kind (a group) a NamingSystem's usage names -> sources."""
    alone: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(installation, key) -> how many items carry it as their only identifier of their kind."""

    def installation(self, arcs: tuple[str, str], source: str) -> None:
        _add(self.installations.setdefault(arcs[0], []), source)
        self.systems_seen[arcs[0]] += 1

    def identified(self, arcs: tuple[str, str], group: tuple[str, ...], source: str, alone: bool = True) -> None:
        """An item of the kinds `group` identified in `arcs`; `alone`: by no other namespace of the kinds."""
        self.installation(arcs, source)
        _add(self.kinds.setdefault(arcs, {}).setdefault(group, []), source)
        self.items[arcs] += 1
        self.alone[arcs] += alone

    def decide(self, found: Discovery, groups: list[tuple[str, ...]]) -> None:
        """The installation number, then the key of each namespace kind of `groups`, into `found`. Where the
        installation is not decided, the keys of every installation seen are shown (conflicting where they do)."""
        counted = {
            number: [_identifiers(self.systems_seen[number]), *sources]
            for number, sources in self.installations.items()
        }
        found.settle("installation", counted, "the target shows more than one installation")
        view = _ArcView(self, found.values.get("installation"))
        group_of_arc: dict[str, dict[tuple[str, ...], list[str]]] = {}
        for arc in sorted({*view.kinds, *view.named}, key=int):
            seen = group_of_arc.setdefault(arc, {})
            for group, sources in view.kinds.get(arc, {}).items():
                seen.setdefault(group, []).extend(sources)
            for key, sources in view.named.get(arc, {}).items():
                seen.setdefault(next((g for g in groups if key in g), (key,)), []).extend(sources)
            for group, sources in view.used.get(arc, {}).items():
                seen.setdefault(group, []).extend(sources)
            if len(seen) > 1:
                found.conflicts.append(
                    Conflict(
                        tuple(
                            Candidate(f"namespaces.{key}", arc, tuple(sources))
                            for group, sources in seen.items()
                            for key in group
                        ),
                        f"key {arc} is seen for more than one kind of resource",
                    )
                )
        single = {arc: next(iter(seen)) for arc, seen in group_of_arc.items() if len(seen) == 1}
        installation = found.values.get("installation")
        found.unplaced = [
            f"{INSTALLATION_OID_ARC}{number}.{arc}"
            for number, arc in sorted(self.published)
            if number == installation and arc not in group_of_arc
        ]
        for group in groups:
            owned = sorted(
                (arc for arc, g in single.items() if g == group), key=lambda arc: (-view.items[arc], int(arc))
            )
            if not owned:
                continue
            if group == (REGISTER, WAREHOUSE):
                view.contractor(found, owned, {arc: group_of_arc[arc][group] for arc in owned})
            else:
                [key] = group
                owned = view.identifying(found, key, owned, {arc: group_of_arc[arc][group] for arc in owned})
                sources = [s for arc in owned for s in group_of_arc[arc][group]]
                if owned:
                    found.found(f"namespaces.{key}", owned[0], sources, owned[1:])


class _ArcView:
    """The evidence of one installation (of every one, when None), by key arc."""

    def __init__(self, evidence: NamespaceEvidence, installation: str | None) -> None:
        def mine(table: dict[tuple[str, str], Any]) -> Iterator[tuple[str, Any]]:
            return ((arc, value) for (number, arc), value in table.items() if installation in (None, number))

        self.kinds: dict[str, dict[tuple[str, ...], list[str]]] = {}
        for arc, kinds in mine(evidence.kinds):
            for group, sources in kinds.items():
                self.kinds.setdefault(arc, {}).setdefault(group, []).extend(sources)
        self.named: dict[str, dict[str, list[str]]] = {}
        for arc, named in mine(evidence.named):
            for key, sources in named.items():
                self.named.setdefault(arc, {}).setdefault(key, []).extend(sources)
        self.flags: dict[str, dict[bool, list[str]]] = {}
        for arc, flags in mine(evidence.flags):
            for flag, sources in flags.items():
                self.flags.setdefault(arc, {}).setdefault(flag, []).extend(sources)
        self.referenced: dict[str, list[str]] = {}
        for arc, sources in mine(evidence.referenced):
            self.referenced.setdefault(arc, []).extend(sources)
        self.used: dict[str, dict[tuple[str, ...], list[str]]] = {}
        for arc, used in mine(evidence.used):
            for group, sources in used.items():
                self.used.setdefault(arc, {}).setdefault(group, []).extend(sources)
        self.items: Counter[str] = Counter()
        self.alone: Counter[str] = Counter()
        for arc, count in mine(evidence.items):
            self.items[arc] += count
        for arc, count in mine(evidence.alone):
            self.alone[arc] += count
        self.installation = installation

    def contractor(self, found: Discovery, arcs: list[str], identified: dict[str, list[str]]) -> None:
        """The accounting registers and the warehouse copy among the keys of Contractor identifiers. A key that
        nothing tells is neither: the whole kind is then shown undecided (a namespace left out of the
        installation would make the target's own identifiers look foreign)."""
        roles = {arc: self._role(arc) for arc in arcs}
        undecided = [arc for arc, role in roles.items() if role is None]
        if undecided:
            found.conflicts.append(
                Conflict(
                    tuple(
                        Candidate(f"namespaces.{role}", arc, tuple(identified[arc]))
                        for role in (REGISTER, WAREHOUSE)
                        for arc in arcs
                        if roles[arc] in (role, None)
                    ),
                    f"Contractor namespaces {', '.join(arcs)} are seen, and for {', '.join(undecided)} "
                    f"{self._why_not(undecided)}",
                )
            )
            return
        for role in (REGISTER, WAREHOUSE):
            told = [arc for arc in arcs if roles[arc] == role]
            if told:
                sources = [s for arc in told for s in (*identified[arc], *self._said(arc))]
                found.found(f"namespaces.{role}", told[0], sources, told[1:])

    def identifying(self, found: Discovery, key: str, arcs: list[str], identified: dict[str, list[str]]) -> list[str]:
        """The keys among `arcs` that identify the items of kind `key`: a namespace is the kind's only where it
        identifies ("document id in namespace DocumentReference.Id (reference key), number, etc."). A key that never
        identifies an item alone, always standing beside another of the kind, is a second identifier (a document
        number) where the target says so: a NamingSystem states it is no reference key, or references use the
        others and never it. It identifies where references use it, or a NamingSystem names it the kind's or a
        reference key. Where nothing tells, or both are told, the kind is shown undecided."""
        if len(arcs) < 2:
            return arcs
        undecided, seconds = [], []
        for arc in (arc for arc in arcs if self.alone[arc] == 0):
            flags = self.flags.get(arc, {})
            identifies = arc in self.referenced or True in flags or key in self.named.get(arc, {})
            others_referenced = any(other in self.referenced for other in arcs if other != arc)
            second = False in flags or (arc not in self.referenced and others_referenced)
            if identifies == second:
                undecided.append(arc)
            elif second:
                seconds.append(arc)
        number = self.installation or "<installation>"
        for arc in seconds:
            why = [f"{s}: not a reference key" for s in self.flags.get(arc, {}).get(False, [])]
            why += [f"{s}: references use the others" for arc_ in arcs if arc_ in self.referenced
                    for s in self.referenced[arc_][:1]]  # fmt: skip
            found.seconds.append(
                f"{INSTALLATION_OID_ARC}{number}.{arc} stands beside another {key} namespace on every item it "
                f"identifies, and {cite(why, 2)}: a second identifier (such as a document number), not a {key} "
                "namespace"
            )
        if undecided:
            found.conflicts.append(
                Conflict(
                    tuple(Candidate(f"namespaces.{key}", arc, tuple(identified[arc])) for arc in arcs),
                    f"{', '.join(undecided)} of the {key} namespaces {', '.join(arcs)} never identif"
                    f"{'ies' if len(undecided) == 1 else 'y'} an item alone, and nothing the target publishes tells "
                    "whether it is a namespace of their identifiers or a second identifier (such as a document "
                    "number)",
                )
            )
            return []
        return [arc for arc in arcs if arc not in seconds]

    def _role(self, arc: str) -> str | None:
        """REGISTER or WAREHOUSE as the target tells it of the namespace; None where it does not, or says both."""
        named = set(self.named.get(arc, {})) & {REGISTER, WAREHOUSE}
        flags = set(self.flags.get(arc, {}))
        register = REGISTER in named or True in flags or arc in self.referenced
        warehouse = WAREHOUSE in named or False in flags
        return None if register == warehouse else REGISTER if register else WAREHOUSE

    def _said(self, arc: str) -> list[str]:
        """What the target says of the namespace besides identifying Contractors in it."""
        said = [source for sources in self.named.get(arc, {}).values() for source in sources]
        for flag, sources in self.flags.get(arc, {}).items():
            said += [f"{source}: {'a' if flag else 'not a'} reference key" for source in sources]
        return said + [f"{source}: references use it" for source in self.referenced.get(arc, [])]

    def _why_not(self, arcs: list[str]) -> str:
        said = [statement for arc in arcs for statement in self._said(arc)]
        if not said:
            return (
                "nothing the target publishes tells whether it is an accounting register (a reference key) or the "
                "warehouse copy"
            )
        return f"what the target publishes does not tell which it is ({cite(said)})"


def _identifiers(count: int) -> str:
    return f"{count} identifier{'' if count == 1 else 's'}"


def _add(sources: list[str], source: str) -> None:
    if source not in sources:
        sources.append(source)
