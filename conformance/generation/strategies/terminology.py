"""Codes, Codings and CodeableConcepts drawn from the value sets of `profiles/terminology`, honouring
the bindings of an element: a required binding gets one coding from its set, an extensible one
gets codes of its set in its system, and any other coding comes from a system no binding there names."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.primitives import MAX_ITEMS, texts, tokens, uris
from profiles import Contract, ValueSetIndex

Coding = tuple[str, str]
"""A (system, code) pair."""


@dataclass(frozen=True)
class Binding:
    """A binding rule of an element: its value set and its strength."""

    value_set: ValueSetIndex
    strength: str


def bindings_from(contract: Contract, specs: Collection[Mapping[str, Any]]) -> tuple[Binding, ...]:
    """The binding rules of `specs` whose value set the terminology holds: one it lacks gives nothing to draw."""
    found = []
    for spec in specs:
        value_set = contract.value_sets.get(spec["valueSet"]) if spec["rule"] == "binding" else None
        if value_set is not None:
            found.append(Binding(value_set, spec["strength"]))
    return tuple(found)


def codes_in(value_set: ValueSetIndex, system: str, excluded: Collection[Coding] = ()) -> st.SearchStrategy[str]:
    """A code of `system` in `value_set`, never one of `excluded`."""
    codes = value_set.systems[system]
    if codes is None:  # the set takes every code of the system
        return tokens().filter(lambda code: (system, code) not in excluded)
    allowed = sorted(code for code in codes if (system, code) not in excluded)
    return st.sampled_from(allowed) if allowed else st.nothing()


def codes_outside(value_set: ValueSetIndex, system: str) -> st.SearchStrategy[str]:
    """A code of `system` that `value_set` does not hold (nothing when the set takes every code)."""
    codes = value_set.systems[system]
    if codes is None:
        return st.nothing()
    return tokens().filter(lambda code: code not in codes)


def coding(system: str, code: st.SearchStrategy[str]) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({"system": st.just(system), "code": code}, optional={"display": texts()})


def coding_in(value_set: ValueSetIndex, excluded: Collection[Coding] = ()) -> st.SearchStrategy[dict]:
    systems = _open_systems(value_set, excluded)
    if not systems:
        return st.nothing()
    return st.sampled_from(systems).flatmap(lambda system: coding(system, codes_in(value_set, system, excluded)))


def _open_systems(value_set: ValueSetIndex, excluded: Collection[Coding]) -> list[str]:
    """The systems of `value_set` with a code left once `excluded` are taken out."""
    return [
        s for s in sorted(value_set.systems) if value_set.systems[s] is None or _has_allowed(value_set, s, excluded)
    ]


def _has_allowed(value_set: ValueSetIndex, system: str, excluded: Collection[Coding]) -> bool:
    return any((system, code) not in excluded for code in value_set.systems[system] or ())


def _all_systems(contract: Contract) -> frozenset[str]:
    return frozenset(system for value_set in contract.value_sets.values() for system in value_set.systems)


def free_coding(
    contract: Contract, *, avoid_systems: Collection[str] = (), excluded: Collection[Coding] = ()
) -> st.SearchStrategy[dict]:
    """A coding no binding of the element constrains: from a value set of another system, or from a
    system outside the terminology."""
    known = _all_systems(contract)
    other_sets = [
        url
        for url, value_set in sorted(contract.value_sets.items())
        if not set(value_set.systems) & set(avoid_systems) and _open_systems(value_set, excluded)
    ]
    outside = st.builds(lambda system, code: {"system": system, "code": code}, uris(), tokens()).filter(
        lambda c: c["system"] not in known
    )
    inside = (
        st.sampled_from(other_sets).flatmap(lambda url: coding_in(contract.value_sets[url], excluded))
        if other_sets
        else None
    )
    return outside if inside is None else st.one_of(inside, outside)


def concept(
    contract: Contract, bindings: Collection[Binding] = (), *, excluded: Collection[Coding] = ()
) -> st.SearchStrategy[dict]:
    """A CodeableConcept that satisfies every binding of its element; codings in `excluded` never appear."""
    required = [coding_in(b.value_set, excluded) for b in bindings if b.strength == "required"]
    bound_systems = {system for b in bindings for system in b.value_set.systems}
    # a required set gives exactly one coding: two codes of one required set would contradict each other
    choices = [coding_in(b.value_set, excluded) for b in bindings if b.strength != "required"]
    choices.append(free_coding(contract, avoid_systems=bound_systems, excluded=excluded))
    extra = st.lists(st.one_of(choices), max_size=MAX_ITEMS)
    codings = st.tuples(st.tuples(*required), extra).flatmap(lambda parts: st.permutations([*parts[0], *parts[1]]))
    concepts = codings.map(lambda listed: {"coding": list(listed)})
    return concepts if required else st.one_of(st.just({}), concepts)


def bare_code(contract: Contract, bindings: Collection[Binding]) -> st.SearchStrategy[str]:
    """A code written without its system (as in `attribute[].code`), good for every binding."""
    required = [b.value_set for b in bindings if b.strength == "required"]
    finite = sorted(
        {code for b in bindings for codes in b.value_set.systems.values() if codes is not None for code in codes}
    )
    if required:  # the code must be in every required set; a set that takes any code of a system takes it
        candidates = st.sampled_from(finite) | tokens() if finite else tokens()
        return candidates.filter(lambda code: all(vs.contains_bare_code(code) for vs in required))
    return st.sampled_from(finite) | tokens() if finite else tokens()
