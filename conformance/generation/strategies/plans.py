"""What one payload of resources.py is drawn for: its `Plan` (the resource type, the profiles it shows, the context,
the rule rows in force by path, how the profile is shown, what a write says of identifiers), the profiles a payload
may be drawn for, the rows in force for them, and the shipped value sets that are payloads as they are. It draws
nothing: every strategy, and every function a strategy maps or filters with, stays in resources.py, where
hypothesis labels it by name (moving one would change what a seed draws)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.recognition import Showing, foreign_canonical_urls, recognition_severity
from conformance.generation.strategies.schema_index import SchemaIndex
from profiles import Contract, Profile
from profiles.validator import CONTEXTS

__all__ = ["IdentifierPolicy", "Path", "Plan", "Specs", "profiles_drawn", "rules_by_path", "terminology_resources"]

Path = tuple[str, ...]
Specs = tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class IdentifierPolicy:
    """What a write tells the service about the identifiers of the resource it creates or changes."""

    assigned: tuple[str, ...] = ()
    """Keys of the namespaces whose value the service assigns: at most one identifier there, without value."""
    target: st.SearchStrategy[Mapping[str, str]] | None = None
    """Identifiers of which one comes first: the resource the write changes."""


@dataclass(frozen=True)
class Plan:
    contract: Contract
    index: SchemaIndex
    resource_type: str
    schema_name: str
    """The schema file of the resource type, without .schema.json."""
    profiles: tuple[Profile, ...]
    context: str
    rules: Mapping[str, Specs]
    showing: Showing
    identifiers: IdentifierPolicy

    def specs(self, path: Path) -> Specs:
        return self.rules.get(".".join(path), ())

    def has_rule(self, path: Path, rule: str) -> bool:
        return any(spec["rule"] == rule for spec in self.specs(path))


def rules_by_path(contract: Contract, resource_type: str, profiles: tuple[Profile, ...], context: str) -> dict:
    by_path: dict[str, list[Mapping[str, Any]]] = {}
    for spec in [*contract.resources[resource_type].rules, *(s for p in profiles for s in p.rules)]:
        if context in spec.get("contexts", CONTEXTS):
            by_path.setdefault(spec["path"], []).append(spec)
    return {path: tuple(specs) for path, specs in by_path.items()}


def profiles_drawn(
    contract: Contract, resource_type: str, profile: str | None, context: str
) -> list[tuple[Profile, ...]]:
    """The profile (or none) a payload is drawn for: the one asked for; without one, no profile where the
    type may go without, else each of the type's profiles."""
    if profile is not None:
        found = contract.profiles.get(profile)
        if found is None or found.resource_type != resource_type:
            known = ", ".join(p.name for p in contract.profiles_of(resource_type)) or "none"
            raise ValueError(f"{profile!r} is not a profile of {resource_type}; its profiles: {known}")
        return [(found,)]
    if recognition_severity(contract, resource_type, context) == "error":
        return [(p,) for p in contract.profiles_of(resource_type)]
    return [()]


def terminology_resources(contract: Contract, resource_type: str, profiles: tuple[Profile, ...]) -> list[dict]:
    """The shipped value sets that are payloads of this kind as they are (served from the terminology)."""
    urls = {p.url for p in profiles}
    canonical = {p.canonical_url for p in profiles if p.canonical_url}
    foreign = foreign_canonical_urls(contract, resource_type, profiles)
    found = []
    for url, resource in sorted(contract.value_set_resources.items()):
        claimed = set(resource.get("meta", {}).get("profile", []))
        if resource.get("resourceType") != resource_type or not claimed <= urls:
            continue
        if (canonical and url in canonical) or (not canonical and url not in foreign):
            found.append(dict(resource))
    return found
