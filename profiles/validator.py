"""The validator engine: structure from `schemas/`, then the profile rules of `profiles/`.

It never raises on bad input: whatever the payload, it returns issues.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from profiles import RULES, Contract, Finding, Profile, ResourceRules, load_contract
from profiles.issues import Issue, Severity, pointer
from profiles.paths import split_path, values_at
from profiles.rule_schemas import compile_rule
from profiles.structure import SchemaStore

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
RESOURCE = "resource"
WRITE = "write"
CONTEXTS = (RESOURCE, WRITE)


@dataclass(frozen=True, slots=True)
class _PlannedRule:
    function: Any
    spec: Mapping[str, Any]
    severity: Severity
    requirement: str | None


_Plan = tuple[tuple[tuple[str, ...], list[_PlannedRule]], ...]


@dataclass(frozen=True)
class _FastPath:
    """One jsonschema-rs check of structure plus the compiled rules, and the rules it cannot replace."""

    validator: Any
    residual: _Plan


@dataclass
class _RuleContext:
    contract: Contract
    context: str
    applied_profiles: tuple[Profile, ...]


def _in_context(rules: tuple[Mapping[str, Any], ...], context: str) -> list[Mapping[str, Any]]:
    return [spec for spec in rules if context in spec.get("contexts", CONTEXTS)]


def _plan(rules: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...], context: str) -> _Plan:
    """The rules that apply in `context`, grouped by path so that each path is walked once."""
    by_path: dict[tuple[str, ...], list[_PlannedRule]] = {}
    for spec in rules:
        if context not in spec.get("contexts", CONTEXTS) or spec.get("strength") == "example":
            continue  # an example binding illustrates codes; it checks nothing
        tokens = split_path(spec["path"])
        by_path.setdefault(tokens, []).append(
            _PlannedRule(
                function=RULES[spec["rule"]],
                spec=spec,
                severity=Severity(spec.get("severity", "error")),
                requirement=spec.get("requirement"),
            )
        )
    return tuple(by_path.items())


class Validator:
    """Validates payloads of the contract. Build once and reuse: schemas compile on first use."""

    def __init__(
        self, contract: Contract | None = None, schemas: SchemaStore | None = None, *, fast_path: bool = True
    ) -> None:
        """`fast_path=False` explains every document through the rule functions; the results are the
        same, only slower (tests/profiles/test_fast_path.py)."""
        self.contract = contract or load_contract()
        self.schemas = schemas or SchemaStore()
        self.fast_path = fast_path
        unknown = {
            spec["rule"]
            for rules in [
                *(r.rules for r in self.contract.resources.values()),
                *(p.rules for p in self.contract.profiles.values()),
            ]
            for spec in rules
            if spec["rule"] not in RULES
        }
        if unknown:
            raise ValueError(f"profile data names unknown rules: {', '.join(sorted(unknown))}")
        self._plans: dict[tuple[str, str], _Plan] = {}
        self._profiles_by_type: dict[str, tuple[Profile, ...]] = {}
        self._fast_paths: dict[tuple[str, str], _FastPath] = {}

    @classmethod
    def for_config(cls, config: Path | str | None) -> Validator:
        return cls(load_contract(config))

    @property
    def resource_types(self) -> list[str]:
        return sorted(self.contract.resources)

    def resolve_profile(self, name_or_url: str, resource_type: str | None = None) -> Profile | None:
        profile = self.contract.profiles.get(name_or_url) or self.contract.profile_by_url(name_or_url)
        if profile is not None and resource_type and profile.resource_type != resource_type:
            return None
        return profile

    def recognised_profiles(self, document: dict[str, Any], resource_type: str) -> tuple[Profile, ...]:
        """The profiles of `resource_type` that the resource claims in meta.profile or shows evidence of."""
        candidates = self._profiles_of(resource_type)
        meta = document.get("meta")
        urls = meta.get("profile") if isinstance(meta, dict) else None
        claimed = [p for p in candidates if isinstance(urls, list) and p.url in urls]
        categories = _category_codings(document)
        return tuple(dict.fromkeys([*claimed, *(p for p in candidates if _has_evidence(p, document, categories))]))

    def is_valid(self, document: Any, **options: Any) -> bool:
        return not any(issue.is_error for issue in self.iter_issues(document, **options))

    def validate(self, document: Any, **options: Any) -> list[Issue]:
        return list(self.iter_issues(document, **options))

    def iter_issues(
        self,
        document: Any,
        *,
        resource_type: str | None = None,
        profile: str | None = None,
        context: str = RESOURCE,
    ) -> Iterator[Issue]:
        """Every issue of `document`: as served (context "resource") or as a write body ("write")."""
        if context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS}, not {context!r}")
        if not isinstance(document, dict):
            yield Issue(
                Severity.ERROR, "resource-not-object", "", f"a resource is a JSON object, not {_json_kind(document)}"
            )
            return
        found = document.get("resourceType")
        known = isinstance(found, str) and (resource_type is None or found == resource_type)
        rules = self.contract.resources.get(found) if known else None  # the common case, without a generator
        if rules is None:
            rules = yield from self._resource_rules(document, resource_type)
            if rules is None:
                return
        if context == WRITE and not rules.writable:
            yield Issue(
                Severity.ERROR,
                "resource-not-writable",
                "/resourceType" if "resourceType" in document else "",
                f"the contract has no write of {rules.resource_type}",
            )
        fast = self._fast(rules, context) if self.fast_path else None
        if fast is not None and _passes(fast.validator, document):
            plan = fast.residual
        else:
            if rules.schema:
                try:
                    structure = list(self.schemas.iter_issues(rules.schema, document, rules.requirement))
                except (ValueError, RecursionError) as error:  # a lone surrogate, nesting beyond the engine
                    yield Issue(Severity.ERROR, "payload-not-checkable", "", _not_checkable(error))
                    return
                yield from structure
            plan = self._planned(rules.resource_type, context)
        applied = yield from self._recognise_profiles(document, rules, profile, context)
        ctx = _RuleContext(self.contract, context, applied)
        yield from self._apply(plan, document, ctx)
        for applied_profile in applied:
            yield from self._apply(self._planned(applied_profile.name, context, applied_profile), document, ctx)

    def _resource_rules(self, document: dict[str, Any], declared: str | None) -> Iterator[Issue]:
        found = document.get("resourceType")
        if found is not None and declared is not None and found != declared:
            yield Issue(
                Severity.ERROR,
                "resource-type-mismatch",
                "/resourceType",
                f"resourceType is {found!r} but {declared!r} was expected",
            )
            return None
        resource_type = found if found is not None else declared
        if resource_type is None:
            yield Issue(
                Severity.ERROR,
                "resource-type-missing",
                "",
                "no resourceType: give the payload one, or name its type (--resource-type)",
            )
            return None
        rules = self.contract.resources.get(resource_type) if isinstance(resource_type, str) else None
        if rules is None and isinstance(resource_type, str) and resource_type in self.contract.not_shown_types:
            yield Issue(
                Severity.INFORMATION,
                "resource-type-not-shown",
                "/resourceType" if found is not None else "",
                f"the contract names {resource_type} but does not show its structure; it is not checked",
            )
        elif rules is None:
            yield Issue(
                Severity.ERROR,
                "resource-type-unknown",
                "/resourceType" if found is not None else "",
                f"{resource_type!r} is not a resource type of the contract; known: {', '.join(self.resource_types)}",
            )
        return rules

    def _profiles_of(self, resource_type: str) -> tuple[Profile, ...]:
        profiles = self._profiles_by_type.get(resource_type)
        if profiles is None:
            profiles = self._profiles_by_type[resource_type] = self.contract.profiles_of(resource_type)
        return profiles

    def _fast(self, rules: ResourceRules, context: str) -> _FastPath | None:
        key = (rules.resource_type, context)
        fast = self._fast_paths.get(key)
        if fast is None and rules.schema:
            compiled, residual = [], []
            for spec in _in_context(rules.rules, context):
                if spec.get("strength") == "example":
                    continue  # checks nothing, as in _plan
                schema = compile_rule(self.contract, spec)
                (residual if schema is None else compiled).append(schema if schema is not None else spec)
            structure = self.schemas.documents[rules.schema.removesuffix(".schema.json")]["$id"]
            combined = {"$schema": _DIALECT, "allOf": [{"$ref": structure}, *compiled]}
            fast = self._fast_paths[key] = _FastPath(self.schemas.compile(combined), _plan(residual, context))
        return fast

    def _planned(self, name: str, context: str, profile: Profile | None = None) -> _Plan:
        key = (name, context)
        plan = self._plans.get(key)
        if plan is None:
            rules = profile.rules if profile is not None else self.contract.resources[name].rules
            plan = self._plans[key] = _plan(rules, context)
        return plan

    def _apply(self, plan: _Plan, document: dict[str, Any], ctx: _RuleContext) -> Iterator[Issue]:
        for tokens, rules in plan:
            for value, where in values_at(document, tokens):
                for rule in rules:
                    try:
                        findings = list(rule.function(ctx, value, rule.spec))
                    except Exception as error:  # a rule bug must not hide the rest of the report
                        findings = [
                            Finding(
                                "validator-internal-error",
                                f"rule {rule.spec['rule']} failed: {type(error).__name__}: {error}",
                            )
                        ]
                    for finding in findings:
                        yield _issue(finding, where, rule.severity, rule.requirement)

    def _recognise_profiles(
        self, document: dict[str, Any], rules: ResourceRules, forced: str | None, context: str
    ) -> Iterator[Issue]:
        candidates = self._profiles_of(rules.resource_type)
        meta = document.get("meta")
        if not candidates and forced is None and not meta:
            return ()
        claimed: list[Profile] = []
        if forced is not None:
            profile = self.resolve_profile(forced, rules.resource_type)
            if profile is None:
                known = ", ".join(p.name for p in candidates) or "none"
                yield Issue(
                    Severity.ERROR,
                    "profile-unknown",
                    "",
                    f"{forced!r} is not a profile of {rules.resource_type}; its profiles: {known}",
                )
            else:
                claimed.append(profile)
        urls = meta.get("profile") if isinstance(meta, dict) else None
        for index, url in enumerate(urls if isinstance(urls, list) else []):
            profile = self.contract.profile_by_url(url)
            where = f"/meta/profile/{index}"
            if profile is None:
                yield Issue(
                    Severity.INFORMATION,
                    "profile-not-of-contract",
                    where,
                    f"{url!r} is not a profile of the contract; it is not checked",
                )
            elif profile.resource_type != rules.resource_type:
                yield Issue(
                    Severity.ERROR,
                    "profile-wrong-resource-type",
                    where,
                    f"profile {profile.name} is a profile of {profile.resource_type}, not of {rules.resource_type}",
                    profile.requirement,
                )
            elif profile not in claimed:
                claimed.append(profile)
        categories = _category_codings(document) if candidates else frozenset()
        evidenced = [p for p in candidates if _has_evidence(p, document, categories)]
        for profile in claimed:
            if profile not in evidenced and profile.has_evidence_rule and context in profile.evidence_required_in:
                yield Issue(
                    Severity.ERROR,
                    "profile-evidence-missing",
                    _evidence_location(profile),
                    f"the resource claims profile {profile.name} but {_evidence_text(profile)}",
                    profile.requirement,
                )
        applied = tuple(dict.fromkeys([*claimed, *evidenced]))
        recognition = rules.profile_recognition
        if not applied and context in recognition:
            names = ", ".join(p.name for p in candidates)
            yield Issue(
                Severity(recognition[context]),
                "profile-unrecognised",
                "",
                f"no recognised profile: give meta.profile or a category of one of {names}",
                recognition.get("requirement"),
            )
        if context == WRITE and candidates:
            for profile in applied:
                if not profile.writable:
                    writable = ", ".join(p.name for p in candidates if p.writable)
                    yield Issue(
                        Severity.ERROR,
                        "profile-not-writable",
                        "",
                        f"profile {profile.name} cannot be written; writes take {writable}",
                        recognition.get("requirement", profile.requirement),
                    )
        return applied


def _passes(validator: Any, document: dict[str, Any]) -> bool:
    try:
        return validator.is_valid(document)
    except (ValueError, RecursionError):
        return False  # the explanation path reports why


def _not_checkable(error: Exception) -> str:
    if isinstance(error, UnicodeError):
        return "the payload holds a string that is not valid Unicode (a lone surrogate escape such as \\ud800)"
    return f"the payload cannot be checked: {error}"


def _category_codings(document: dict[str, Any]) -> frozenset[tuple[Any, Any]]:
    categories = document.get("category")
    found = set()
    for concept in categories if isinstance(categories, list) else []:
        codings = concept.get("coding") if isinstance(concept, dict) else None
        for coding in codings if isinstance(codings, list) else []:
            if (
                isinstance(coding, dict)
                and isinstance(coding.get("system"), str)
                and isinstance(coding.get("code"), str)
            ):
                found.add((coding["system"], coding["code"]))
    return frozenset(found)


def _has_evidence(profile: Profile, document: dict[str, Any], categories: frozenset[tuple[Any, Any]]) -> bool:
    if profile.canonical_url is not None:
        return document.get("url") == profile.canonical_url
    return not categories.isdisjoint(profile.category_codings)


def _evidence_location(profile: Profile) -> str:
    return "/url" if profile.canonical_url is not None else "/category"


def _evidence_text(profile: Profile) -> str:
    if profile.canonical_url is not None:
        return f"its url is not {profile.canonical_url}"
    wanted = " or ".join(f"{system}|{code}" for system, code in profile.category_codings)
    return f"its category has no coding {wanted}"


def _issue(finding: Finding, where: tuple[str | int, ...], severity: Severity, requirement: str | None) -> Issue:
    location = ""
    for token in (*where, *finding.at):
        location = pointer(location, token)
    return Issue(
        Severity(finding.severity) if finding.severity else severity,
        finding.code,
        location,
        finding.message,
        requirement,
    )


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
