"""The contract as data: value sets, profiles, per-resource rules, namespaces and report operations,
read from the files of this package with the installation's placeholders filled in."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from profiles.installation import INSTALLATION_OID_ARC, Installation, load_installation
from profiles.limits import Limits, LimitsError, load_limits

PROFILES_DIR = Path(__file__).parent
RESOURCE = "resource"
"""A payload as the service serves it."""
WRITE = "write"
"""A request body sent to the service (POST, PATCH)."""
CONTEXTS = (RESOURCE, WRITE)


@dataclass(frozen=True)
class ValueSetIndex:
    """Membership of one value set: for each system its codes, or None for 'any code of it'."""

    url: str
    systems: Mapping[str, frozenset[str] | None]

    def has_system(self, system: Any) -> bool:
        return isinstance(system, str) and system in self.systems

    def contains(self, system: Any, code: Any) -> bool:
        if not self.has_system(system):
            return False
        codes = self.systems[system]
        return codes is None or (isinstance(code, str) and code in codes)

    def contains_bare_code(self, code: Any) -> bool:
        return isinstance(code, str) and any(codes is None or code in codes for codes in self.systems.values())


@dataclass(frozen=True, eq=False)
class Profile:
    name: str
    resource_type: str
    url: str
    requirement: str | None
    category_codings: tuple[tuple[str, str], ...]
    canonical_url: str | None
    evidence_required_in: frozenset[str]
    writable: bool
    identifier_namespaces: tuple[str, ...]
    """Keys of the namespaces of namespaces.json that list this profile."""
    rules: tuple[Mapping[str, Any], ...]

    @property
    def has_evidence_rule(self) -> bool:
        return bool(self.category_codings) or self.canonical_url is not None


@dataclass(frozen=True)
class ResourceRules:
    resource_type: str
    schema: str | None
    requirement: str | None
    has_base: bool
    writable: bool
    profile_required_in: frozenset[str]
    """The contexts (resource, write) in which a payload of this type must show one of its profiles."""
    profile_recognition_requirement: Mapping[str, str]
    """Context (resource, write) -> the requirement a payload without a recognised profile breaks."""
    rules: tuple[Mapping[str, Any], ...]
    filter_vocabularies: Mapping[str, tuple[str, ...]]
    """Per coded filter (type, status), the vocabularies the contract declares for it."""
    element_requirements: Mapping[str, str] = field(default_factory=dict)
    """Top-level element -> the requirement a structure issue inside it breaks (attribute: ERIS-BASE-003)."""


@dataclass(frozen=True)
class Namespace:
    key: str
    system: str
    title: str
    reference_key: bool
    format: str | None
    profiles: tuple[str, ...]
    not_reference_key_for: tuple[str, ...] = ()
    """Profiles whose identifiers here are not reference keys though the namespace is one (the employer
    organization id in the employee namespace)."""

    def is_reference_key_for(self, profiles: Iterable[Profile]) -> bool:
        return self.reference_key and not any(p.name in self.not_reference_key_for for p in profiles)


@dataclass(frozen=True)
class Contract:
    """Everything the validator, the reference implementation and the suite know of the contract."""

    installation: Installation
    value_set_resources: Mapping[str, Mapping[str, Any]]
    value_sets: Mapping[str, ValueSetIndex]
    profiles: Mapping[str, Profile]
    resources: Mapping[str, ResourceRules]
    namespaces: Mapping[str, Namespace]
    operations: Mapping[str, Mapping[str, Any]]
    profiles_by_url: Mapping[str, Profile]
    not_shown_types: frozenset[str]
    limits: Limits

    def profiles_of(self, resource_type: str) -> tuple[Profile, ...]:
        return tuple(p for p in self.profiles.values() if p.resource_type == resource_type)

    def profile_by_url(self, url: Any) -> Profile | None:
        return self.profiles_by_url.get(url) if isinstance(url, str) else None

    def namespace_of(self, system: Any) -> Namespace | None:
        return self.namespaces.get(system) if isinstance(system, str) else None

    def is_reference_key(self, system: Any, profiles: Iterable[Profile] = ()) -> bool:
        """Whether a Reference may name a Party of `profiles` by its identifier in namespace `system`."""
        namespace = self.namespace_of(system)
        return namespace is not None and namespace.is_reference_key_for(profiles)

    def with_namespaces(self, published: Iterable[tuple[str, str]]) -> Contract:
        """This contract with more namespaces of the kinds it knows: (key, system) pairs a target publishes
        beside the configured one ("The identifier namespace names the inbox that registers the document":
        an installation may have more than one inbox, hence more than one namespace of a kind)."""
        first_of_kind: dict[str, Namespace] = {}
        for namespace in self.namespaces.values():
            first_of_kind.setdefault(namespace.key, namespace)
        added = {
            system: replace(first_of_kind[key], system=system)
            for key, system in published
            if key in first_of_kind and system not in self.namespaces
        }
        return replace(self, namespaces={**self.namespaces, **added}) if added else self

    def namespace_systems(self, key: str) -> list[str]:
        """Every system of the namespace kind `key`: the configured one first."""
        return [namespace.system for namespace in self.namespaces.values() if namespace.key == key]

    def installation_namespace_key(self, key: str) -> str:
        return f"{INSTALLATION_OID_ARC}{self.installation.number}.{self.installation.namespace_keys[key]}"


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


@cache
def value_set_codes(value_set_id: str) -> frozenset[str]:
    """Every code of the terminology's value set `value_set_id`: for code lists a consumer needs without an
    installation at hand (codes carry no placeholder; only the systems do)."""
    resources = [_read_json(path) for path in sorted((PROFILES_DIR / "terminology").rglob("*.json"))]
    found = [resource for resource in resources if resource["id"] == value_set_id]
    if len(found) != 1:
        raise LookupError(f"the terminology has {len(found)} value sets with id {value_set_id!r}, not one")
    includes = found[0].get("compose", {}).get("include", [])
    return frozenset(concept["code"] for include in includes for concept in include.get("concept", []))


def _value_set_index(resource: Mapping[str, Any]) -> ValueSetIndex:
    systems: dict[str, frozenset[str] | None] = {}
    for include in resource.get("compose", {}).get("include", []):
        concepts = include.get("concept")
        codes = None if concepts is None else frozenset(c["code"] for c in concepts)
        previous = systems.get(include["system"], frozenset())
        systems[include["system"]] = None if codes is None or previous is None else previous | codes
    return ValueSetIndex(url=resource["url"], systems=systems)


def _operation(definition: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The operation with the bounds of each parameter that names a row of the Limits table (`"limit"`)."""
    for parameter in definition["parameter"]:
        if "limit" in parameter:
            if "minimum" in parameter or "maximum" in parameter:
                raise LimitsError(
                    f"operation {definition['id']}: parameter {parameter['name']} takes its bounds from limits.json; "
                    "it must not state its own"
                )
            bounds = limits.bounds(parameter["limit"])
            parameter.update(minimum=bounds.minimum, maximum=bounds.maximum)
    return definition


