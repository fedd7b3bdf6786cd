"""Profile recognition: which profiles of its type a payload claims (meta.profile, or a profile the
caller names) or shows the evidence of (a party-kind or document category, the url of an
implementation-defined value set), and what is wrong with that.

A step of its own: the validator applies the rules of the profiles recognised here, and the
reference implementation and the conformance suite ask it which profiles a resource has. The same
checks as JSON Schema, recognition's part of the clean gate (profiles/clean_gate.py), stand at the
end of this module, beside the explanation they must agree with (tests/profiles/test_fast_path.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from profiles.contract import RESOURCE, WRITE, Contract, Profile, ResourceRules
from profiles.issue_codes import IssueCodes, standard_issue_codes
from profiles.issues import Issue, Severity

Schema = dict[str, Any]
_OBJECT: Schema = {"type": "object"}


class Recognition(NamedTuple):
    profiles: tuple[Profile, ...]
    """The profiles whose rules apply: those claimed, then those evidenced, each once."""
    issues: tuple[Issue, ...]


_NOTHING = Recognition((), ())


class ProfileRecognition:
    """Recognises the profiles of one contract's payloads. Build once and reuse: it keeps the
    profiles of each resource type."""

    def __init__(self, contract: Contract, issue_codes: IssueCodes | None = None) -> None:
        self.contract = contract
        self.issue_codes = standard_issue_codes() if issue_codes is None else issue_codes
        self._profiles_by_type: dict[str, tuple[Profile, ...]] = {}

    def profiles_of(self, resource_type: str) -> tuple[Profile, ...]:
        profiles = self._profiles_by_type.get(resource_type)
        if profiles is None:
            profiles = self._profiles_by_type[resource_type] = self.contract.profiles_of(resource_type)
        return profiles

    def resolve(self, name_or_url: str, resource_type: str | None = None) -> Profile | None:
        """The profile of that name or URL (of `resource_type`, when given)."""
        profile = self.contract.profiles.get(name_or_url) or self.contract.profile_by_url(name_or_url)
        if profile is not None and resource_type and profile.resource_type != resource_type:
            return None
        return profile

    def recognise(
        self, payload: dict[str, Any], resource_type: str, context: str = RESOURCE, profile: str | None = None
    ) -> Recognition:
        """The profiles of `payload` as a `resource_type` in `context`; `profile` is a profile (name or
        URL) the caller validates against besides those the payload claims or shows."""
        candidates = self._profiles_by_type.get(resource_type)
        if candidates is None:
            candidates = self.profiles_of(resource_type)
        meta = payload.get("meta")
        if not candidates and profile is None and not meta:
            return _NOTHING  # most payloads: this runs once for each, so it is kept to a few lookups
        issues: list[Issue] = []
        claimed = self._claimed(meta, resource_type, profile, issues) if meta or profile is not None else []
        categories = _category_codings(payload) if candidates else frozenset()
        evidenced = [p for p in candidates if _has_evidence(p, payload, categories)]
        applied = tuple(dict.fromkeys([*claimed, *evidenced])) if claimed else tuple(evidenced)
        if claimed or not applied or context == WRITE:
            self._check(resource_type, context, candidates, claimed, evidenced, applied, issues)
        return Recognition(applied, tuple(issues))

    def _check(
        self,
        resource_type: str,
        context: str,
        candidates: tuple[Profile, ...],
        claimed: list[Profile],
        evidenced: list[Profile],
        applied: tuple[Profile, ...],
        issues: list[Issue],
    ) -> None:
        """What is wrong with the profiles found: a claim without its evidence, no profile where the type
        needs one, a profile that cannot be written in a write."""
        codes = self.issue_codes
        for claim in claimed:
            if claim not in evidenced and claim.has_evidence_rule and context in claim.evidence_required_in:
                where = _evidence_location(claim)
                message = f"the resource claims profile {claim.name} but {_evidence_text(claim)}"
                issues.append(codes.issue("profile-evidence-missing", where, message, profile=claim.requirement))
        rules = self.contract.resources.get(resource_type)
        required_by = rules.profile_recognition_requirement.get(context) if rules is not None else None
        if not applied and rules is not None and context in rules.profile_required_in:
            names = ", ".join(p.name for p in candidates)
            message = f"no recognised profile: give meta.profile or a category of one of {names}"
            issues.append(codes.issue("profile-unrecognised", "", message, recognition=required_by))
        if context == WRITE and candidates:
            writable = ", ".join(p.name for p in candidates if p.writable)
            for written in applied:
                if not written.writable:
                    message = f"profile {written.name} cannot be written; writes take {writable}"
                    recognised_by = rules.profile_recognition_requirement if rules is not None else {}
                    requirement = recognised_by.get(WRITE) or written.requirement
                    issues.append(codes.issue("profile-not-writable", "", message, recognition=requirement))

    def _claimed(self, meta: Any, resource_type: str, forced: str | None, issues: list[Issue]) -> list[Profile]:
        claimed: list[Profile] = []
        if forced is not None:
            profile = self.resolve(forced, resource_type)
            if profile is None:
                known = ", ".join(p.name for p in self.profiles_of(resource_type)) or "none"
                message = f"{forced!r} is not a profile of {resource_type}; its profiles: {known}"
                issues.append(self.issue_codes.issue("profile-unknown", "", message))
            else:
                claimed.append(profile)
        urls = meta.get("profile") if isinstance(meta, dict) else None
        for index, url in enumerate(urls if isinstance(urls, list) else []):
            profile = self.contract.profile_by_url(url)
            if profile is None:
                message = f"{url!r} is not a profile of the contract; it is not checked"
                issues.append(self.issue_codes.issue("profile-not-of-contract", f"/meta/profile/{index}", message))
            elif profile.resource_type != resource_type:
                where = f"/meta/profile/{index}"
                message = f"profile {profile.name} is a profile of {profile.resource_type}, not of {resource_type}"
                issues.append(
                    self.issue_codes.issue("profile-wrong-resource-type", where, message, profile=profile.requirement)
                )
            elif profile not in claimed:
                claimed.append(profile)
        return claimed


def recognise(contract: Contract, payload: dict[str, Any], resource_type: str, context: str = RESOURCE) -> Recognition:
    """The profiles of one payload; for many, build a ProfileRecognition once and reuse it."""
    return ProfileRecognition(contract).recognise(payload, resource_type, context)


def unrecognised_severity(
    contract: Contract, resource_type: str, context: str, issue_codes: IssueCodes | None = None
) -> Severity | None:
    """The severity of a payload of `resource_type` that shows no profile in `context` (None: it
    needs none)."""
    if context not in contract.resources[resource_type].profile_required_in:
        return None
    codes = standard_issue_codes() if issue_codes is None else issue_codes
    return codes["profile-unrecognised"].severity


def _category_codings(payload: dict[str, Any]) -> frozenset[tuple[Any, Any]]:
    categories = payload.get("category")
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


def _has_evidence(profile: Profile, payload: dict[str, Any], categories: frozenset[tuple[Any, Any]]) -> bool:
    if profile.canonical_url is not None:
        return payload.get("url") == profile.canonical_url
    return not categories.isdisjoint(profile.category_codings)


def _evidence_location(profile: Profile) -> str:
    return "/url" if profile.canonical_url is not None else "/category"


def _evidence_text(profile: Profile) -> str:
    if profile.canonical_url is not None:
        return f"its url is not {profile.canonical_url}"
    wanted = " or ".join(f"{system}|{code}" for system, code in profile.category_codings)
    return f"its category has no coding {wanted}"


# -- the same, as JSON Schema: recognition's part of the clean gate (profiles/clean_gate.py) ------------------


def _claims_schema(profile: Profile) -> Schema:
    return {
        "required": ["meta"],
        "properties": {
            "meta": {
                "type": "object",
                "required": ["profile"],
                "properties": {"profile": {"type": "array", "contains": {"const": profile.url}}},
            }
        },
    }


def _evidence_schema(profile: Profile) -> Schema | None:
    if profile.canonical_url is not None:
        return {"required": ["url"], "properties": {"url": {"const": profile.canonical_url}}}
    if not profile.category_codings:
        return None
    return _in_category(profile.category_codings)


def _in_category(codings: Iterable[tuple[str, str]]) -> Schema:
    """A category holds a coding of these (system, code)."""
    coding = {
        "anyOf": [
            {
                "type": "object",
                "required": ["system", "code"],
                "properties": {"system": {"const": system}, "code": {"const": code}},
            }
            for system, code in codings
        ]
    }
    concept = {
        "type": "object",
        "required": ["coding"],
        "properties": {"coding": {"type": "array", "contains": coding}},
    }
    return {"required": ["category"], "properties": {"category": {"type": "array", "contains": concept}}}


def recognised_schema(profile: Profile) -> Schema:
    """Holds where `profile` is recognised: claimed in meta.profile, or shown by its evidence."""
    evidence = _evidence_schema(profile)
    return _claims_schema(profile) if evidence is None else {"anyOf": [_claims_schema(profile), evidence]}


def any_recognised_schema(candidates: tuple[Profile, ...]) -> Schema | bool:
    """anyOf the candidates' recognised_schema, as three tests instead of two a profile: a claim of any of them, the
    url of any, a category coding of any."""
    if not candidates:
        return False
    claims: Schema = {
        "required": ["meta"],
        "properties": {
            "meta": {
                "type": "object",
                "required": ["profile"],
                "properties": {"profile": {"type": "array", "contains": {"enum": sorted(p.url for p in candidates)}}},
            }
        },
    }
    branches = [claims]
    urls = sorted({p.canonical_url for p in candidates if p.canonical_url is not None})
    if urls:
        branches.append({"required": ["url"], "properties": {"url": {"enum": urls}}})
    codings = sorted({coding for p in candidates if p.canonical_url is None for coding in p.category_codings})
    if codings:
        branches.append(_in_category(codings))
    return {"anyOf": branches}


def recognition_schema(
    rules: ResourceRules,
    context: str,
    candidates: tuple[Profile, ...],
    recognised: dict[Profile, Schema],
    required: Schema | bool | None,
    forced: Profile | None,
) -> list[Schema | bool]:
    """No issue of recognise() in `context`: every meta.profile a profile of this
    type; every claim with its evidence where the context demands it; a recognised profile where the context needs
    one (`required`: the schema of one recognised, where it does); in a write, a type that is written and no profile
    that cannot be."""
    urls = sorted(profile.url for profile in candidates)
    parts: list[Schema | bool] = [
        {
            "properties": {
                "meta": {"if": _OBJECT, "then": {"properties": {"profile": {"if": {"type": "array"}, "then": {
                    "items": {"enum": urls} if urls else False
                }}}}}
            }
        }
    ]  # fmt: skip
    if context == WRITE and not rules.writable:
        parts.append(False)
    for profile in candidates:
        evidence = _evidence_schema(profile)
        if evidence is not None and context in profile.evidence_required_in:
            parts.append(evidence if profile is forced else {"if": _claims_schema(profile), "then": evidence})
        if context == WRITE and not profile.writable:
            parts.append(False if profile is forced else {"not": recognised[profile]})
    if required is not None:  # the context needs a recognised profile
        parts.append(required)
    return parts
