"""What the validator says of a payload as a whole: whose requirement a structure issue is, why a payload cannot be
checked, what kind of JSON value stands where a resource belongs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from profiles.contract import ResourceRules
from profiles.issues import Issue

__all__ = ["by_element", "json_kind", "not_checkable"]


def by_element(issues: Iterable[Issue], rules: ResourceRules) -> Iterator[Issue]:
    """Structure issues inside an element with a requirement of its own (attribute[], owner) are that
    requirement's, not the resource type's."""
    for issue in issues:
        element = issue.location.split("/")[1] if issue.location.count("/") >= 1 else ""
        own = rules.element_requirements.get(element.replace("~1", "/").replace("~0", "~"))
        yield issue if own is None or issue.requirement != rules.requirement else replace(issue, requirement=own)


def not_checkable(error: Exception) -> str:
    if isinstance(error, UnicodeError):
        return "the payload holds a string that is not valid Unicode (a lone surrogate escape such as \\ud800)"
    return f"the payload cannot be checked: {error}"


def json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__
