"""The rule kinds of identifiers and references (their namespaces, registry formats and reference keys), each with its
explanation and the schema the clean gate holds it by (profiles/rules.py says how the two halves stand together)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any

from profiles.contract import Contract
from profiles.identifier_formats import FORMATS, cached_check, conforms
from profiles.installation import INSTALLATION_OID_ARC
from profiles.paths import split_path, values_at
from profiles.rules import (
    OBJECT,
    DocumentCheck,
    Finding,
    GateProfiles,
    RuleContext,
    RuleKind,
    Schema,
    at_path,
)


def _system_key(value: Any) -> Hashable:
    """What InstallationIdentifier.explain reads of an identifier: its system alone (and the system's type: True and 1
    are one key of a dict, not one message)."""
    if not isinstance(value, dict):
        return False
    system = value.get("system")
    return type(system), system


def _referenced_system_key(value: Any) -> Hashable:
    """What ReferenceKey.explain reads of a reference: the system of its identifier alone."""
    return _system_key(value.get("identifier")) if isinstance(value, dict) else False


class InstallationIdentifier(RuleKind):
    name = "installation-identifier"
    checked_apart = True

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, dict):
            return
        system = value.get("system")
        if not isinstance(system, str) or not system.startswith(INSTALLATION_OID_ARC):
            if spec.get("mustBeInstallation"):
                yield Finding(
                    "identifier-not-installation-namespace",
                    f"system {system!r} is not an installation namespace ({INSTALLATION_OID_ARC}<installation>.<key>)",
                    ("system",),
                )
            return
        arcs = system[len(INSTALLATION_OID_ARC) :].split(".")
        if len(arcs) != 2 or not (arcs[0].isdigit() and arcs[1].isdigit()):
            yield Finding(
                "identifier-installation-malformed",
                f"system {system!r} does not have the form {INSTALLATION_OID_ARC}<installation>.<key>",
                ("system",),
            )
            return
        installation = ctx.contract.installation.number
        if arcs[0] != installation:
            message = f"system {system!r} is a namespace of installation {arcs[0]}, not of this installation"
            yield Finding("identifier-installation-foreign", f"{message} ({installation})", ("system",))
        elif ctx.contract.namespace_of(system) is None:
            yield Finding(
                "identifier-namespace-unknown",
                f"system {system!r} is not a namespace of this installation's configuration",
                ("system",),
            )

    explanation_key = _system_key

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        known = sorted(ns.system for ns in contract.namespaces.values() if ns.system.startswith(INSTALLATION_OID_ARC))
        if spec.get("mustBeInstallation"):
            return {"if": OBJECT, "then": {"required": ["system"], "properties": {"system": {"enum": known}}}}
        in_arc = {"type": "string", "pattern": "^" + re.escape(INSTALLATION_OID_ARC)}
        return {"properties": {"system": {"if": in_arc, "then": {"enum": known}}}}


class ProfileNamespace(RuleKind):
    """An identifier in an installation namespace is in a namespace of the recognised profiles (of any of them)."""

    name = "profile-namespace"
    reads_profiles = True

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, dict) or not ctx.applied_profiles:
            return
        namespace = ctx.contract.namespace_of(value.get("system"))
        if namespace is None or not namespace.system.startswith(INSTALLATION_OID_ARC):
            return
        allowed = {key for profile in ctx.applied_profiles for key in profile.identifier_namespaces}
        if namespace.key not in allowed:
            names = ", ".join(p.name for p in ctx.applied_profiles)
            yield Finding(
                "identifier-namespace-of-other-profile",
                f"namespace {namespace.system} ({namespace.title}) does not belong to profile {names}",
                ("system",),
            )

    @classmethod
    def document_schema(cls, contract: Contract, spec: Mapping[str, Any], profiles: GateProfiles) -> Schema:
        """Conservative: one recognised profile must hold every such identifier (explain takes the union of all); a
        branch a profile, and last the branch of no profile recognised. anyOf stops at the first branch that holds,
        and most documents are held by their profile's. (A branch for each set of profiles that own the same
        namespaces, exact, walked the identifiers once a set: half as much again.)"""
        installation = {s for s in contract.namespaces if s.startswith(INSTALLATION_OID_ARC)}
        tokens = split_path(spec["path"])
        branches: list[Schema | bool] = []
        for profile, claimed_or_shown in profiles.recognised.items():
            allowed = {ns.system for ns in contract.namespaces.values() if ns.key in profile.identifier_namespaces}
            forbidden = sorted(installation - allowed)
            leaf = {"properties": {"system": {"not": {"enum": forbidden}}}} if forbidden else {}
            branches.append({"allOf": [claimed_or_shown, at_path(tokens, leaf)]})
        branches.append({"not": profiles.any_recognised})
        return {"anyOf": branches}


class IdentifierFormat(RuleKind):
    """The value of an identifier in a namespace with a registry format (NIP, REGON, PESEL, EU VAT) passes it. No
    schema states a check digit: the gate walks the rows' identifiers after its pass (RegistryIdentifiers)."""

    name = "identifier-format"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, dict):
            return
        namespace = ctx.contract.namespace_of(value.get("system"))
        identifier = value.get("value")
        if namespace is None or namespace.format is None or not isinstance(identifier, str):
            return
        if not conforms(namespace.format, identifier):
            shape = FORMATS[namespace.format][1]
            yield Finding(
                f"identifier-{namespace.format}-invalid",
                f"{identifier!r} is not a valid {namespace.title}: expected {shape}",
                ("value",),
            )

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> None:
        return None

    @classmethod
    def after_pass(cls, contract: Contract, context: str, specs: list[Mapping[str, Any]]) -> DocumentCheck:
        return RegistryIdentifiers(contract, [split_path(spec["path"]) for spec in specs]).holds


