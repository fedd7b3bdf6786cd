"""The contract's rules as data (profiles, terminology, namespaces, report operations, installation
placeholders, the registry of issue codes) and the functions that apply them."""

from profiles.contract import Contract, Namespace, Profile, ResourceRules, ValueSetIndex, load_contract
from profiles.installation import ConfigError, Installation, load_installation
from profiles.issue_codes import IssueCode, IssueCodes, read_issue_codes, standard_issue_codes
from profiles.rule_set import standard_rules
from profiles.rules import Finding, Rule, RuleContext

__all__ = [
    "ConfigError",
    "Contract",
    "Finding",
    "Installation",
    "IssueCode",
    "IssueCodes",
    "Namespace",
    "Profile",
    "ResourceRules",
    "Rule",
    "RuleContext",
    "ValueSetIndex",
    "load_contract",
    "load_installation",
    "read_issue_codes",
    "standard_issue_codes",
    "standard_rules",
]
