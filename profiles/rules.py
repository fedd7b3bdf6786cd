"""Profile rules, each kind defined once: what it reports about a value, and the JSON Schema the clean gate holds it by.

A rule row in `profiles/` names its kind, the path of the values it applies to and its parameters. A kind (a
`RuleKind` subclass) holds both halves of the rule side by side, so that one cannot change without the other:

- `explain(ctx, value, spec)`: the findings about one value at the row's path, relative to that value. The engine
  walks the path, calls it once per value and turns each Finding into an issue located by JSON Pointer; how severe
  that is, and which requirement it breaks, is the registry's (profiles/issue-codes.json). The explanation is the
  authority.
- `value_schema(contract, spec)`: the same rule as JSON Schema over such a value (or `document_schema` over the whole
  document), which the clean gate (profiles/clean_gate.py) joins into one jsonschema-rs pass. A value the schema
  accepts gets no finding from `explain`; the schema may demand more (conservative: a document it refuses is
  explained, and may have nothing to report), never less. None: no schema states the rule, and the gate runs
  `explain` on the row's values after its pass (`after_pass`), which cannot know the recognised profiles.

tests/profiles/test_fast_path.py holds the two halves to the same answers on the case files and generated payloads.
This module has the kinds of elements and codes; profiles/identifier_rules.py those of identifiers and
profiles/report_rules.py those of the report order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol

from profiles.coded import codes_of
from profiles.contract import Contract, Profile
from profiles.paths import split_path, values_at

Schema = dict[str, Any]
OBJECT: Schema = {"type": "object"}


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
ExplanationKey = Callable[[Any], Hashable]
DocumentCheck = Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class GateProfiles:
    """The profiles of a resource type as the clean gate sees them: for each, the schema that holds where the document
    is recognised as one (claimed in meta.profile or shown by its evidence), and the schema that holds where any of
    them is."""

    recognised: Mapping[Profile, Schema]
    any_recognised: Schema | bool


@dataclass(slots=True)
class DocumentContext:
    """A RuleContext: what a rule kind's explanation reads besides the value, for one document."""

    contract: Contract
    context: str
    applied_profiles: tuple[Profile, ...]
    document: dict[str, Any]


def at_path(tokens: tuple[str, ...], leaf: Schema) -> Schema:
    """Apply `leaf` where the rule engine walks: each token a property, arrays expanded one level."""
    schema = leaf
    for token in reversed(tokens):
        schema = {"properties": {token: {"if": {"type": "array"}, "then": {"items": schema}, "else": schema}}}
    return schema


class RuleKind:
    """A kind of rule row: a subclass names it (`name`) and defines `explain` and either `value_schema` or
    `document_schema` (returning None where no schema states the rule). It cannot be defined without both halves."""

    name: ClassVar[str]
    reads_profiles: ClassVar[bool] = False
    """Whether `explain` judges by ctx.applied_profiles: then its gate must be a schema, as the checks after the pass
    do not know which profiles the document has."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__ or "explain" not in cls.__dict__:
            raise TypeError(f"rule kind {cls.__name__} must define its name and explain()")
        if "value_schema" not in cls.__dict__ and "document_schema" not in cls.__dict__:
            raise TypeError(f"rule kind {cls.name} must say how the clean gate holds it (value_schema)")

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        raise NotImplementedError

    checked_apart: ClassVar[bool] = False
    """Whether the clean gate checks this kind's rows apart, after the pass of the others: the kinds whose findings
    exports commonly carry (a namespace of another installation, a reference by a non-key identifier). A document that
    fails only them is then known by the pass the clean documents take and one small check, without a search of the
    gate's parts (profiles/compiled_gate.py)."""

    explanation_key: ClassVar[ExplanationKey | None] = None
    """What of a value `explain` reads, as a key: two values of one row with the same key are explained alike (the
    contract and the row's parameters aside), so that each key is explained once (profiles/rule_plans.py). None where
    the explanation reads more (the document, the recognised profiles) or values seldom repeat."""

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
        """The rule as JSON Schema over one value at the row's path; None: only `explain` can check it."""
        raise NotImplementedError

    @classmethod
    def document_schema(cls, contract: Contract, spec: Mapping[str, Any], profiles: GateProfiles) -> Schema | None:
        """The rule as JSON Schema over the whole document; None: only `explain` can check it."""
        leaf = cls.value_schema(contract, spec)
        return None if leaf is None else at_path(split_path(spec["path"]), leaf)

    @classmethod
    def after_pass(cls, contract: Contract, context: str, specs: list[Mapping[str, Any]]) -> DocumentCheck:
        """The rows of this kind that no schema states, checked after the gate's pass: whether `explain` finds nothing
        at any of their values."""
        if cls.reads_profiles:
            raise ValueError(f"rule kind {cls.name} reads the recognised profiles: the gate needs its schema")
        explain, rows = cls.explain, [(split_path(spec["path"]), spec) for spec in specs]

        def finds_nothing(document: dict[str, Any]) -> bool:
            ctx = DocumentContext(contract, context, (), document)
            try:
                return not any(
                    next(iter(explain(ctx, value, spec)), None) is not None
                    for tokens, spec in rows
                    for value, _ in values_at(document, tokens)
                )
            except Exception:  # a rule that fails is reported by the explanation
                return False

        return finds_nothing


