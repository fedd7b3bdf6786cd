"""What a target publishes about its installation, read instead of asked for: every placeholder value and
installation namespace key of the contract that its reads show, each with the read it came from.

The contract shows few shapes here (NamingSystem: "the key, the actual system, and the reference key"; the rest of
its fields are not shown), so discovery reads the data the contract does type:

- every identifier carries its system, and `urn:oid:1.2.616.1.113769.4.<installation>.<key>` names the installation
  and the key of the namespace of the kind of item it identifies (a Party by its profile, recognised as the
  validator recognises it; a FixedAssetDocument, a DocumentReference, ...: profiles/namespaces.json);
- the public registries' systems by the values of Party identifiers (conformance/discovery/registry_systems.py);
- {ns_url} from meta.profile URLs ({ns_url}/StructureDefinition/<profile>), {vocab_url} from the URLs of the
  implementation-defined value sets ({vocab_url}/<name>), else from the systems of codings.

A NamingSystem counts where its values say something whatever its member names: a string that is a namespace key
of the contract beside the system, a yes/no beside it (the reference key). What cannot be found is reported as
missing; what is seen twice with different answers, as a conflict (conformance/discovery/installation_evidence.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from conformance.client.bounded_http import AnswerTooLarge, BoundedClient
from conformance.configuration.settings import DEFAULT_MAX_ANSWER_SIZE, DEFAULT_REQUEST_TIMEOUT
from conformance.discovery.installation_evidence import Candidate, Conflict, Discovery, NamespaceEvidence
from conformance.discovery.naming_system_items import PublishedNamespace, read_naming_system
from conformance.discovery.registry_systems import Recognition, recognise_registries, registry_placeholders
from conformance.discovery.served_values import (
    codings,
    identifiers,
    installation_arcs,
    profile_claims,
    reference_systems,
)
from profiles import Contract, load_contract
from profiles.validator import Validator

__all__ = ["READS", "Discovery", "derive", "discover", "published_namespaces"]

PARTIES = "/v1/parties"
NAMING_SYSTEMS = "/v1/naming-systems"
VALUE_SETS = "/v1/value-sets"
READS: dict[str, tuple[str, str | None]] = {
    PARTIES: ("Party", None),
    "/v1/fixed-asset-documents": ("FixedAssetDocument", "fixed-asset-document"),
    "/v1/document-references": ("DocumentReference", "document-reference"),
    "/v1/capabilities": ("Capability", "capability"),
    "/v1/fixed-assets": ("FixedAsset", "fixed-asset"),
    "/v1/asset-components": ("AssetComponent", "fixed-asset"),
    "/v1/locations": ("Location", "location"),
    "/v1/cost-centers": ("CostCenter", "cost-center"),
}
"""The list reads whose items are identified in an installation namespace -> (resource type, the namespace's key
in profiles/namespaces.json; a Party's follows its profile)."""
_PAGE = 100
_MOST_PAGES = 10


def discover(
    base_url: str,
    *,
    token: str | None = None,
    client: httpx.Client | None = None,
    timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE,
) -> Discovery:
    """Read the target at `base_url` (without /v1) and return what it shows of its installation. Each answer is
    read within `timeout` seconds and `max_answer_size` bytes; one that is not counts among the problems."""
    own = client or _client(base_url, timeout, max_answer_size)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    problems: list[str] = []
    try:
        served = {path: _items(own, path, headers, problems) for path in (*READS, NAMING_SYSTEMS, VALUE_SETS)}
    finally:
        if client is None:
            own.close()
    found = derive(served)
    found.problems = problems
    return found


def _client(base_url: str, timeout: float, max_answer_size: int) -> httpx.Client:
    return BoundedClient(base_url=base_url.rstrip("/"), request_timeout=timeout, max_answer_size=max_answer_size)


def _items(client: httpx.Client, path: str, headers: dict[str, str], problems: list[str]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    try:
        for _ in range(_MOST_PAGES):
            response = client.get(path, params={"count": _PAGE, "offset": len(items)}, headers=headers)
            if response.status_code != 200:
                problems.append(f"GET {path} answered {response.status_code}")
                break
            page = response.json().get("items")
            if not isinstance(page, list) or not page:
                break
            items += [item for item in page if isinstance(item, dict)]
            if len(page) < _PAGE:
                break
    except httpx.TransportError as error:  # no answer: is the target still answering at all?
        if not _answers(client, headers):
            raise TargetStoppedAnswering(
                f"GET {path}: {str(error) or type(error).__name__}; and GET {VALUE_SETS} after it had no answer either"
            ) from None
        problems.append(f"GET {path} could not be read: {str(error) or type(error).__name__}")
    except (httpx.HTTPError, ValueError, AttributeError) as error:
        problems.append(f"GET {path} could not be read: {str(error) or type(error).__name__}")
    return items


class TargetStoppedAnswering(Exception):
    """A read met no answer, nor did one more request after it: the target has stopped answering, and reading on
    would only wait the request timeout for each read left."""


def _answers(client: httpx.Client, headers: dict[str, str]) -> bool:
    try:
        client.get(VALUE_SETS, params={"count": 1}, headers=headers)
    except AnswerTooLarge:
        return True
    except httpx.HTTPError:
        return False
    return True


def derive(served: dict[str, list[dict[str, Any]]]) -> Discovery:
    """What the items of each read (path -> items) show of the installation."""
    example = load_contract(None)  # the shipped example installation: its keys and names, not its values
    found = Discovery()
    _bases(example, served, found)
    # profiles are recognised by their URLs and category systems: under the bases this target uses
    bases = {name: found.values[name] for name in ("ns_url", "vocab_url") if name in found.values}
    contract = load_contract({"installation": bases})
    recognise = Validator(contract).recognised_profiles
    parties = [(party, tuple(p.name for p in recognise(party, "Party"))) for party in served.get(PARTIES, [])]
    groups = _namespace_groups(example)
    evidence = NamespaceEvidence()
    for party, profiles in parties:
        kinds = {group for name in profiles for group in groups.get(name, ())}
        _identified(evidence, PARTIES, party, kinds.pop() if len(kinds) == 1 else None, profiles)
    usage = _usage_groups(example, groups)
    keys = {namespace.key for namespace in example.namespaces.values()}
    published = [
        (read_naming_system(item, keys, [*usage, "Party"]), f"GET {NAMING_SYSTEMS}")
        for item in served.get(NAMING_SYSTEMS, [])
    ]
    for path, (_, key) in READS.items():
        if key is None:
            continue
        for item in served.get(path, []):
            _identified(evidence, path, item, (key,))
    for path, items in served.items():
        for item in items:
            for arcs in filter(None, map(installation_arcs, reference_systems(item))):
                evidence.installation(arcs, f"GET {path} (references)")
                evidence.referenced.setdefault(arcs, []).append(f"GET {path}")
    _naming_systems(example, published, evidence, usage)
    evidence.decide(found, list(dict.fromkeys(g for kinds in groups.values() for g in kinds)))
    _registries(example, recognise_registries(example, parties, published, f"GET {PARTIES}"), found)
    return found


def _usage_groups(example: Contract, groups: dict[str, tuple[tuple[str, ...], ...]]) -> dict[str, tuple[str, ...]]:
    """Resource type or profile name a NamingSystem's usage may name -> the namespace kinds (a group) of the items
    it names: a Party's by its profile; another resource's, and its profiles', by the read that lists it."""
    usage = {name: kinds[0] for name, kinds in groups.items() if name in example.profiles and len(kinds) == 1}
    for resource_type, key in READS.values():
        if key is not None:
            usage[resource_type] = (key,)
            usage.update({profile.name: (key,) for profile in example.profiles_of(resource_type)})
    return usage


def _registries(example: Contract, recognition: Recognition, found: Discovery) -> None:
    """Each registry's system: the one system shown to be it (the one the target names outright, among several);
    a conflict where more than one is, or where what the target says and what its values show disagree."""
    for key, placeholder in registry_placeholders(example).items():
        chosen, disputed = recognition.chosen(key), recognition.disputed.get(key, [])
        if disputed and not (len(chosen) == 1 and chosen[0].said):
            candidates = tuple(Candidate(placeholder, r.system, (r.evidence,)) for r in [*chosen, *disputed])
            reason = "what the target says of a system and what its values show differ"
            found.conflicts.append(Conflict(candidates, reason))
            continue
        found.settle(placeholder, {r.system: [r.evidence] for r in chosen}, "more than one system is this registry")
        for registry in chosen if len(chosen) == 1 else []:
            if registry.failing:
                shown = ", ".join(registry.failing[:3]) + (", ..." if len(registry.failing) > 3 else "")
                found.warnings.append(
                    f"{len(registry.failing)} value{'s' if len(registry.failing) > 1 else ''} in {placeholder} "
                    f"{registry.system} fail{'' if len(registry.failing) > 1 else 's'} the {key} check "
                    f"({shown}): warnings (identifier-{key}-invalid), as eris validate reports them"
                )


def _namespace_groups(example: Contract) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Profile name (or namespace key, for the kinds that are no Party) -> the installation namespace kinds its
    items are identified in, as one group (a Contractor's two namespaces are told apart later)."""
    installation_keys = set(example.installation.namespace_keys)
    groups: dict[str, tuple[tuple[str, ...], ...]] = {}
    for profile in example.profiles_of("Party"):
        group = tuple(key for key in profile.identifier_namespaces if key in installation_keys)
        if group:
            groups[profile.name] = (group,)
    claimed = {key for kinds in groups.values() for group in kinds for key in group}
    for key in example.installation.namespace_keys:
        if key not in claimed:
            groups[key] = ((key,),)
    return groups


def _identified(
    evidence: NamespaceEvidence,
    path: str,
    item: dict[str, Any],
    group: tuple[str, ...] | None,
    profiles: tuple[str, ...] = (),
) -> None:
    """The installation namespaces of the item's own identifiers: of its kind when it has one (`group`)."""
    whose = f"identifiers of {' and '.join(profiles)} parties" if profiles else "identifiers"
    own = [arcs for arcs in (installation_arcs(i["system"]) for i in identifiers(item)) if arcs is not None]
    for arcs in own:
        if group is None:
            evidence.installation(arcs, f"GET {path} ({whose})")
        else:
            evidence.identified(arcs, group, f"GET {path} ({whose})", alone=len(set(own)) == 1)


def _bases(example: Contract, served: dict[str, list[dict[str, Any]]], found: Discovery) -> None:
    """{ns_url} from meta.profile, {vocab_url} from value-set URLs, else from codings."""
    profile_bases: dict[str, list[str]] = {}
    for path, items in served.items():
        for item in items:
            for base, profile in profile_claims(item):
                if profile in example.profiles:
                    _add(profile_bases, base, f"GET {path} (meta.profile)")
    found.settle("ns_url", profile_bases, "the target claims profiles under more than one base")
    example_vocabulary = example.installation.values["vocab_url"] + "/"
    defined = {p.canonical_url.removeprefix(example_vocabulary) for p in example.profiles.values() if p.canonical_url}
    listed: dict[str, list[str]] = {}
    for item in served.get(VALUE_SETS, []):
        if (listed_base := _base_of(item.get("url"), defined)) is not None:
            _add(listed, listed_base, f"GET {VALUE_SETS} (implementation-defined value sets)")
    if listed:
        found.settle("vocab_url", listed, "the implementation-defined value sets lie under more than one base")
        return
    # Systems the contract or its profiles place under {vocab_url}: the category of each profile, and the
    # vocabularies of a domain (warehouse/document-type, ...). A one-word name alone (address-use) is FHIR's too.
    recognition = {s.removeprefix(example_vocabulary) for p in example.profiles.values() for s, _ in p.category_codings}
    domain = {url.removeprefix(example_vocabulary) for url in example.value_sets if url.startswith(example_vocabulary)}
    named = recognition | {name for name in domain if "/" in name}
    coded: dict[str, list[str]] = {}
    for path, items in served.items():
        for item in items:
            for system, _ in codings(item):
                if (coded_base := _base_of(system, named)) is not None:
                    _add(coded, coded_base, f"GET {path} (coding systems)")
    found.settle("vocab_url", coded, "coding systems of the contract's vocabularies lie under more than one base")


def _base_of(url: Any, names: set[str]) -> str | None:
    if not isinstance(url, str):
        return None
    name = max((n for n in names if url.endswith("/" + n)), key=len, default=None)
    return None if name is None or len(url) == len(name) + 1 else url[: -len(name) - 1]


def _naming_systems(
    example: Contract,
    published: list[tuple[PublishedNamespace, str]],
    evidence: NamespaceEvidence,
    usage: dict[str, tuple[str, ...]],
) -> None:
    """What each NamingSystem of an installation namespace says of it (conformance/discovery/naming_system_items.py):
    the contract's key, or the kind its usage names; its reference-key yes/no. Those of the registries are weighed with
    the parties' identifiers (conformance/discovery/registry_systems.py)."""
    installation_keys = set(example.installation.namespace_keys)
    for namespace, read in published:
        arcs = installation_arcs(namespace.system)
        if arcs is None:
            continue
        evidence.installation(arcs, read)
        evidence.published.add(arcs)
        named = namespace.keys & installation_keys
        kinds = {usage[name] for name in namespace.usage if name in usage}
        if len(named) == 1:
            key = next(iter(named))
            _add(evidence.named.setdefault(arcs, {}), key, f"{read} (key {key})")
        elif not named and len(kinds) == 1:
            usage_named = ", ".join(sorted(namespace.usage))
            _add(evidence.used.setdefault(arcs, {}), kinds.pop(), f"{read} (usage {usage_named})")
        if namespace.reference_key is not None:
            _add(evidence.flags.setdefault(arcs, {}), namespace.reference_key, read)


def _add(table: dict[Any, list[str]], value: Any, source: str) -> None:
    sources = table.setdefault(value, [])
    if source not in sources:
        sources.append(source)


def published_namespaces(
    contract: Contract,
    base_url: str,
    *,
    token: str | None = None,
    client: httpx.Client | None = None,
    timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE,
) -> list[tuple[str, str]]:
    """(key, system) of every namespace the target publishes at GET /v1/naming-systems by the contract's key
    (nothing when it cannot be read: the configured namespaces stay). More than one system may share a key."""
    own = client or _client(base_url, timeout, max_answer_size)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        return list(_key_and_system(contract, _items(own, NAMING_SYSTEMS, headers, [])))
    finally:
        if client is None:
            own.close()


def _key_and_system(contract: Contract, items: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(namespace key, system) of each naming system that names exactly one key of the contract and a system, read
    as discovery reads it, unless its reference key says it is not of that kind (a number beside the id)."""
    reference_key = {namespace.key: namespace.reference_key for namespace in contract.namespaces.values()}
    for item in items:
        namespace = read_naming_system(item, reference_key, ())
        if len(namespace.keys) == 1 and namespace.system is not None:
            [key] = namespace.keys
            if namespace.reference_key in (None, reference_key[key]):
                yield key, namespace.system
