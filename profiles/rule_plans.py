"""The rule rows of a resource type or profile, planned for explanation: grouped by path so that each path is walked
once, and applied to a document as located issues. The validator (profiles/validator.py) applies the rows whose parts
of the clean gate a payload failed, or every row where it cannot tell.

The payloads of an export fail for the same few causes (one namespace of another installation, the same reference by
a non-key identifier): a rule kind that says what of a value its explanation reads (RuleKind.explanation_key) is
explained once per row and key, and the issue of a finding at a place is made once, so that such payloads share
their issues (fresh ones for each payload cost a warned payload a tenth more, most of it in the processor's
caches)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from profiles.compiled_gate import Rows
from profiles.contract import CONTEXTS, Contract, Profile
from profiles.issue_codes import IssueCodes
from profiles.issues import Issue, Severity
from profiles.paths import Where, split_path, values_at
from profiles.rules import DocumentContext, ExplanationKey, Finding, Rule, RuleKind

__all__ = ["PlannedRule", "RulePlan", "RulePlans", "pointer"]


@dataclass(frozen=True, slots=True)
class PlannedRule:
    function: Rule
    spec: Mapping[str, Any]
    key_of: ExplanationKey | None = None
    """The key of a value's explanation (RuleKind.explanation_key); None: each value is explained."""
    explained: dict[Hashable, list[Finding]] = field(default_factory=dict)
    """The findings of each key explained, while fewer than _EXPLANATIONS_KEPT."""


_REMEMBERED_SETS = 256
_ISSUES_KEPT = 4096
"""Issues kept (RulePlans._kept_issue_of): an export's few causes at their few places fit."""
_EXPLANATIONS_KEPT = 1024
"""Keys kept a row: an export's few causes fit, and values that never repeat (a column of names) cannot grow it."""
_Groups = tuple[tuple[tuple[str, ...], list[PlannedRule]], ...]


class RulePlan:
    """The rules of a resource type or profile in one context, grouped by path so that each path is walked once."""

    __slots__ = ("_only", "_places", "groups")

    def __init__(self, groups: _Groups) -> None:
        self.groups = groups
        self._places: dict[int, list[tuple[int, int]]] = {}
        for group, (_, planned) in enumerate(groups):
            for place, rule in enumerate(planned):
                self._places.setdefault(id(rule.spec), []).append((group, place))
        self._only: dict[frozenset[int], _Groups] = {}
        """only() of the sets of rows asked before: the payloads of an export most often fail the same few."""

    def only(self, rows: Rows) -> _Groups:
        """The groups of `rows` alone, in the plan's order."""
        key = rows if isinstance(rows, frozenset) else frozenset(rows)
        groups = self._only.get(key)
        if groups is None:
            if len(self._only) >= _REMEMBERED_SETS:
                self._only.clear()
            groups = self._only[key] = self._groups_of(key)
        return groups

    def _groups_of(self, rows: Rows) -> _Groups:
        """Found from the rows, not by a walk of the plan: a refused payload fails few."""
        places: list[tuple[int, int]] = []
        for row in rows:
            found = self._places.get(row)
            if found is not None:
                places += found
        places.sort()
        groups: list[tuple[tuple[str, ...], list[PlannedRule]]] = []
        last = -1
        for group, place in places:
            if group != last:
                groups.append((self.groups[group][0], []))
                last = group
            groups[-1][1].append(self.groups[group][1][place])
        return tuple(groups)


