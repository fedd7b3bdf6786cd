"""The standard rule set: every rule kind the contract's profile data can name, by name."""

from __future__ import annotations

from profiles.identifier_rules import IDENTIFIER_KINDS
from profiles.report_rules import REPORT_KINDS
from profiles.rules import ELEMENT_KINDS, Rule, RuleKind


def standard_kinds() -> dict[str, type[RuleKind]]:
    """A new mapping on each call: a caller may add or replace kinds without touching anyone else's."""
    return {kind.name: kind for kind in (*ELEMENT_KINDS, *IDENTIFIER_KINDS, *REPORT_KINDS)}


def standard_rules() -> dict[str, Rule]:
    """The explanation of each standard kind, by name (a new mapping on each call)."""
    return {name: kind.explain for name, kind in standard_kinds().items()}
