"""Dotted element paths ("attachment.attribute.code"), walked as the rule engine and the search index walk them."""

from __future__ import annotations

from typing import Any

Where = tuple[str | int, ...]


def values_at(document: Any, tokens: tuple[str, ...]) -> list[tuple[Any, Where]]:
    """The values at a dotted path, arrays expanded one level at each step, each with its path."""
    if len(tokens) == 1 and isinstance(document, dict):  # most paths: one element of the resource
        token = tokens[0]
        if token not in document:
            return []
        child = document[token]
        if isinstance(child, list):
            return [(item, (token, index)) for index, item in enumerate(child)]
        return [(child, (token,))]
    found: list[tuple[Any, Where]] = [(document, ())]
    for token in tokens:
        deeper: list[tuple[Any, Where]] = []
        for node, where in found:
            if isinstance(node, dict) and token in node:
                child = node[token]
                if isinstance(child, list):
                    deeper.extend((item, (*where, token, index)) for index, item in enumerate(child))
                else:
                    deeper.append((child, (*where, token)))
        if not deeper:
            return deeper
        found = deeper
    return found


def split_path(path: str) -> tuple[str, ...]:
    return tuple(path.split(".")) if path else ()


def without_members(document: Any, paths: list[Where]) -> Any:
    """A copy of `document` without the object members at `paths`; only the objects and arrays on the way to them
    are copied, the rest is shared."""
    copy: Any = dict(document) if isinstance(document, dict) else list(document)
    deeper: dict[str | int, list[Where]] = {}
    for path in paths:
        if len(path) == 1:
            copy.pop(path[0], None)
        else:
            deeper.setdefault(path[0], []).append(path[1:])
    for token, rest in deeper.items():
        copy[token] = without_members(copy[token], rest)
    return copy
