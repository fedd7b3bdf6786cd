"""The schema files of `schemas/` as a graph the strategies can walk: `$ref` resolved, the
keywords of a node and of everything it refers to merged into one view.

Only the keywords our schema files use are understood; `KNOWN_KEYWORDS` lists them, and a test
fails when a schema file starts using another one, so the strategies never silently ignore a
constraint.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urljoin

from schemas import ID_BASE, load_schemas

KNOWN_KEYWORDS = frozenset(
    {
        # structure, each honoured by the generator (resources.py) and the walker below
        "$ref",
        "type",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "anyOf",
        "enum",
        "const",
        "pattern",
        "minimum",
        "maximum",
        "format",
        # annotations and bookkeeping: nothing to generate
        "$schema",
        "$id",
        "$defs",
        "title",
        "description",
        "default",
    }
)

Schema = Mapping[str, Any] | bool


@dataclass(frozen=True)
class Node:
    """A schema node and the $id its relative references resolve against."""

    schema: Schema
    base: str

    @property
    def keywords(self) -> Mapping[str, Any]:
        """The keywords of the node (a boolean schema has none)."""
        return self.schema if isinstance(self.schema, Mapping) else {}


@dataclass
class ObjectView:
    """Everything an object node says about its members, with its `$ref` chain merged in: the most
    specific declaration of a member wins (a resource's `resourceType` const over the base's string)."""

    properties: dict[str, Node] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    closed: bool = False
    additional: Node | None = None
    """The schema of members not declared (additionalProperties as a schema), if any."""


class SchemaIndex:
    """The schema documents by $id, with resolution of references between them."""

    def __init__(self, documents: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.documents = dict(documents if documents is not None else load_schemas())
        self._by_id = {doc["$id"]: doc for doc in self.documents.values()}

    def root(self, name: str) -> Node:
        """The node of the schema file `<name>.schema.json`."""
        document = self.documents[name]
        return Node(document, document["$id"])

    def target(self, node: Node) -> Node:
        """The node a `$ref` points at."""
        assert isinstance(node.schema, Mapping)
        url = urljoin(node.base, node.schema["$ref"])
        document_url, _, fragment = url.partition("#")
        target: Any = self._by_id[document_url]
        for token in [t for t in fragment.split("/") if t]:
            target = target[token]
        return Node(target, document_url)

    def type_name(self, node: Node) -> str | None:
        """The shared type a node is or refers to ("Identifier", "CodeableConcept"...), by file name."""
        schema = node.schema
        if not isinstance(schema, Mapping) or "$ref" not in schema:
            return None
        url = urljoin(node.base, schema["$ref"])
        if "#" in url and not url.endswith("#"):
            return None
        return url.removeprefix(ID_BASE).removesuffix(".schema.json")

    def chain(self, node: Node) -> Iterator[Node]:
        """The node and every node its `$ref` leads to, most specific first."""
        seen = set()
        while isinstance(node.schema, Mapping):
            key = (node.base, id(node.schema))
            if key in seen:
                return
            seen.add(key)
            yield node
            if "$ref" not in node.schema:
                return
            node = self.target(node)

    def keyword(self, node: Node, name: str) -> Any:
        """The first value of keyword `name` along the `$ref` chain (None when no node has it)."""
        for part in self.chain(node):
            assert isinstance(part.schema, Mapping)
            if name in part.schema:
                return part.schema[name]
        return None

    def object_view(self, node: Node) -> ObjectView:
        view = ObjectView()
        for part in reversed(list(self.chain(node))):
            schema = part.schema
            assert isinstance(schema, Mapping)
            for name, member in schema.get("properties", {}).items():
                view.properties[name] = Node(member, part.base)
            view.required |= set(schema.get("required", ()))
            if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
                view.closed = True
            additional = schema.get("additionalProperties")
            if isinstance(additional, Mapping):
                view.additional = Node(additional, part.base)
        return view

    def items(self, node: Node) -> Node | None:
        for part in self.chain(node):
            assert isinstance(part.schema, Mapping)
            if "items" in part.schema:
                return Node(part.schema["items"], part.base)
        return None

    def keywords_used(self) -> set[str]:
        """Every keyword that appears in a schema position of the files (for the completeness test); `x-`
        annotations are notes to readers, not keywords (JSON Schema ignores them, and so do the strategies)."""
        found: set[str] = set()

        def visit(schema: Any) -> None:
            if not isinstance(schema, Mapping):
                return
            found.update(keyword for keyword in schema if not keyword.startswith("x-"))
            for member in schema.get("properties", {}).values():
                visit(member)
            for member in schema.get("$defs", {}).values():
                visit(member)
            for branch in schema.get("anyOf", ()):
                visit(branch)
            for keyword in ("items", "additionalProperties", "unevaluatedProperties"):
                visit(schema.get(keyword))

        for document in self.documents.values():
            visit(document)
        return found


CLOSED_OBJECT = "closed object"
FORBIDDEN_MEMBER = "forbidden member"


@cache
def features(name: str) -> frozenset[str]:
    """The keywords reachable from schema file `name` (through members, items and references), plus
    CLOSED_OBJECT and FORBIDDEN_MEMBER when some object there is closed or forbids a member."""
    index = schema_index()
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()

    def visit(node: Node) -> None:
        if not isinstance(node.schema, Mapping) or (node.base, id(node.schema)) in seen:
            return
        seen.add((node.base, id(node.schema)))
        found.update(node.schema)
        if "$ref" in node.schema:
            visit(index.target(node))
        view = index.object_view(node) if "properties" in node.schema or "$ref" in node.schema else None
        if view is not None and view.closed:
            found.add(CLOSED_OBJECT)
        for member in node.schema.get("properties", {}).values():
            if member is False:
                found.add(FORBIDDEN_MEMBER)
            visit(Node(member, node.base))
        for keyword in ("items", "additionalProperties"):
            if keyword in node.schema:
                visit(Node(node.schema[keyword], node.base))
        for branch in node.schema.get("anyOf", ()):
            visit(Node(branch, node.base))

    visit(index.root(name))
    return frozenset(found)


@cache
def schema_index() -> SchemaIndex:
    """The index of the shipped schema files, read once."""
    return SchemaIndex()


def json_types(index: SchemaIndex, node: Node) -> frozenset[str] | None:
    """The JSON types a node allows by its `type` keyword, or None when it does not say."""
    declared = index.keyword(node, "type")
    if declared is None:
        return None
    return frozenset([declared] if isinstance(declared, str) else declared)


def walk(index: SchemaIndex, node: Node, value: Any, where: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple, Node]]:
    """Each location of `value` whose schema is known without choosing an `anyOf` branch, with that
    schema: the value itself, then its members and items, depth first."""
    yield where, node
    if isinstance(node.schema, bool) or index.keyword(node, "anyOf") is not None:
        return
    if isinstance(value, dict):
        view = index.object_view(node)
        for name, member in value.items():
            child = view.properties.get(name, view.additional)
            if child is not None and child.schema is not False:
                yield from walk(index, child, member, (*where, name))
    elif isinstance(value, list):
        items = index.items(node)
        if items is not None:
            for position, member in enumerate(value):
                yield from walk(index, items, member, (*where, position))