class RegistryIdentifiers:
    """identifier-format of a whole document, after the gate's pass: the value of each identifier in a namespace with
    a format passes that format. It tests an identifier that is an object whose `system` names such a namespace and
    whose `value` is a string, at the rows' paths, arrays expanded one level at each step as profiles.paths.values_at
    walks them.

    A custom format of jsonschema-rs crossed into Python for each such value at ~1 us a call. The paths of one or two
    steps (the contract's: identifier, owner.identifier) are walked by one function written for them (`holds`), each
    loop and each identifier's test inline: a loop over the paths, with a test for the kind of step, took twice as
    long, and a call for each identifier a fifth more."""

    __slots__ = ("_by_system", "_longer_paths", "holds")

    def __init__(self, contract: Contract, paths: list[tuple[str, ...]]) -> None:
        unique = tuple(dict.fromkeys(paths))
        self._longer_paths = tuple(tokens for tokens in unique if not 0 < len(tokens) <= 2)
        self._by_system = {
            namespace.system: cached_check(namespace.format)
            for namespace in contract.namespaces.values()
            if namespace.format is not None
        }
        short = [tokens for tokens in unique if 0 < len(tokens) <= 2]
        longer = self._longer_walk if self._longer_paths else None
        self.holds: Callable[[dict[str, Any]], bool] = _written_walk(short, self._by_system, longer)

    def __call__(self, document: dict[str, Any]) -> bool:
        return self.holds(document)

    def _longer_walk(self, document: dict[str, Any]) -> bool:
        return all(self._holds(value) for tokens in self._longer_paths for value, _ in values_at(document, tokens))

    def _holds(self, identifier: Any) -> bool:
        if not isinstance(identifier, dict):
            return True
        system = identifier.get("system")
        check = self._by_system.get(system) if isinstance(system, str) else None
        if check is None:
            return True
        value = identifier.get("value")
        return not isinstance(value, str) or check(value)


_ONE_STEP = """
    child = document.get({first!r})
    if child is not None:
        for identifier in child if isinstance(child, list) else (child,):
{test}"""
_TWO_STEPS = """
    child = document.get({first!r})
    if child is not None:
        for node in child if isinstance(child, list) else (child,):
            if isinstance(node, dict):
                identifiers = node.get({second!r})
                if identifiers is not None:
                    for identifier in identifiers if isinstance(identifiers, list) else (identifiers,):
{test}"""
_IDENTIFIER_TEST = """if isinstance(identifier, dict):
    try:
        check = by_system.get(identifier.get("system"))
    except TypeError:  # a system that is a list or an object names no namespace
        check = None
    if check is not None:
        value = identifier.get("value")
        if isinstance(value, str) and not check(value):
            return False"""


