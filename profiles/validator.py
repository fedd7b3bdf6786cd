"""The validator engine: structure from `schemas/`, profile recognition, then the profile rules of
`profiles/`. The rule functions and the registry of issue codes are arguments; by default, the
contract's standard ones.

It never raises on bad input: whatever the payload, it returns issues.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from profiles.clean_gate import CleanGate, clean_gate
from profiles.contract import CONTEXTS, RESOURCE, WRITE, Contract, Profile, ResourceRules, load_contract
from profiles.issue_codes import IssueCodes, standard_issue_codes
from profiles.issues import Issue, pointer
from profiles.paths import Where, split_path, values_at, without_members
from profiles.recognition import ProfileRecognition
from profiles.rule_schemas import compile_rule
from profiles.rule_set import standard_rules
from profiles.rules import Rule
from profiles.structure import SchemaStore, Structure

__all__ = ["CONTEXTS", "RESOURCE", "WRITE", "Validator"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, slots=True)
class _PlannedRule:
    function: Rule
    spec: Mapping[str, Any]


class _Gate:
    """A compiled clean gate and the checks it leaves to Python."""

    __slots__ = ("_context", "_contract", "_functions", "_identifiers", "_validator")

    def __init__(self, validator: Any, gate: CleanGate, functions: _Plan, contract: Contract, context: str) -> None:
        self._validator = validator
        self._identifiers = None if gate.identifiers is None else gate.identifiers.holds
        self._functions = functions
        self._contract = contract
        self._context = context

    @property
    def parts(self) -> tuple[Any, Any]:
        """(is_valid, the identifier walk or None): all of passes() for a gate without functions."""
        return self._validator.is_valid, self._identifiers

    def passes(self, document: dict[str, Any]) -> bool:
        if not _passes(self._validator, document):
            return False
        if self._identifiers is not None and not self._identifiers(document):
            return False
        return not self._functions or self._functions_find_nothing(document)

    def _functions_find_nothing(self, document: dict[str, Any]) -> bool:
        ctx = _RuleContext(self._contract, self._context, (), document)  # a gate with functions has no profiles
        try:
            for tokens, rules in self._functions:
                for value, _ in values_at(document, tokens):
                    for rule in rules:
                        if next(iter(rule.function(ctx, value, rule.spec)), None) is not None:
                            return False
        except Exception:  # a rule that fails is reported by the explanation path
            return False
        return True


_Plan = tuple[tuple[tuple[str, ...], list[_PlannedRule]], ...]


@dataclass(frozen=True)
class _FastPath:
    """One jsonschema-rs check of structure plus the compiled rules, and the rules it cannot replace."""

    validator: Any
    residual: _Plan


@dataclass(slots=True)
class _RuleContext:
    contract: Contract
    context: str
    applied_profiles: tuple[Profile, ...]
    document: dict[str, Any]


def _in_context(rules: tuple[Mapping[str, Any], ...], context: str) -> list[Mapping[str, Any]]:
    return [spec for spec in rules if context in spec.get("contexts", CONTEXTS)]


class Validator:
    """Validates payloads of the contract. Build once and reuse: schemas compile on first use."""

    def __init__(
        self,
        contract: Contract | None = None,
        schemas: SchemaStore | None = None,
        *,
        rules: Mapping[str, Rule] | None = None,
        issue_codes: IssueCodes | None = None,
        fast_path: bool = True,
        strict: bool = False,
    ) -> None:
        """`rules` maps the rule names of the profile data to their functions (default:
        `standard_rules()`); `issue_codes` decides each code's severity and requirement (default: the
        registry of profiles/issue-codes.json). `fast_path=False` explains every document through the
        rule functions; the results are the same, only slower (tests/profiles/test_fast_path.py).
        `strict`: where the contract leaves a form open, the reference implementation's form is demanded
        (the issue code open-choice is an error instead of information)."""
        self.contract = contract or load_contract()
        self.schemas = schemas or SchemaStore()
        self.rules: Mapping[str, Rule] = dict(rules) if rules is not None else standard_rules()
        self.issue_codes = standard_issue_codes(strict) if issue_codes is None else issue_codes
        self.recognition = ProfileRecognition(self.contract, self.issue_codes)
        self.fast_path = fast_path
        self._gated = fast_path and rules is None  # the gate states the standard rules; other rules take the usual path
        unknown = {
            spec["rule"]
            for specs in [
                *(r.rules for r in self.contract.resources.values()),
                *(p.rules for p in self.contract.profiles.values()),
            ]
            for spec in specs
            if spec["rule"] not in self.rules
        }
        if unknown:
            raise ValueError(f"profile data names unknown rules: {', '.join(sorted(unknown))}")
        self._plans: dict[tuple[str, str], _Plan] = {}
        self._fast_paths: dict[tuple[str, str], _FastPath] = {}
        self._gates: dict[tuple[str, str], _Gate | None] = {}
        self._gate_table: dict[str, tuple[Any, Any]] = {}
        """The served resources' gates that are nothing but their pass and identifier walk, by type:
        {resourceType: (is_valid, holds or None)}, filled as the gates are built."""

    @classmethod
    def for_config(cls, config: Path | str | None, *, strict: bool = False) -> Validator:
        return cls(load_contract(config), strict=strict)

    @property
    def resource_types(self) -> list[str]:
        return sorted(self.contract.resources)

    def resolve_profile(self, name_or_url: str, resource_type: str | None = None) -> Profile | None:
        return self.recognition.resolve(name_or_url, resource_type)

    def recognised_profiles(self, document: dict[str, Any], resource_type: str) -> tuple[Profile, ...]:
        """The profiles of `resource_type` that the resource claims in meta.profile or shows evidence of."""
        return self.recognition.recognise(document, resource_type).profiles

    def is_valid(self, document: Any, **options: Any) -> bool:
        return not any(issue.is_error for issue in self.iter_issues(document, **options))

    def passes_gate(
        self, document: Any, *, resource_type: str | None = None, profile: str | None = None, context: str = RESOURCE
    ) -> bool:
        """Whether the clean gate of the document's type passes it: then validate() reports nothing. False tells
        nothing: validate() says what there is (a loop over many payloads can explain the refused ones together,
        after the others, so that neither path's code and data leave the processor's caches at every payload)."""
        if self._gated and profile is None and type(document) is dict:
            found = document.get("resourceType", resource_type)  # a report order has none: the caller names it
            if type(found) is str and (resource_type is None or found == resource_type):
                gate = self._gates.get((found, context), _UNBUILT)
                if gate is _UNBUILT:
                    rules = self.contract.resources.get(found)
                    gate = None if rules is None else self._gate(rules, context)
                return gate is not None and gate.passes(document)
        return False

    def gate_refused(
        self,
        documents: list[Any],
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
    ) -> list[int]:
        """The indices of the documents that passes_gate() refuses with these options, in order: one call for many
        payloads, the loop of `eris validate`. With the default options a gate that is nothing but its pass and
        identifier walk is called directly, without the calls of passes_gate around it."""
        if resource_type is not None or profile is not None or context != RESOURCE:
            passes = partial(self.passes_gate, resource_type=resource_type, profile=profile, context=context)
            return [index for index, passed in enumerate(map(passes, documents)) if not passed]
        table, passes_gate, refused = self._gate_table, self.passes_gate, []
        for index, document in enumerate(documents):
            found = document.get("resourceType") if type(document) is dict else None
            entry = table.get(found) if type(found) is str else None
            if entry is None:
                if not passes_gate(document):
                    refused.append(index)
                continue
            is_valid, holds = entry
            try:
                passed = is_valid(document)
            except (ValueError, RecursionError):  # the explanation path reports why
                passed = False
            if not passed or (holds is not None and not holds(document)):
                refused.append(index)
        return refused

    def explain(
        self, document: Any, *, resource_type: str | None = None, profile: str | None = None, context: str = RESOURCE
    ) -> list[Issue]:
        """validate() of a document that passes_gate() refused, with the same options: the gate is not asked
        again. (Of any other document too: the gate only ever spares the explanation.)"""
        found = document.get("resourceType", resource_type) if type(document) is dict else None
        refused = profile is None and type(found) is str and self._gates.get((found, context)) is not None
        # where no gate was asked (another context, a forced profile), the usual path may take its fast pass
        return list(self._issues(document, resource_type, profile, context, gate_tried=refused))

    def validate(
        self, document: Any, *, resource_type: str | None = None, profile: str | None = None, context: str = RESOURCE
    ) -> list[Issue]:
        # the common case of millions of payloads, without a generator: the gate passes
        if self.passes_gate(document, resource_type=resource_type, profile=profile, context=context):
            return []
        return self.explain(document, resource_type=resource_type, profile=profile, context=context)

    def as_read(self, document: Any, *, resource_type: str | None = None) -> Any:
        """The document as the validator reads it: without the members whose null it reads as an element without
        a value (a copy; the document itself when there are none). A service that takes a write body the validator
        accepted handles it in this form."""
        found = document.get("resourceType", resource_type) if type(document) is dict else None
        rules = self.contract.resources.get(found) if type(found) is str else None
        if rules is None or not rules.schema or self.schemas.validator(rules.schema).is_valid(document):
            return document
        try:
            structure = self.schemas.check(rules.schema, document, rules.requirement, self.issue_codes)
        except (ValueError, RecursionError):
            return document
        if not structure.null_members:
            return document
        return self._nulls_read_as_absent(rules.schema, rules.requirement, document, structure)[0]

    def iter_issues(
        self,
        document: Any,
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
    ) -> Iterator[Issue]:
        """Every issue of `document`: as served (context "resource") or as a write body ("write")."""
        return self._issues(document, resource_type, profile, context)

    def _issues(
        self,
        document: Any,
        resource_type: str | None,
        profile: str | None,
        context: str,
        gate_tried: bool = False,
    ) -> Iterator[Issue]:
        """iter_issues; `gate_tried`: the clean gate of the document's type refused it already."""
        if context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS}, not {context!r}")
        codes = self.issue_codes
        if not isinstance(document, dict):
            yield codes.issue("resource-not-object", "", f"a resource is a JSON object, not {_json_kind(document)}")
            return
        found = document.get("resourceType")
        known = isinstance(found, str) and (resource_type is None or found == resource_type)
        rules = self.contract.resources.get(found) if known and isinstance(found, str) else None  # the common case
        if rules is None:
            rules = yield from self._resource_rules(document, resource_type)
            if rules is None:
                return
        if context == WRITE and not rules.writable:
            where = "/resourceType" if "resourceType" in document else ""
            yield codes.issue("resource-not-writable", where, f"the contract has no write of {rules.resource_type}")
        refused = gate_tried
        if self._gated and profile is None and not gate_tried:
            gate = self._gate(rules, context)
            if gate is not None:
                if gate.passes(document):
                    return  # the clean gate: nothing to report (profiles/clean_gate.py)
                refused = True
        # a document the gate refused breaks some rule: the fast path would most often fail too
        fast = self._fast(rules, context) if self.fast_path and not refused else None
        if fast is not None and _passes(fast.validator, document):
            plan = fast.residual
        else:
            if rules.schema:
                try:
                    structure = self.schemas.check(rules.schema, document, rules.requirement, codes)
                    if structure.null_members:
                        document, structure, absent = self._nulls_read_as_absent(
                            rules.schema, rules.requirement, document, structure
                        )
                        yield from _by_element(self._null_choices(absent, rules), rules)
                except (ValueError, RecursionError) as error:  # a lone surrogate, nesting beyond the engine
                    yield codes.issue("payload-not-checkable", "", _not_checkable(error))
                    return
                yield from _by_element(structure.issues, rules)
            plan = self._planned(rules.resource_type, context)
        applied, issues = self.recognition.recognise(document, rules.resource_type, context, profile)
        if issues:
            yield from issues
        ctx = _RuleContext(self.contract, context, applied, document)
        yield from self._apply(plan, document, ctx)
        for applied_profile in applied:
            profile_plan = self._planned(applied_profile.name, context, applied_profile)
            if profile_plan:  # most profiles only recognise; an empty plan is not worth a generator
                yield from self._apply(profile_plan, document, ctx)

    def _nulls_read_as_absent(
        self, schema: str, requirement: str | None, document: dict[str, Any], structure: Structure
    ) -> tuple[dict[str, Any], Structure, list[Where]]:
        """A null is how Java and .NET serialise an element without a value: where the schema refuses a null as the
        value of a member it names but does not require, the member is read as absent. The document without those
        members (a copy), its structure, and their paths. A required member that is null stays as it is: its
        structure issue stands."""
        absent = structure.null_members
        while absent:
            copy = without_members(document, absent)
            checked = self.schemas.check(schema, copy, requirement, self.issue_codes)
            required = {path for path in absent if (path[:-1], path[-1]) in checked.missing}
            if not required:
                return copy, checked, absent
            absent = [path for path in absent if path not in required]
        return document, structure, []

    def _null_choices(self, absent: list[Where], rules: ResourceRules) -> Iterator[Issue]:
        for path in absent:
            message = (
                f"{path[-1]!r} is null: read as an element without a value (the contract leaves open how one is "
                "served; the reference implementation leaves it out)"
            )
            # the resource type's requirement, as for its structure: no rule row reports this
            yield replace(self.issue_codes.issue("open-choice", _pointer(path), message), requirement=rules.requirement)

    def _resource_rules(
        self, document: dict[str, Any], declared: str | None
    ) -> Generator[Issue, None, ResourceRules | None]:
        codes = self.issue_codes
        found = document.get("resourceType")
        if found is not None and declared is not None and found != declared:
            message = f"resourceType is {found!r} but {declared!r} was expected"
            yield codes.issue("resource-type-mismatch", "/resourceType", message)
            return None
        resource_type = found if found is not None else declared
        if resource_type is None:
            message = "no resourceType: give the payload one, or name its type (--resource-type)"
            yield codes.issue("resource-type-missing", "", message)
            return None
        rules = self.contract.resources.get(resource_type) if isinstance(resource_type, str) else None
        where = "/resourceType" if found is not None else ""
        if rules is None and isinstance(resource_type, str) and resource_type in self.contract.not_shown_types:
            message = f"the contract names {resource_type} but does not show its structure; it is not checked"
            yield codes.issue("resource-type-not-shown", where, message)
        elif rules is None:
            known = ", ".join(self.resource_types)
            message = f"{resource_type!r} is not a resource type of the contract; known: {known}"
            yield codes.issue("resource-type-unknown", where, message)
        return rules

    def _plan(self, specs: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...], context: str) -> _Plan:
        """The rules that apply in `context`, grouped by path so that each path is walked once."""
        by_path: dict[tuple[str, ...], list[_PlannedRule]] = {}
        for spec in specs:
            if context not in spec.get("contexts", CONTEXTS) or spec.get("strength") == "example":
                continue  # an example binding illustrates codes; it checks nothing
            planned = _PlannedRule(self.rules[spec["rule"]], spec)
            by_path.setdefault(split_path(spec["path"]), []).append(planned)
        return tuple(by_path.items())

    def _fast(self, rules: ResourceRules, context: str) -> _FastPath | None:
        key = (rules.resource_type, context)
        fast = self._fast_paths.get(key)
        if fast is None and rules.schema:
            compiled: list[dict[str, Any]] = []
            residual: list[Mapping[str, Any]] = []
            for spec in _in_context(rules.rules, context):
                if spec.get("strength") == "example":
                    continue  # checks nothing, as in _plan
                schema = compile_rule(self.contract, spec)
                if schema is None:
                    residual.append(spec)
                else:
                    compiled.append(schema)
            structure = self.schemas.documents[rules.schema.removesuffix(".schema.json")]["$id"]
            combined = {"$schema": _DIALECT, "allOf": [{"$ref": structure}, *compiled]}
            fast = self._fast_paths[key] = _FastPath(self.schemas.compile(combined), self._plan(residual, context))
        return fast

    def _gate(self, rules: ResourceRules, context: str) -> _Gate | None:
        key = (rules.resource_type, context)
        if key not in self._gates:
            structure = self.schemas.documents[rules.schema.removesuffix(".schema.json")]["$id"] if rules.schema else ""
            gate = clean_gate(self.contract, rules, context, structure)
            built = self._gates[key] = (
                None
                if gate is None
                else _Gate(
                    self.schemas.compile(gate.schema),
                    gate,
                    self._plan(gate.functions, context),
                    self.contract,
                    context,
                )
            )
            if built is not None and gate is not None and context == RESOURCE and not gate.functions:
                self._gate_table[rules.resource_type] = built.parts
        return self._gates[key]

    def _planned(self, name: str, context: str, profile: Profile | None = None) -> _Plan:
        key = (name, context)
        plan = self._plans.get(key)
        if plan is None:
            specs = profile.rules if profile is not None else self.contract.resources[name].rules
            plan = self._plans[key] = self._plan(specs, context)
        return plan

    def _apply(self, plan: _Plan, document: dict[str, Any], ctx: _RuleContext) -> Iterator[Issue]:
        codes = self.issue_codes
        for tokens, planned in plan:
            values = values_at(document, tokens)
            if not values:
                continue
            for value, where in values:
                for rule in planned:
                    try:
                        findings = list(rule.function(ctx, value, rule.spec))
                    except Exception as error:  # a rule bug must not hide the rest of the report
                        message = f"rule {rule.spec['rule']} failed: {type(error).__name__}: {error}"
                        yield codes.issue("validator-internal-error", _pointer(where), message, rule=rule.spec)
                        continue
                    for finding in findings:
                        location = _pointer((*where, *finding.at))
                        yield codes.issue(finding.code, location, finding.message, rule=rule.spec)


_UNBUILT: Any = object()


def _by_element(issues: Iterable[Issue], rules: ResourceRules) -> Iterator[Issue]:
    """Structure issues inside an element with a requirement of its own (attribute[], owner) are that
    requirement's, not the resource type's."""
    for issue in issues:
        element = issue.location.split("/")[1] if issue.location.count("/") >= 1 else ""
        own = rules.element_requirements.get(element.replace("~1", "/").replace("~0", "~"))
        yield issue if own is None or issue.requirement != rules.requirement else replace(issue, requirement=own)


def _passes(validator: Any, document: dict[str, Any]) -> bool:
    try:
        return validator.is_valid(document)
    except (ValueError, RecursionError):
        return False  # the explanation path reports why


def _not_checkable(error: Exception) -> str:
    if isinstance(error, UnicodeError):
        return "the payload holds a string that is not valid Unicode (a lone surrogate escape such as \\ud800)"
    return f"the payload cannot be checked: {error}"


def _pointer(tokens: tuple[str | int, ...]) -> str:
    location = ""
    for token in tokens:
        location = pointer(location, token)
    return location


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__
