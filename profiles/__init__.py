"""The contract's rules as data (profiles, terminology, namespaces, report operations, installation
placeholders) and the functions that apply them."""

from profiles.contract import Contract, Namespace, Profile, ResourceRules, ValueSetIndex, load_contract
from profiles.installation import ConfigError, Installation, load_installation
from profiles.report_rules import report_rules
from profiles.rules import Finding, Rule, RuleContext, generic_rules

RULES: dict[str, Rule] = {**generic_rules(), **report_rules()}

__all__ = [
    "RULES",
    "ConfigError",
    "Contract",
    "Finding",
    "Installation",
    "Namespace",
    "Profile",
    "ResourceRules",
    "Rule",
    "RuleContext",
    "ValueSetIndex",
    "load_contract",
    "load_installation",
]
