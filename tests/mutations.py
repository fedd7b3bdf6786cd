"""Single-element mutations of JSON documents, shared by the property tests."""

import json
from collections.abc import Iterator
from typing import Any

Path = tuple[str | int, ...]


def element_paths(node: Any, prefix: Path = ()) -> Iterator[Path]:
    """The path of `node` itself and of every element below it."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from element_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from element_paths(value, (*prefix, index))


def with_element_replaced(node: Any, path: Path, value: Any) -> Any:
    """A copy of `node` with the element at `path` replaced by `value`."""
    if not path:
        return value
    copy = json.loads(json.dumps(node))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy
