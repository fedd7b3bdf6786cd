"""Profile rules: `rule name -> function(ctx, value, spec) -> Iterator[Finding]`.

A rule row in `profiles/` names its function, the path of the values it applies to and its
parameters. The engine walks the path, calls the function once per value and turns each Finding
into an issue located by JSON Pointer; a function only says what is wrong, relative to its value.
How severe that is, and which requirement it breaks, is the registry's (profiles/issue-codes.json).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from profiles.coded import codes_of
from profiles.contract import Contract, Profile
from profiles.identifier_formats import FORMATS, conforms
from profiles.installation import INSTALLATION_OID_ARC


class Finding(NamedTuple):
    code: str
    message: str
    at: tuple[str | int, ...] = ()


class RuleContext(Protocol):
    contract: Contract
    context: str
    applied_profiles: tuple[Profile, ...]
    document: dict[str, Any]


Rule = Callable[[RuleContext, Any, Mapping[str, Any]], Iterator[Finding]]


def _codings(value: Any) -> tuple[list[tuple[tuple[str | int, ...], Any, Any]], bool]:
    """(at, system, code) of each coding in a CodeableConcept, a Coding or a bare code."""
    if isinstance(value, str):
        return [((), None, value)], True
    if not isinstance(value, dict):
        return [], False
    if "coding" in value:
        codings = value["coding"] if isinstance(value["coding"], list) else []
        return [
            (("coding", i), c.get("system"), c.get("code")) for i, c in enumerate(codings) if isinstance(c, dict)
        ], False
    return [((), value.get("system"), value.get("code"))], False


def binding(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    strength = spec["strength"]
    if strength == "example":
        return
    value_set = ctx.contract.value_sets.get(spec["valueSet"])
    if value_set is None:
        yield Finding("binding-value-set-unknown", f"value set {spec['valueSet']} is not in the terminology")
        return
    if not isinstance(value, dict | str):
        return  # the schema reports the wrong type
    codings, bare = _codings(value)
    if bare:
        code = codings[0][2]
        if strength == "required" and not value_set.contains_bare_code(code):
            yield Finding(
                "binding-code-not-in-value-set", f"code {code!r} is not in the required value set {value_set.url}"
            )
        return
    from_set = [(at, system, code) for at, system, code in codings if value_set.has_system(system)]
    if not from_set and spec.get("anySystem"):
        yield from _in_another_system(value_set, codings, strength)
        return
    for at, system, code in from_set:
        if not value_set.contains(system, code):
            what = f"code {code!r} is not in" if code is not None else f"a coding of {system} has no code of"
            yield Finding(
                "binding-code-not-in-value-set",
                f"{what} value set {value_set.url} ({strength} binding)",
                (*at, "code"),
            )
    if strength == "required" and not from_set:
        yield Finding(
            "binding-no-coding-from-value-set",
            f"no coding from the required value set {value_set.url} (systems: {', '.join(value_set.systems)})",
        )


def _in_another_system(value_set: Any, codings: list[tuple[Any, Any, Any]], strength: str) -> Iterator[Finding]:
    """A binding whose codes the contract gives without naming their system (`anySystem`): a coding in any
    system carrying one of the codes is fair; the kit's own system is the reference implementation's choice."""
    own = ", ".join(value_set.systems)
    fitting = [(at, system, code) for at, system, code in codings if value_set.contains_bare_code(code)]
    for at, system, code in fitting[:1]:
        yield Finding(
            "open-choice",
            f"code {code!r} in system {system!r}: the contract gives the codes, not their system"
            f" (the reference implementation uses {own})",
            at,
        )
    if not fitting and strength == "required":
        codes = ", ".join(sorted(c for codes in value_set.systems.values() for c in codes or ()))
        yield Finding(
            "binding-no-coding-from-value-set", f"no coding has a code of {value_set.url} ({codes}), in any system"
        )


def reference_form(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    """An element whose structure the contract leaves open, in a form other than the reference
    implementation's (`form`: "string", a bare code; "members", no members beyond `members`): accepted, reported
    as information (an error under --strict)."""
    if spec["form"] == "string" and isinstance(value, dict):  # another JSON type is the schema's to report
        yield Finding("open-choice", spec["message"])
    elif spec["form"] == "members" and isinstance(value, dict):
        for name in value.keys() - set(spec["members"]):
            yield Finding("open-choice", spec["message"], (name,))


def codes_elsewhere(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    """A code of `valueSet` where the contract puts those codes elsewhere (`message` says where)."""
    value_set = ctx.contract.value_sets.get(spec["valueSet"])
    if value_set is not None:
        for code in codes_of(value):
            if value_set.contains_bare_code(code):
                yield Finding("code-out-of-place", f"{code!r}: {spec['message']}")


def required(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    element = spec["element"]
    if isinstance(value, dict) and value.get(element) is None:
        yield Finding("required-element-missing", spec.get("message") or f"element {element!r} is required here")


def absent(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    element = spec["element"]
    if isinstance(value, dict) and element in value:
        yield Finding(
            "element-not-expected", spec.get("message") or f"element {element!r} is not expected here", (element,)
        )


def null_or_absent(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    element = spec["element"]
    if isinstance(value, dict) and value.get(element) is not None:
        yield Finding(
            "element-must-be-null", spec.get("message") or f"element {element!r} must be null or absent", (element,)
        )


def installation_identifier(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
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
    if len(arcs) != 2 or not all(arc.isdigit() for arc in arcs):
        yield Finding(
            "identifier-installation-malformed",
            f"system {system!r} does not have the form {INSTALLATION_OID_ARC}<installation>.<key>",
            ("system",),
        )
        return
    installation = ctx.contract.installation.number
    if arcs[0] != installation:
        yield Finding(
            "identifier-installation-foreign",
            f"system {system!r} is a namespace of installation {arcs[0]}, not of this installation ({installation})",
            ("system",),
        )
    elif ctx.contract.namespace_of(system) is None:
        yield Finding(
            "identifier-namespace-unknown",
            f"system {system!r} is not a namespace of this installation's configuration",
            ("system",),
        )


def profile_namespace(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
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


def identifier_format(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
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


def reference_key(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    identifier = value.get("identifier") if isinstance(value, dict) else None
    if not isinstance(identifier, dict):
        return
    namespace = ctx.contract.namespace_of(identifier.get("system"))
    if namespace is not None and not namespace.reference_key:
        yield Finding(
            "reference-identifier-not-key",
            f"namespace {namespace.system} ({namespace.title}) is not a reference key; "
            "reference the resource by one of its reference-key identifiers",
            ("identifier", "system"),
        )


def profile_reference_key(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    """A Party that references itself (its owner) does so by an identifier that is a reference key for
    its own profile: the only case where a payload shows which party a reference names."""
    identifier = value.get("identifier") if isinstance(value, dict) else None
    if not isinstance(identifier, dict):
        return
    namespace = ctx.contract.namespace_of(identifier.get("system"))
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


def _is_own_identifier(document: dict[str, Any], system: str, value: Any) -> bool:
    own = document.get("identifier")
    return isinstance(value, str) and any(
        isinstance(i, dict) and i.get("system") == system and i.get("value") == value
        for i in (own if isinstance(own, list) else [])
    )


def implementation_defined_version(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
    """A value-set summary {url, version} of an implementation-defined set reports version null."""
    if not isinstance(value, dict) or value.get("version") is None:
        return
    url = value.get("url")
    for profile in ctx.contract.profiles_of("ValueSet"):
        if profile.canonical_url is not None and profile.canonical_url == url:
            yield Finding(
                "element-must-be-null",
                f"{url} is implementation-defined ({profile.name}); its version is null",
                ("version",),
            )


def generic_rules() -> dict[str, Rule]:
    return {
        "binding": binding,
        "required": required,
        "absent": absent,
        "null-or-absent": null_or_absent,
        "installation-identifier": installation_identifier,
        "profile-namespace": profile_namespace,
        "identifier-format": identifier_format,
        "reference-key": reference_key,
        "profile-reference-key": profile_reference_key,
        "implementation-defined-version": implementation_defined_version,
        "reference-form": reference_form,
        "codes-elsewhere": codes_elsewhere,
    }