# -- elements -------------------------------------------------------------------------------------------------


class Required(RuleKind):
    name = "required"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        element = spec["element"]
        if isinstance(value, dict) and value.get(element) is None:
            yield Finding("required-element-missing", spec.get("message") or f"element {element!r} is required here")

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        element = spec["element"]
        return {"if": OBJECT, "then": {"required": [element], "properties": {element: {"not": {"type": "null"}}}}}


class Absent(RuleKind):
    name = "absent"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        element = spec["element"]
        if isinstance(value, dict) and element in value:
            message = spec.get("message") or f"element {element!r} is not expected here"
            yield Finding("element-not-expected", message, (element,))

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        return {"properties": {spec["element"]: False}}


class NullOrAbsent(RuleKind):
    name = "null-or-absent"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        element = spec["element"]
        if isinstance(value, dict) and value.get(element) is not None:
            message = spec.get("message") or f"element {element!r} must be null or absent"
            yield Finding("element-must-be-null", message, (element,))

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        return {"properties": {spec["element"]: {"type": "null"}}}


class ReferenceForm(RuleKind):
    """An element whose structure the contract leaves open, in a form other than the reference implementation's
    (`form`: "string", a bare code; "members", no members beyond `members`): accepted, reported as information (an
    error under --strict)."""

    name = "reference-form"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if spec["form"] == "string" and isinstance(value, dict):  # another JSON type is the schema's to report
            yield Finding("open-choice", spec["message"])
        elif spec["form"] == "members" and isinstance(value, dict):
            for name in value.keys() - set(spec["members"]):
                yield Finding("open-choice", spec["message"], (name,))

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
        if spec["form"] == "string":
            return {"not": OBJECT}
        if spec["form"] == "members":
            return {"if": OBJECT, "then": {"propertyNames": {"enum": sorted(spec["members"])}}}
        return None


class ImplementationDefinedVersion(RuleKind):
    """A value-set summary {url, version} of an implementation-defined set reports version null."""

    name = "implementation-defined-version"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
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

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema:
        urls = sorted({p.canonical_url for p in contract.profiles_of("ValueSet") if p.canonical_url is not None})
        if not urls:
            return {}
        defined = {"type": "object", "required": ["url"], "properties": {"url": {"enum": urls}}}
        return {"if": defined, "then": {"properties": {"version": {"type": "null"}}}}


# -- codes ----------------------------------------------------------------------------------------------------


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


class Binding(RuleKind):
    name = "binding"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
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

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
        value_set = contract.value_sets.get(spec["valueSet"])
        if value_set is None:
            return None  # explain reports the missing value set
        systems = sorted(value_set.systems)
        member = {
            "type": "object",
            "anyOf": [
                {
                    "required": ["system"] if codes is None else ["system", "code"],
                    "properties": {"system": {"const": system}}
                    | ({} if codes is None else {"code": {"enum": sorted(codes)}}),
                }
                for system, codes in sorted(value_set.systems.items())
            ],
        }
        claims_the_set = {"type": "object", "required": ["system"], "properties": {"system": {"enum": systems}}}
        coding_ok = {"if": claims_the_set, "then": member}
        required = spec["strength"] == "required"
        concept: Schema = {"type": "array", "items": coding_ok}
        if required:
            concept["contains"] = member
        single_coding = {"allOf": [coding_ok, member]} if required else coding_ok
        schema: Schema = {
            "if": {"type": "object", "required": ["coding"]},
            "then": {"properties": {"coding": concept if required else {"if": {"type": "array"}, "then": concept}}},
            "else": {"if": OBJECT, "then": single_coding},
        }
        if required and all(codes is not None for codes in value_set.systems.values()):
            all_codes = sorted({code for codes in value_set.systems.values() for code in codes or ()})
            schema = {"allOf": [schema, {"if": {"type": "string"}, "then": {"enum": all_codes}}]}
        return schema


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


class CodesElsewhere(RuleKind):
    """A code of `valueSet` where the contract puts those codes elsewhere (`message` says where)."""

    name = "codes-elsewhere"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        value_set = ctx.contract.value_sets.get(spec["valueSet"])
        if value_set is not None:
            for code in codes_of(value):
                if value_set.contains_bare_code(code):
                    yield Finding("code-out-of-place", f"{code!r}: {spec['message']}")

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> Schema | None:
        value_set = contract.value_sets.get(spec["valueSet"])
        if value_set is None:
            return {}
        if any(codes is None for codes in value_set.systems.values()):
            return None  # every code of an open system would be out of place: not a list a schema can hold
        codes = {"not": {"enum": sorted({code for codes in value_set.systems.values() for code in codes or ()})}}
        return {
            "if": {"type": "string"},
            "then": codes,
            "else": {
                "if": {"type": "object", "required": ["coding"]},
                "then": {"properties": {"coding": {"if": {"type": "array"}, "then": {"items": {
                    "properties": {"code": codes}
                }}}}},
                "else": {"properties": {"code": codes}},
            },
        }  # fmt: skip


ELEMENT_KINDS: tuple[type[RuleKind], ...] = (
    Binding,
    Required,
    Absent,
    NullOrAbsent,
    ImplementationDefinedVersion,
    ReferenceForm,
    CodesElsewhere,
)
