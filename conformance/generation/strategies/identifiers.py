"""Identifiers in the namespaces of `profiles/namespaces.json`, with values that pass the registry
checks of `profiles/identifier_formats.py` (NIP, REGON, PESEL check digits; EU VAT prefixes).

The check digits are not computed here a second time: a value is drawn up to its last character,
and the last character is chosen among those the registry check itself accepts.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cache
from itertools import product
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.primitives import tokens, uris
from profiles import Contract, Namespace, Profile
from profiles.identifier_formats import FORMATS
from profiles.installation import INSTALLATION_OID_ARC

_LONGEST_PROBED = 20


def is_installation(namespace: Namespace) -> bool:
    return namespace.system.startswith(INSTALLATION_OID_ARC)


@cache
def _digit_lengths(format_name: str) -> tuple[int, ...]:
    """The lengths of all-digit values the check accepts, found by asking it about strings of zeros."""
    check = FORMATS[format_name][0]
    return tuple(n for n in range(1, _LONGEST_PROBED + 1) if check("0" * n))


@cache
def _prefixes(format_name: str) -> tuple[str, ...]:
    """Two-letter prefixes the check accepts in front of digits (the EU member-state codes of VAT numbers)."""
    check = FORMATS[format_name][0]
    return tuple(a + b for a, b in product(string.ascii_uppercase, repeat=2) if check(f"{a}{b}00000000"))


def _completed(check: Callable[[str], bool], head: str, alphabet: str) -> st.SearchStrategy[str]:
    accepted = [head + last for last in alphabet if check(head + last)]
    return st.sampled_from(accepted) if accepted else st.nothing()


def registry_values(format_name: str) -> st.SearchStrategy[str]:
    """Values of a registry format of `profiles/identifier_formats.py` that pass its check."""
    check = FORMATS[format_name][0]
    lengths = _digit_lengths(format_name)
    if lengths:
        heads = st.sampled_from(lengths).flatmap(lambda n: st.text(string.digits, min_size=n - 1, max_size=n - 1))
        # a head whose every last digit fails (NIP's checksum 10) is drawn again
        return heads.filter(lambda head: any(check(head + d) for d in string.digits)).flatmap(
            lambda head: _completed(check, head, string.digits)
        )
    prefixes = _prefixes(format_name)
    if prefixes:
        bodies = st.text(string.digits + string.ascii_uppercase, min_size=2, max_size=12)
        return st.builds(lambda prefix, body: prefix + body, st.sampled_from(prefixes), bodies).filter(check)
    raise ValueError(f"no way to draw values of identifier format {format_name!r}; teach identifiers.py")


def values_of(namespace: Namespace) -> st.SearchStrategy[str]:
    """A value in `namespace`: one passing its registry check when it has a format."""
    return registry_values(namespace.format) if namespace.format else tokens()


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def own_namespaces(contract: Contract, resource_type: str, profiles: Collection[Profile]) -> tuple[Namespace, ...]:
    """The namespaces a resource's own identifiers live in: those that list one of its profiles, the
    one named after its type (`fixed-asset-document` for FixedAssetDocument), and, for a type whose
    profiles have namespaces of their own (Party), the public registries that list no profile."""
    names = {profile.name for profile in profiles}
    type_profiles = {profile.name for profile in contract.profiles_of(resource_type)}
    typed = _kebab(resource_type)
    registries = _any_namespace_lists(contract, type_profiles)

    def owns(namespace: Namespace) -> bool:
        listed = set(namespace.profiles)
        if listed & names or namespace.key == typed:
            return True
        return registries and not listed and not is_installation(namespace)

    return tuple(namespace for namespace in contract.namespaces.values() if owns(namespace))


def _any_namespace_lists(contract: Contract, profile_names: set[str]) -> bool:
    return any(set(namespace.profiles) & profile_names for namespace in contract.namespaces.values())


def admissible(
    namespaces: Sequence[Namespace], specs: Collection[Mapping[str, Any]], applied: Collection[Profile]
) -> tuple[Namespace, ...]:
    """The namespaces the identifier rules at one path let through."""
    allowed = list(namespaces)
    for spec in specs:
        if spec["rule"] == "installation-identifier" and spec.get("mustBeInstallation"):
            allowed = [ns for ns in allowed if is_installation(ns)]
        elif spec["rule"] == "profile-namespace" and applied:
            keys = {key for profile in applied for key in profile.identifier_namespaces}
            allowed = [ns for ns in allowed if not is_installation(ns) or ns.key in keys]
    return tuple(allowed)


def foreign_allowed(specs: Collection[Mapping[str, Any]]) -> bool:
    """Whether a system outside the contract's namespaces (an industry registry) may be used."""
    return not any(spec["rule"] == "installation-identifier" and spec.get("mustBeInstallation") for spec in specs)


def foreign_systems(contract: Contract) -> st.SearchStrategy[str]:
    return uris().filter(lambda system: contract.namespace_of(system) is None)


def identifier(
    contract: Contract,
    namespaces: Sequence[Namespace],
    *,
    foreign: bool = True,
    value: bool | None = True,
) -> st.SearchStrategy[dict]:
    """An Identifier in one of `namespaces` (or, with `foreign`, in a system outside the contract).
    `value`: True always has one, False never (the service assigns it), None either."""
    choices = [st.just((ns.system, values_of(ns))) for ns in namespaces]
    if foreign:
        choices.append(foreign_systems(contract).map(lambda system: (system, tokens())))
    if not choices:
        return st.nothing()

    def build(pair: tuple[str, st.SearchStrategy[str]]) -> st.SearchStrategy[dict]:
        system, values = pair
        optional = {"type": tokens()}
        if value is None:
            optional["value"] = values
        required = {"system": st.just(system)}
        if value:
            required["value"] = values
        return st.fixed_dictionaries(required, optional=optional)

    return st.one_of(choices).flatmap(build)