def _profile(definition: Mapping[str, Any], namespaces: Mapping[str, Namespace]) -> Profile:
    recognition = definition.get("recognition", {})
    return Profile(
        name=definition["name"],
        resource_type=definition["resourceType"],
        url=definition["url"],
        requirement=definition.get("requirement"),
        category_codings=tuple((c["system"], c["code"]) for c in recognition.get("category", [])),
        canonical_url=recognition.get("url"),
        evidence_required_in=frozenset(definition.get("evidenceRequiredIn", [])),
        writable=bool(definition.get("writable", False)),
        identifier_namespaces=tuple(ns.key for ns in namespaces.values() if definition["name"] in ns.profiles),
        rules=tuple(definition.get("rules", [])),
    )


def _per_context(requirement: str | Mapping[str, str] | None) -> Mapping[str, str]:
    if requirement is None:
        return {}
    if isinstance(requirement, str):
        return dict.fromkeys(CONTEXTS, requirement)
    return dict(requirement)


def _resource_rules(data: Mapping[str, Any], base: Mapping[str, Any]) -> ResourceRules:
    has_base = bool(data.get("base", False))
    recognition = data.get("profileRecognition", {})
    rules = (*base["rules"], *data["rules"]) if has_base else tuple(data["rules"])
    return ResourceRules(
        resource_type=data["resourceType"],
        schema=data.get("schema"),
        requirement=data.get("requirement"),
        has_base=has_base,
        writable=bool(data.get("writable", False)),
        profile_required_in=frozenset(recognition.get("requiredIn", [])),
        profile_recognition_requirement=_per_context(recognition.get("requirement")),
        rules=tuple(rules),
        filter_vocabularies={
            name: tuple(systems)
            for name, systems in data.get("filterVocabularies", {}).items()
            if name != "requirement"
        },
        element_requirements={
            name: requirement
            for name, requirement in {
                **(base.get("elementRequirements", {}) if has_base else {}),
                **data.get("elementRequirements", {}),
            }.items()
            if name != "description"
        },
    )


def load_contract(config: Path | str | Mapping[str, Any] | None = None, *, root: Path = PROFILES_DIR) -> Contract:
    """Read the contract data for the installation described by `config` (defaults if None; a mapping: a
    description already read, see load_installation)."""
    installation = load_installation(config)
    fill = installation.substitute

    value_set_resources: dict[str, Mapping[str, Any]] = {}
    for path in sorted((root / "terminology").rglob("*.json")):
        resource = fill(_read_json(path))
        value_set_resources[resource["url"]] = resource

    namespaces = {}
    for entry in fill(_read_json(root / "namespaces.json"))["namespaces"]:
        namespace = Namespace(
            key=entry["key"],
            system=entry["system"],
            title=entry["title"],
            reference_key=entry["referenceKey"],
            format=entry.get("format"),
            profiles=tuple(entry.get("profiles", [])),
            not_reference_key_for=tuple(entry.get("notReferenceKeyFor", [])),
        )
        namespaces[namespace.system] = namespace

    profiles = {}
    for path in sorted((root / "definitions").glob("*.json")):
        profile = _profile(fill(_read_json(path)), namespaces)
        profiles[profile.name] = profile

    base = fill(_read_json(root / "resources" / "DomainResource.json"))
    resources = {}
    for path in sorted((root / "resources").glob("*.json")):
        if path.stem != "DomainResource":
            rules = _resource_rules(fill(_read_json(path)), base)
            resources[rules.resource_type] = rules

    limits = load_limits(root / "limits.json")
    operations = {}
    for path in sorted((root / "operations").glob("*.json")):
        operation = _operation(fill(_read_json(path)), limits)
        operations[operation["id"]] = operation

    contract = Contract(
        installation=installation,
        value_set_resources=value_set_resources,
        value_sets={url: _value_set_index(vs) for url, vs in value_set_resources.items()},
        profiles=profiles,
        resources=resources,
        namespaces=namespaces,
        operations=operations,
        profiles_by_url={profile.url: profile for profile in profiles.values()},
        not_shown_types=frozenset(_read_json(root / "not-shown.json")["resourceTypes"]),
        limits=limits,
    )
    declared = [
        (key, f"{INSTALLATION_OID_ARC}{installation.number}.{arc}")
        for key, arcs in installation.more_namespace_keys.items()
        for arc in arcs
    ]
    return contract.with_namespaces(declared)