class RulePlans:
    """The plans of a contract's resource types and profiles, made on first use, and their application."""

    def __init__(
        self,
        contract: Contract,
        rules: Mapping[str, Rule],
        issue_codes: IssueCodes,
        kinds: Mapping[str, type[RuleKind]] | None = None,
    ) -> None:
        """`kinds`: the rule kinds whose explanation_key is used where `rules` holds their own explanation."""
        self.contract, self.rules, self.issue_codes = contract, rules, issue_codes
        self._keys = {
            name: kind.explanation_key
            for name, kind in (kinds or {}).items()
            if kind.explanation_key is not None and rules.get(name) is kind.explain
        }
        self._plans: dict[tuple[str, str], RulePlan] = {}
        self._issues: dict[tuple[int, Finding, Where], Issue] = {}
        self._issue_kinds: dict[tuple[str, int], tuple[Severity, str | None]] = {}
        """(severity, requirement) of a code found by a rule row (by id: the rows live as long as the contract)."""

    def planned(self, name: str, context: str, profile: Profile | None = None) -> RulePlan:
        """The plan of the resource type `name`, or of `profile` (named `name`), in `context`."""
        key = (name, context)
        plan = self._plans.get(key)
        if plan is None:
            specs = profile.rules if profile is not None else self.contract.resources[name].rules
            plan = self._plans[key] = self._plan(specs, context)
        return plan

    def apply(
        self, plan: RulePlan, document: dict[str, Any], ctx: DocumentContext, only: Rows | None = None
    ) -> list[Issue]:
        """The findings of the plan's rules (`only`: of these rows) as issues, in the plan's order."""
        issues: list[Issue] = []
        for tokens, planned in plan.groups if only is None else plan.only(only):
            values = values_at(document, tokens)
            if not values:
                continue
            for value, where in values:
                for rule in planned:
                    findings = _findings(rule, ctx, value) if rule.key_of is None else _kept_findings(rule, ctx, value)
                    for finding in findings:
                        issues.append(self._kept_issue_of(finding, where, rule.spec))
        return issues

    def _plan(self, specs: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...], context: str) -> RulePlan:
        """The rules that apply in `context`, grouped by path so that each path is walked once."""
        by_path: dict[tuple[str, ...], list[PlannedRule]] = {}
        for spec in specs:
            if context not in spec.get("contexts", CONTEXTS) or spec.get("strength") == "example":
                continue  # an example binding illustrates codes; it checks nothing
            planned = PlannedRule(self.rules[spec["rule"]], spec, self._keys.get(spec["rule"]))
            by_path.setdefault(split_path(spec["path"]), []).append(planned)
        return RulePlan(tuple(by_path.items()))

    def _issue_of(self, finding: Finding, where: Where, spec: Mapping[str, Any]) -> Issue:
        """issue_codes.issue(..., rule=spec) of a rule's finding, its severity and requirement looked up once for
        each code and row."""
        key = (finding.code, id(spec))
        kind = self._issue_kinds.get(key)
        if kind is None:
            made = self.issue_codes.issue(finding.code, "", "", rule=spec)
            kind = self._issue_kinds[key] = (made.severity, made.requirement)
        location = pointer((*where, *finding.at)) if finding.at else pointer(where)
        return Issue(kind[0], finding.code, location, finding.message, kind[1])

    def _kept_issue_of(self, finding: Finding, where: Where, spec: Mapping[str, Any]) -> Issue:
        """_issue_of, the same Issue for the same finding of a row at the same place (Issues are frozen): the
        payloads of an export that fail for one cause share their issues."""
        key = (id(spec), finding, where)
        issue = self._issues.get(key)
        if issue is None:
            if len(self._issues) >= _ISSUES_KEPT:
                self._issues.clear()
            issue = self._issues[key] = self._issue_of(finding, where, spec)
        return issue


def _findings(rule: PlannedRule, ctx: DocumentContext, value: Any) -> list[Finding]:
    try:
        return list(rule.function(ctx, value, rule.spec))
    except Exception as error:  # a rule bug must not hide the rest of the report
        message = f"rule {rule.spec['rule']} failed: {type(error).__name__}: {error}"
        return [Finding("validator-internal-error", message)]


def _kept_findings(rule: PlannedRule, ctx: DocumentContext, value: Any) -> list[Finding]:
    """_findings, kept by the value's key (Findings are tuples: shared as they are)."""
    assert rule.key_of is not None
    explained = rule.explained
    try:
        key = rule.key_of(value)
        findings = explained.get(key)
    except TypeError:  # a key of unhashable parts (a list where a string belongs)
        return _findings(rule, ctx, value)
    if findings is None:
        findings = _findings(rule, ctx, value)
        if len(explained) < _EXPLANATIONS_KEPT:
            explained[key] = findings
    return findings


def pointer(tokens: tuple[str | int, ...]) -> str:
    """The JSON Pointer of `tokens`, as profiles.issues.pointer extends one token at a time."""
    escaped = [
        str(token) if isinstance(token, int) else token.replace("~", "~0").replace("/", "~1") for token in tokens
    ]
    return "/" + "/".join(escaped) if escaped else ""
