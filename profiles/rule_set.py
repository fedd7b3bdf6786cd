"""The standard rule set: every rule function the contract's profile data can name, by name."""

from __future__ import annotations

from profiles.report_rules import report_rules
from profiles.rules import Rule, generic_rules


def standard_rules() -> dict[str, Rule]:
    """A new mapping on each call: a caller may add or replace rules without touching anyone else's."""
    return {**generic_rules(), **report_rules()}
