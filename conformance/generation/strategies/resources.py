"""Valid payloads of a resource type, compiled from its schema file and the rule rows of
`profiles/resources` and `profiles/definitions` that apply in a context.

The schema gives the shape: members, required ones, closed or open objects, arrays, enums,
patterns. The rule rows narrow it where they apply: a binding picks the codes of an element, an
identifier rule the namespaces and values, `required`/`absent`/`null-or-absent` the members of an
object, a profile its claim and evidence. Shared types the rules talk about (CodeableConcept,
Coding, Identifier, Reference) have their own strategies; everything else is drawn from the schema. What a payload is
drawn for (its plan) is plans.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies import identifiers as ids
from conformance.generation.strategies.plans import (
    IdentifierPolicy,
    Path,
    Plan,
    profiles_drawn,
    rules_by_path,
    terminology_resources,
)
from conformance.generation.strategies.primitives import MAX_ITEMS, json_values, member_names, texts, uris
from conformance.generation.strategies.recognition import (
    foreign_canonical_urls,
    foreign_evidence_codings,
    showings,
)
from conformance.generation.strategies.schema_index import Node, json_types, schema_index
from conformance.generation.strategies.terminology import bare_code, bindings_from, coding_in, concept, free_coding
from profiles import Contract, Profile
from profiles.coded import codes_of
from profiles.validator import RESOURCE

HONOURED_RULES = frozenset(
    {
        "binding",  # terminology.concept / bare_code
        "required",  # _object
        "absent",  # _object
        "null-or-absent",  # _object
        "installation-identifier",  # identifiers.admissible, identifiers.foreign_allowed
        "profile-namespace",  # identifiers.admissible
        "identifier-format",  # identifiers.values_of: every value of a namespace with a format passes it
        "reference-key",  # _identifier
        "profile-reference-key",  # _identifier
        "implementation-defined-version",  # _DOCUMENT_RULES
        "codes-elsewhere",  # _value: the codes of the set are drawn nowhere else
        "reference-form",  # reports information only: any form drawn is no error
    }
)
"""The rule functions of profiles/ whose rows the payloads drawn here honour (the report rules are
honoured by reports.py); a test fails when the profile data name another one."""


def payloads(
    contract: Contract,
    resource_type: str,
    *,
    profile: str | None = None,
    context: str = RESOURCE,
    identifiers: IdentifierPolicy | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Payloads of `resource_type` (of `profile`, if given) with no error in `context`."""
    if resource_type not in contract.resources:
        raise ValueError(f"{resource_type!r} is not a resource type of the contract")
    schema = contract.resources[resource_type].schema
    if schema is None:
        raise ValueError(f"{resource_type} has no schema to draw payloads from")
    schema_name = schema.removesuffix(".schema.json")
    policy = identifiers or IdentifierPolicy()

    def for_profiles(profiles: tuple[Profile, ...]) -> st.SearchStrategy[dict[str, Any]]:
        rules = rules_by_path(contract, resource_type, profiles, context)
        shown = profiles[0] if profiles else None
        # built once per way of showing the profile, not once per example
        documents = [
            _document(
                Plan(contract, schema_index(), resource_type, schema_name, profiles, context, rules, showing, policy)
            )
            for showing in showings(shown, context)
        ]
        known = terminology_resources(contract, resource_type, profiles)
        if known and context == RESOURCE:
            documents.append(st.sampled_from(known))
        return st.one_of(documents)

    return st.one_of([for_profiles(profiles) for profiles in profiles_drawn(contract, resource_type, profile, context)])


def _document(plan: Plan) -> st.SearchStrategy[dict[str, Any]]:
    root = plan.index.root(plan.schema_name)
    overrides: dict[str, st.SearchStrategy] = {}
    required = set()
    properties = plan.index.object_view(root).properties
    if "meta" in properties:
        overrides["meta"] = _meta(plan)
        if plan.showing.claim:
            required.add("meta")
    if "category" in properties:
        overrides["category"] = _categories(plan)
        if plan.showing.evidence and any(p.category_codings for p in plan.profiles):
            required.add("category")
    if "identifier" in properties and properties["identifier"].schema is not False:
        overrides["identifier"] = _identifier_list(plan)
        if plan.identifiers.target is not None:
            required.add("identifier")
    if "url" in properties and _url_matters(plan):
        overrides["url"] = _url(plan)
        if plan.showing.evidence and any(p.canonical_url for p in plan.profiles):
            required.add("url")
    document = _object(plan, root, (), overrides=overrides, also_required=required)
    for spec in plan.specs(()):
        adjust = _DOCUMENT_RULES.get(spec["rule"])
        if adjust is not None:
            document = document.map(partial(adjust, plan.contract))
    return document


