"""How a payload shows its profile, read from the profile definitions: a `meta.profile` claim, the
evidence (a category coding, a value-set url), and what it must not show so that no other
profile of its type is recognised."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from profiles import Contract, Profile
from profiles.recognition import unrecognised_severity


@dataclass(frozen=True)
class Showing:
    """What one payload shows of its profile."""

    claim: bool
    """meta.profile holds the profile URL."""
    evidence: bool
    """The payload carries the profile's evidence (category coding or url)."""


def showings(profile: Profile | None, context: str) -> tuple[Showing, ...]:
    """Every way a payload of `profile` is recognised in `context` without an issue: evidence where the
    profile demands it, a claim where there is no evidence to show, else claim, evidence or both."""
    if profile is None:
        return (Showing(claim=False, evidence=False),)
    if not profile.has_evidence_rule:
        return (Showing(claim=True, evidence=False),)
    if context in profile.evidence_required_in:
        return (Showing(claim=False, evidence=True), Showing(claim=True, evidence=True))
    return (
        Showing(claim=True, evidence=False),
        Showing(claim=False, evidence=True),
        Showing(claim=True, evidence=True),
    )


def others(contract: Contract, resource_type: str, profiles: Collection[Profile]) -> tuple[Profile, ...]:
    return tuple(p for p in contract.profiles_of(resource_type) if p not in profiles)


def foreign_evidence_codings(
    contract: Contract, resource_type: str, profiles: Collection[Profile]
) -> frozenset[tuple[str, str]]:
    """Category codings that would make another profile of the type recognised."""
    return frozenset(c for p in others(contract, resource_type, profiles) for c in p.category_codings)


def foreign_canonical_urls(contract: Contract, resource_type: str, profiles: Collection[Profile]) -> frozenset[str]:
    """Value-set urls that would make another profile of the type recognised."""
    return frozenset(p.canonical_url for p in others(contract, resource_type, profiles) if p.canonical_url is not None)


def recognition_severity(contract: Contract, resource_type: str, context: str) -> str | None:
    """The severity of an unrecognised profile for the type in `context` (None: no profile needed)."""
    return unrecognised_severity(contract, resource_type, context)