def _written_walk(
    paths: list[tuple[str, ...]],
    by_system: Mapping[Any, Callable[[str], bool]],
    longer_walk: Callable[[dict[str, Any]], bool] | None,
) -> Callable[[dict[str, Any]], bool]:
    """One function that walks `paths` (of one or two steps), then asks `longer_walk` (the walk of the longer
    paths, where there are)."""
    source = ["def holds(document):"]
    for tokens in paths:
        if len(tokens) == 1:
            source.append(_ONE_STEP.format(first=tokens[0], test=textwrap.indent(_IDENTIFIER_TEST, " " * 12)))
        else:
            source.append(
                _TWO_STEPS.format(first=tokens[0], second=tokens[1], test=textwrap.indent(_IDENTIFIER_TEST, " " * 24))
            )
    source.append("    return True" if longer_walk is None else "    return longer_walk(document)")
    namespace: dict[str, Any] = {"by_system": by_system, "longer_walk": longer_walk}
    exec(compile("\n".join(source), "<registry identifiers walk>", "exec"), namespace)  # paths are the contract's
    walk: Callable[[dict[str, Any]], bool] = namespace["holds"]
    return walk


def _referenced_identifier(ctx: RuleContext, reference: Any) -> tuple[dict[str, Any], Any]:
    """The identifier a reference names and the namespace of its system ({} and None when it names none)."""
    identifier = reference.get("identifier") if isinstance(reference, dict) else None
    if not isinstance(identifier, dict):
        return {}, None
    return identifier, ctx.contract.namespace_of(identifier.get("system"))


class ReferenceKey(RuleKind):
    name = "reference-key"
    checked_apart = True

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        _, namespace = _referenced_identifier(ctx, value)
        if namespace is not None and not namespace.reference_key:
            yield Finding(
                "reference-identifier-not-key",
                f"namespace {namespace.system} ({namespace.title}) is not a reference key; "
                "reference the resource by one of its reference-key identifiers",
                ("identifier", "system"),
            )

    explanation_key = _referenced_system_key

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        not_keys = sorted(ns.system for ns in contract.namespaces.values() if not ns.reference_key)
        return _system_of_identifier_not_in(not_keys)


class ProfileReferenceKey(RuleKind):
    """A Party that references itself (its owner) does so by an identifier that is a reference key for its own
    profile: the only case where a payload shows which party a reference names."""

    name = "profile-reference-key"
    reads_profiles = True

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        identifier, namespace = _referenced_identifier(ctx, value)
        if namespace is None or not namespace.not_reference_key_for or not namespace.reference_key:
            return  # a namespace that is no key for anyone is reference-key's to report
        excluded = [p.name for p in ctx.applied_profiles if p.name in namespace.not_reference_key_for]
        if excluded and _is_own_identifier(ctx.document, namespace.system, identifier.get("value")):
            yield Finding(
                "reference-identifier-not-key-for-profile",
                f"this {' and '.join(excluded)} references itself by its identifier in {namespace.system} "
                f"({namespace.title}), which is not a reference key for {' or '.join(excluded)}; "
                "reference it by one of its reference-key identifiers (its NIP, for example)",
                ("identifier", "system"),
            )

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        """Conservative: only a reference into a namespace that is a key for some profiles and not for others can
        break the rule, and which case it is takes explain (the profile, the own identifiers)."""
        shared = sorted(
            ns.system for ns in contract.namespaces.values() if ns.reference_key and ns.not_reference_key_for
        )
        return _system_of_identifier_not_in(shared)


def _system_of_identifier_not_in(systems: list[str]) -> Schema:
    if not systems:
        return {}
    return {
        "properties": {"identifier": {"if": OBJECT, "then": {"properties": {"system": {"not": {"enum": systems}}}}}}
    }


def _is_own_identifier(document: dict[str, Any], system: str, value: Any) -> bool:
    own = document.get("identifier")
    return isinstance(value, str) and any(
        isinstance(i, dict) and i.get("system") == system and i.get("value") == value
        for i in (own if isinstance(own, list) else [])
    )


IDENTIFIER_KINDS: tuple[type[RuleKind], ...] = (
    InstallationIdentifier,
    ProfileNamespace,
    IdentifierFormat,
    ReferenceKey,
    ProfileReferenceKey,
)
