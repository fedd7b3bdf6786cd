"""The validator engine: one validation path. The clean gate of the payload's type (profiles/clean_gate.py) passes a
payload with nothing to report; a payload it refuses is explained: its structure from `schemas/` (where the gate's
structure failed), its profile recognition, then the profile rules of `profiles/` whose parts of the gate failed. The
rule functions and the registry of issue codes are arguments; by default, the contract's standard ones.

It never raises on bad input: whatever the payload, it returns issues.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from profiles.clean_gate import CleanGate, clean_gate
from profiles.compiled_gate import APART_REFUSED, CompiledGate, Refusal, Rows
from profiles.contract import CONTEXTS, RESOURCE, WRITE, Contract, Profile, ResourceRules, load_contract
from profiles.issue_codes import IssueCodes, standard_issue_codes
from profiles.issues import Issue
from profiles.paths import Where, without_members
from profiles.payload_issues import by_element, json_kind, not_checkable
from profiles.recognition import ProfileRecognition, Recognition
from profiles.rule_plans import RulePlans, pointer
from profiles.rule_set import standard_kinds
from profiles.rules import DocumentCheck, DocumentContext, Rule
from profiles.structure import SchemaStore, Structure

__all__ = ["CONTEXTS", "RESOURCE", "WRITE", "Validator"]


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
        """`rules` maps the rule names of the profile data to their functions (default: the explanations of
        `standard_kinds()`); `issue_codes` decides each code's severity and requirement (default: the registry of
        profiles/issue-codes.json). `fast_path=False` asks no clean gate and explains every document through every
        rule function: the results are the same, only slower (tests/profiles/test_fast_path.py); so are they with
        other `rules`, whose functions the gates of the standard kinds do not state. `strict`: where the contract
        leaves a form open, the reference implementation's form is demanded (the issue code open-choice is an error
        instead of information)."""
        self.contract = contract or load_contract()
        self.schemas = schemas or SchemaStore()
        self.kinds = standard_kinds()
        self.rules: Mapping[str, Rule] = (
            dict(rules) if rules is not None else {name: kind.explain for name, kind in self.kinds.items()}
        )
        self.issue_codes = standard_issue_codes(strict) if issue_codes is None else issue_codes
        self.recognition = ProfileRecognition(self.contract, self.issue_codes)
        self.fast_path = fast_path
        self._gated = fast_path and rules is None
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
        self._plans = RulePlans(self.contract, self.rules, self.issue_codes, None if rules is not None else self.kinds)
        self._gates: dict[tuple[str, str, str | None], CompiledGate | None] = {}
        self._gate_table: dict[str, tuple[DocumentCheck, DocumentCheck | None, DocumentCheck | None, CompiledGate]] = {}
        """The served resources' gates by type, (is_valid, the check of the rows apart or None, the checks after them
        or None, the gate), filled as the gates are built: gate_refusals calls them directly."""
        self._refusing = False
        """The pass of the gates refused most of the documents of the last call of gate_refusals: the next tries
        their remembered causes first."""

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
        gate = self._gate_for(document, resource_type, profile, context)
        return gate is not None and gate.passes(document)

    def clean_gate(
        self, resource_type: str, *, context: str = RESOURCE, profile: str | None = None
    ) -> CleanGate | None:
        """The clean gate of `resource_type` in `context` (`profile`: forced, as in validate()); None where there is
        none: a type without a schema, a profile that is not one of the type, a validator without gates."""
        gate = self._gate(resource_type, context, profile) if self._gated else None
        return None if gate is None else gate.definition

    def gate_refused(
        self,
        documents: list[Any],
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
    ) -> list[int]:
        """The indices of the documents that passes_gate() refuses with these options, in order: one call for many
        payloads."""
        refusals = self.gate_refusals(documents, resource_type=resource_type, profile=profile, context=context)
        return [index for index, _ in refusals]

    def gate_refusals(
        self,
        documents: list[Any],
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
    ) -> list[tuple[int, Refusal]]:
        """gate_refused(), each index with what was found of its refusal (explain(known=...) asks that no more),
        the loop of `eris validate`. With the default options each gate's pass, the check of its rows apart and its
        checks after them are called directly, without the calls of passes_gate around them. After a call whose pass
        refused most of its documents (an export whose payloads fail the same row of the pass), a document is first
        tried against the causes its gate remembers: one check then says it is refused and why, where the gate's
        refusal said only the first."""
        if resource_type is not None or profile is not None or context != RESOURCE:
            passes = partial(self.passes_gate, resource_type=resource_type, profile=profile, context=context)
            return [(index, False) for index, passed in enumerate(map(passes, documents)) if not passed]
        table, refusing = self._gate_table, self._refusing
        refused: list[tuple[int, Refusal]] = []
        by_pass = 0
        for index, document in enumerate(documents):
            found = document.get("resourceType") if type(document) is dict else None
            entry = table.get(found) if type(found) is str else None
            if entry is None:  # no gate, or not built yet
                gate = self._gate_for(document, None, None, RESOURCE)
                known = False if gate is None else gate.refusal(document)
                if known is not None:
                    refused.append((index, known))
                continue
            is_valid, apart, holds, gate = entry
            if refusing:
                cause = gate.cause_of(document)
                if cause is not None:
                    refused.append((index, cause))
                    continue
            try:
                if not is_valid(document):
                    refused.append((index, False))
                    by_pass += 1
                    continue
                if apart is not None and not apart(document):
                    refused.append((index, APART_REFUSED))
                    continue
            except (ValueError, RecursionError):  # the explanation path reports why
                refused.append((index, False))
                continue
            if holds is not None and not holds(document):
                refused.append((index, True))
        self._refusing = len(documents) >= _REFUSING_AFTER and by_pass * 2 > len(documents)
        return refused

    def explain(
        self,
        document: Any,
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
        known: Refusal = False,
    ) -> list[Issue]:
        """validate() of a document that passes_gate() refused, with the same options: the gate's pass is not made
        again, and the parts of it that failed say which rules to explain. (Of any other document too.) `known`: what
        gate_refusals() found of its refusal."""
        found = document.get("resourceType") if self._gated and type(document) is dict else None
        if type(found) is str and context in CONTEXTS and (resource_type is None or found == resource_type):
            rules = self.contract.resources.get(found)
            if rules is not None:
                gate = self._gates.get((found, context, profile), _UNBUILT)
                if gate is _UNBUILT:
                    gate = self._gate(found, context, profile)
                parts = None if gate is None else gate.failed_parts(document, known=known)
                if parts is not None and not parts[1] and (context == RESOURCE or rules.writable):
                    # the common refusal: rows of the resource type fail, and nothing else; explained without the
                    # generators of _issues around the rule functions (a third of the explanation of one warning)
                    ctx = DocumentContext(self.contract, context, (), document)
                    return self._plans.apply(self._plans.planned(rules.resource_type, context), document, ctx, parts[0])
                return list(self._issues(document, resource_type, profile, context, gate_tried=True, parts=parts))
        return list(self._issues(document, resource_type, profile, context, gate_tried=True))

    def validate(
        self, document: Any, *, resource_type: str | None = None, profile: str | None = None, context: str = RESOURCE
    ) -> list[Issue]:
        # the common case of millions of payloads, without a generator: the gate passes
        gate = self._gate_for(document, resource_type, profile, context)
        known = False if gate is None else gate.refusal(document)
        if known is None:
            return []
        return self.explain(document, resource_type=resource_type, profile=profile, context=context, known=known)

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
        parts: tuple[Rows, bool] | None = None,
    ) -> Iterator[Issue]:
        """iter_issues; `gate_tried`: the clean gate of the document's type was asked already (and refused it);
        `parts`: and the parts of it that failed, as far as known."""
        if context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS}, not {context!r}")
        codes = self.issue_codes
        if not isinstance(document, dict):
            yield codes.issue("resource-not-object", "", f"a resource is a JSON object, not {json_kind(document)}")
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
        failed: Rows | None = None  # the rows to explain; None: all of them, and the structure
        recognise = True
        gate = self._gate(rules.resource_type, context, profile) if self._gated else None
        if gate is not None:
            if not gate_tried and gate.passes(document):
                return  # the clean gate: nothing to report (profiles/clean_gate.py)
            if parts is None:
                parts = gate.failed_parts(document)
            if parts is not None:
                failed, recognise = parts
        if failed is None and rules.schema:
            try:
                structure = self.schemas.check(rules.schema, document, rules.requirement, codes)
                if structure.null_members:
                    document, structure, absent = self._nulls_read_as_absent(
                        rules.schema, rules.requirement, document, structure
                    )
                    yield from by_element(self._null_choices(absent, rules), rules)
            except (ValueError, RecursionError) as error:  # a lone surrogate, nesting beyond the engine
                yield codes.issue("payload-not-checkable", "", not_checkable(error))
                return
            yield from by_element(structure.issues, rules)
        applied, issues = (
            self.recognition.recognise(document, rules.resource_type, context, profile) if recognise else _NOTHING
        )
        if issues:
            yield from issues
        ctx = DocumentContext(self.contract, context, applied, document)
        yield from self._plans.apply(self._plans.planned(rules.resource_type, context), document, ctx, failed)
        for applied_profile in applied:
            profile_plan = self._plans.planned(applied_profile.name, context, applied_profile)
            if profile_plan.groups:  # most profiles only recognise; an empty plan is not worth a generator
                yield from self._plans.apply(profile_plan, document, ctx, failed)

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
            yield replace(self.issue_codes.issue("open-choice", pointer(path), message), requirement=rules.requirement)

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

    def _gate_for(
        self, document: Any, resource_type: str | None, profile: str | None, context: str
    ) -> CompiledGate | None:
        """The clean gate that judges `document` with these options; None where no gate can."""
        if self._gated and type(document) is dict:
            found = document.get("resourceType", resource_type)  # a report order has none: the caller names it
            if type(found) is str and (resource_type is None or found == resource_type):
                gate = self._gates.get((found, context, profile), _UNBUILT)
                return self._gate(found, context, profile) if gate is _UNBUILT else gate
        return None

    def _gate(self, resource_type: str, context: str, profile: str | None) -> CompiledGate | None:
        key = (resource_type, context, profile)
        if key not in self._gates:
            rules = self.contract.resources.get(resource_type)
            forced = None if profile is None else self.recognition.resolve(profile, resource_type)
            if rules is None or not rules.schema or context not in CONTEXTS or (profile is not None and forced is None):
                self._gates[key] = None  # every document of it has something to report, or cannot be gated
            else:
                structure = self.schemas.documents[rules.schema.removesuffix(".schema.json")]["$id"]
                made = partial(clean_gate, self.contract, rules, context, structure, self.kinds, forced=forced)
                built = self._gates[key] = CompiledGate(
                    self.schemas, made(), structure, lambda rows: made(leaving_out=rows)
                )
                if context == RESOURCE and profile is None:
                    self._gate_table[resource_type] = (built.is_valid, built.apart, built.holds, built)
        return self._gates[key]


_UNBUILT: Any = object()
_REFUSING_AFTER = 8
"""Documents of a call of gate_refusals at least, for its refusals to say that the next call's are likely."""
_NOTHING = Recognition((), ())