def _url_matters(plan: Plan) -> bool:
    """The url recognises profiles of the type, or a rule reads it."""
    return any(p.canonical_url for p in plan.contract.profiles_of(plan.resource_type)) or plan.has_rule(
        (), "implementation-defined-version"
    )


def _implementation_defined_version(contract: Contract, payload: dict[str, Any]) -> dict[str, Any]:
    """A summary {url, version} of an implementation-defined value set reports version null."""
    canonical = {p.canonical_url for p in contract.profiles.values() if p.canonical_url}
    return {**payload, "version": None} if payload.get("url") in canonical else payload


_DOCUMENT_RULES: dict[str, Callable[[Contract, dict[str, Any]], dict[str, Any]]] = {
    "implementation-defined-version": _implementation_defined_version,
}
"""Rules over a whole document that the member strategies cannot honour one by one."""


def _value(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[Any]:
    drawn = _drawn(plan, node, path)
    elsewhere = frozenset(
        code
        for spec in plan.specs(path)
        if spec["rule"] == "codes-elsewhere"
        for codes in plan.contract.value_sets[spec["valueSet"]].systems.values()
        for code in codes or ()
    )
    return drawn.filter(lambda value: not elsewhere.intersection(codes_of(value))) if elsewhere else drawn


def _drawn(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[Any]:
    if node.schema is True:
        return json_values()
    if node.schema is False:
        return st.nothing()
    shared = _SHARED_TYPES.get(plan.index.type_name(node) or "")
    if shared is not None:
        return shared(plan, node, path)
    index = plan.index
    specs = plan.specs(path)
    if any(spec["rule"] == "binding" for spec in specs):
        return bare_code(plan.contract, bindings_from(plan.contract, specs))
    const = index.keyword(node, "const")
    if const is not None:
        return st.just(const)
    enum = index.keyword(node, "enum")
    if enum is not None:
        return st.sampled_from(enum)
    branches = index.keyword(node, "anyOf")
    if branches is not None:
        base = next(part.base for part in index.chain(node) if "anyOf" in part.keywords)
        return st.one_of([_value(plan, Node(branch, base), path) for branch in branches])
    types = json_types(index, node)
    if types is None:
        return _object(plan, node, path) if index.keyword(node, "properties") else json_values()
    return st.one_of([_typed(plan, node, path, name) for name in sorted(types)])


def _typed(plan: Plan, node: Node, path: Path, json_type: str) -> st.SearchStrategy[Any]:
    index = plan.index
    if json_type == "object":
        return _object(plan, node, path)
    if json_type == "array":
        items = index.items(node)
        return st.lists(json_values() if items is None else _value(plan, items, path), max_size=MAX_ITEMS)
    if json_type == "string":
        pattern = index.keyword(node, "pattern")
        if pattern is not None:
            return _matching(pattern)
        if index.keyword(node, "format") in ("uri", "uri-reference"):
            return uris()
        return texts()
    if json_type == "integer":
        return st.integers(index.keyword(node, "minimum"), index.keyword(node, "maximum"))
    if json_type == "number":
        low, high = index.keyword(node, "minimum"), index.keyword(node, "maximum")
        return st.integers(low, high) | st.floats(low, high, allow_nan=False, allow_infinity=False)
    if json_type == "boolean":
        return st.booleans()
    if json_type == "null":
        return st.none()
    raise ValueError(f"JSON type {json_type!r} at {'.'.join(path)} is not known to the strategies")


@cache
def _matching(pattern: str) -> st.SearchStrategy[str]:
    return st.from_regex(pattern, fullmatch=True)


def _object(
    plan: Plan,
    node: Node,
    path: Path,
    *,
    overrides: Mapping[str, st.SearchStrategy] | None = None,
    also_required: set[str] | frozenset[str] = frozenset(),
) -> st.SearchStrategy[dict[str, Any]]:
    view = plan.index.object_view(node)
    specs = plan.specs(path)
    required = view.required | also_required | {s["element"] for s in specs if s["rule"] == "required"}
    forbidden = {s["element"] for s in specs if s["rule"] == "absent"}
    forbidden |= {name for name, member in view.properties.items() if member.schema is False}
    nullable = {s["element"] for s in specs if s["rule"] == "null-or-absent"}
    members: dict[str, st.SearchStrategy] = {}
    for name, member in view.properties.items():
        if name in forbidden:
            continue
        if name in nullable:
            members[name] = st.none()
        elif overrides and name in overrides:
            members[name] = overrides[name]
        else:
            members[name] = _value(plan, member, (*path, name))
    declared = st.fixed_dictionaries(
        {name: s for name, s in members.items() if name in required},
        optional={name: s for name, s in members.items() if name not in required},
    )
    if view.closed and view.additional is None:
        return declared
    extra_values = json_values() if view.additional is None else _value(plan, view.additional, (*path, "*"))
    names = member_names().filter(lambda name: name not in view.properties)
    extras = st.dictionaries(names, extra_values, max_size=MAX_ITEMS)
    return st.builds(lambda known, extra: {**extra, **known}, declared, extras)


# -- shared types ------------------------------------------------------------------------------------


def _codeable_concept(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[dict]:
    excluded = _excluded_codings(plan) if path == ("category",) else frozenset()
    return concept(plan.contract, bindings_from(plan.contract, plan.specs(path)), excluded=excluded)


def _coding(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[dict]:
    bindings = bindings_from(plan.contract, plan.specs(path))
    if bindings:
        return st.one_of([coding_in(b.value_set) for b in bindings])
    return free_coding(plan.contract)


def _identifier(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[dict]:
    """An Identifier inside a Reference (or elsewhere but the resource's own list)."""
    specs = plan.specs(path)
    namespaces = list(plan.contract.namespaces.values())
    if plan.has_rule(path[:-1], "reference-key"):
        namespaces = [ns for ns in namespaces if ns.reference_key]
    if plan.has_rule(path[:-1], "profile-reference-key"):
        namespaces = [ns for ns in namespaces if ns.is_reference_key_for(plan.profiles)]
    allowed = ids.admissible(namespaces, specs, plan.profiles)
    return ids.identifier(plan.contract, allowed, foreign=ids.foreign_allowed(specs), value=True)


def _reference(plan: Plan, node: Node, path: Path) -> st.SearchStrategy[dict]:
    types = sorted(name for name, rules in plan.contract.resources.items() if rules.has_base)
    return _object(plan, node, path, overrides={"type": st.sampled_from(types)})


_SHARED_TYPES: dict[str, Callable[[Plan, Node, Path], st.SearchStrategy]] = {
    "CodeableConcept": _codeable_concept,
    "Coding": _coding,
    "Identifier": _identifier,
    "Reference": _reference,
}


# -- the members that show the profile and the resource's own identifiers ---------------------------


def _excluded_codings(plan: Plan) -> frozenset[tuple[str, str]]:
    return foreign_evidence_codings(plan.contract, plan.resource_type, plan.profiles)


def _meta(plan: Plan) -> st.SearchStrategy[dict]:
    extras = st.dictionaries(member_names().filter(lambda name: name != "profile"), json_values(), max_size=MAX_ITEMS)
    if not plan.showing.claim:
        return extras
    urls = [p.url for p in plan.profiles]
    return extras.map(lambda extra: {**extra, "profile": list(urls)})


def _categories(plan: Plan) -> st.SearchStrategy[list]:
    item = concept(
        plan.contract, bindings_from(plan.contract, plan.specs(("category",))), excluded=_excluded_codings(plan)
    )
    drawn = st.lists(item, max_size=MAX_ITEMS)
    evidence = [c for p in plan.profiles for c in p.category_codings]
    if not (plan.showing.evidence and evidence):
        return drawn
    shown = st.sampled_from(evidence).map(lambda c: {"coding": [{"system": c[0], "code": c[1]}]})
    return st.tuples(drawn, shown).flatmap(lambda parts: st.permutations([*parts[0], parts[1]])).map(list)


def _url(plan: Plan) -> st.SearchStrategy[str]:
    canonical = [p.canonical_url for p in plan.profiles if p.canonical_url]
    if canonical and plan.showing.evidence:
        return st.sampled_from(canonical)
    foreign = foreign_canonical_urls(plan.contract, plan.resource_type, plan.profiles)
    if plan.has_rule((), "implementation-defined-version"):
        foreign = frozenset()  # the summary of any value set, implementation-defined ones included
    known = sorted(url for url in plan.contract.value_set_resources if url not in foreign)
    others = uris().filter(lambda url: url not in foreign)
    return st.sampled_from(known) | others if known else others


def _identifier_list(plan: Plan) -> st.SearchStrategy[list]:
    specs = plan.specs(("identifier",))
    own = ids.own_namespaces(plan.contract, plan.resource_type, plan.profiles)
    allowed = ids.admissible(own, specs, plan.profiles)
    foreign = ids.foreign_allowed(specs)
    policy = plan.identifiers
    assigned = [ns for ns in allowed if ns.key in policy.assigned]
    valued = [ns for ns in allowed if ns.key not in policy.assigned]
    rest = st.lists(ids.identifier(plan.contract, valued, foreign=foreign, value=True), max_size=MAX_ITEMS)
    if policy.target is not None:
        first: st.SearchStrategy[list] = policy.target.map(lambda target: [dict(target)])
    elif assigned:
        first = st.just([]) | ids.identifier(plan.contract, assigned, foreign=False, value=False).map(lambda i: [i])
    else:
        first = st.just([])
    return st.builds(lambda head, tail: [*head, *tail], first, rest)
