"""The seed's data files (reference_impl/seed/data/*.json): they use only the directives the builder knows, and
neither a directive nor a placeholder reaches a served resource."""

import json
from collections.abc import Iterator
from typing import Any

from profiles import load_contract
from reference_impl.seed import DATA_DIR, seed_resources

CONTRACT = load_contract()
DIRECTIVES = {"$ref", "$pdf", "$text"}


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            yield from _objects(item)


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, (dict, list)):
        for item in node.values() if isinstance(node, dict) else node:
            yield from _strings(item)


def test_the_data_files_use_only_the_builders_directives_each_alone():
    misused = [
        (path.name, sorted(item))
        for path in sorted(DATA_DIR.glob("*.json"))
        for item in _objects(json.loads(path.read_text(encoding="utf-8")))
        if any(key.startswith("$") for key in item) and (len(item) != 1 or not set(item) <= DIRECTIVES)
    ]
    assert misused == []


def test_no_directive_or_placeholder_reaches_a_served_resource():
    # the ValueSets are the contract's terminology files as they are, patterns and all
    served = [resource for resource in seed_resources(CONTRACT, large=3) if resource["resourceType"] != "ValueSet"]
    left = [key for resource in served for item in _objects(resource) for key in item if key.startswith("$")]
    assert left == []
    assert [text for resource in served for text in _strings(resource) if "{" in text or "}" in text] == []
