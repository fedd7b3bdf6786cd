"""What the read-side conformance tests share: the list reads of the contract (profiles.openapi_index), reading,
element access, and whether an error body names a parameter. Discovering the target's data is
conformance.suite.support.discovery; how each filter selects items, conformance.suite.support.filters.

Nothing here assumes the reference implementation's data: every value a test filters by is taken from
an item the target served, and a check the target gives no data for is skipped, not passed."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx

from profiles.openapi_index import list_reads as index_list_reads
from profiles.openapi_index import openapi_document, operations

UNDECLARED_VOCABULARY = "https://eris-conformance.invalid/undeclared-vocabulary"
"""A vocabulary no implementation declares (the .invalid top-level domain is reserved, RFC 2606)."""
NO_SUCH_VALUE = "eris-conformance-no-such-value"

Item = dict[str, Any]
Pair = tuple[str, str]


# -- the list reads of the contract ---------------------------------------------------------------


@dataclass(frozen=True)
class ListRead:
    """One GET operation of openapi.json that is paged with count and offset."""

    path: str
    resource_type: str
    """What each item is validated as: the envelope's item type (ValueSetSummary for the value-set listing)."""
    parameters: tuple[tuple[str, bool], ...]
    """Query parameters other than count and offset: (name, required)."""

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(name for name, required in self.parameters if required)

    @property
    def filters(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.parameters)

    def __str__(self) -> str:
        return self.path


def openapi() -> dict[str, Any]:
    return openapi_document()


@cache
def list_reads() -> tuple[ListRead, ...]:
    """Every list read of the contract, in the order of openapi.json."""
    return tuple(
        ListRead(
            read.path,
            read.item_type or "",
            tuple(
                (name, parameter.required) for name, parameter in read.query.items() if name not in ("count", "offset")
            ),
        )
        for read in index_list_reads()
    )


def list_read(path: str) -> ListRead:
    return next(read for read in list_reads() if read.path == path)


def operation_paths() -> list[str]:
    return list(dict.fromkeys(found.path for found in operations()))


# -- reading --------------------------------------------------------------------------------------


def ids(items: Iterable[Item]) -> list[Any]:
    return [item.get("id", item.get("url")) for item in items]


def assert_not_success(response: httpx.Response, what: str) -> None:
    assert not 200 <= response.status_code < 300, (
        f"{response.request.method} {response.request.url} answered {response.status_code}: {what}"
    )


# -- element access -------------------------------------------------------------------------------


def token(system: str, value: str) -> str:
    return f"{system}|{value}"


def as_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (a member served in another shape holds nothing)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def codings(element: Any) -> list[Pair]:
    """(system, code) of every coding of a CodeableConcept or a list of them, in the form served: one object where
    an array is expected, or the reverse, holds its codings still (the shape is its own requirement's finding)."""
    found = []
    for concept in as_list(element):
        for coding in as_list(concept.get("coding") if isinstance(concept, dict) else None):
            if (
                isinstance(coding, dict)
                and isinstance(coding.get("system"), str)
                and isinstance(coding.get("code"), str)
            ):
                found.append((coding["system"], coding["code"]))
    return found


def identifiers(item: Item) -> list[Pair]:
    return [
        (i["system"], i["value"])
        for i in as_list(item.get("identifier"))
        if isinstance(i, dict) and isinstance(i.get("system"), str) and isinstance(i.get("value"), str)
    ]


def reference_identifiers(element: Any) -> list[Pair]:
    """(system, value) of the identifier of a Reference or of each Reference of a list. Read in the form served:
    an identifier array where one Identifier is expected holds its identifiers still (the shape is the
    validator's finding, not a filter's)."""
    found = []
    for reference in as_list(element):
        for identifier in as_list(reference.get("identifier") if isinstance(reference, dict) else None):
            if (
                isinstance(identifier, dict)
                and isinstance(identifier.get("system"), str)
                and isinstance(identifier.get("value"), str)
            ):
                found.append((identifier["system"], identifier["value"]))
    return found


# -- error bodies ---------------------------------------------------------------------------------


def _texts(node: Any, *, top: bool = True) -> Iterator[str]:
    """The strings of a JSON body: values anywhere, keys below the top level. Top-level keys are left out
    because Problem Details has members named `type` and `status`, which would name those parameters
    for every body."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value, top=False)
    elif isinstance(node, dict):
        for key, value in node.items():
            if not top:
                yield key
            yield from _texts(value, top=False)


NAMING_MEMBERS = frozenset({"parameter", "param", "parameters", "params", "field", "fields", "expression"})
"""Members by which error bodies name the parameter at fault (a Problem Details extension, a FHIR
OperationOutcome's issue[].expression, common API error shapes); and RFC 9457's invalid-params[].name."""
INVALID_PARAMS = frozenset({"invalid-params", "invalidparams", "invalid_params"})


def _named(node: Any) -> Iterator[str]:
    """The strings held by members that name parameters (see NAMING_MEMBERS), anywhere in the body."""
    if isinstance(node, list):
        for value in node:
            yield from _named(value)
    elif isinstance(node, dict):
        for key, value in node.items():
            lowered = key.lower() if isinstance(key, str) else ""
            if lowered in NAMING_MEMBERS:
                yield from _texts(value, top=False)
            elif lowered in INVALID_PARAMS and isinstance(value, list):
                yield from (str(entry.get("name")) for entry in value if isinstance(entry, dict) and "name" in entry)
            else:
                yield from _named(value)


def names_parameter(response: httpx.Response, parameter: str, echoed: Iterable[str] = ()) -> bool:
    """Whether an error body names `parameter`, whatever its shape. A body with members that name parameters
    (`parameter`, `invalid-params[].name`, `issue[].expression`...) names the ones they hold, and no other:
    a word elsewhere is no naming then. Else its text must hold the name: the filter value the request sent
    (`echoed`) is removed first, so that a body that only repeats the value does not count, and the name must
    stand as a word of its own (`type` in `document-type` does not count)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    named = list(_named(body)) if body is not None else []
    if named:
        word = re.compile(rf"(?<![\w\-]){re.escape(parameter)}(?![\w\-])")
        return any(word.search(text) for text in named)
    texts = list(_texts(body)) if body is not None else [response.text]
    word = re.compile(rf"(?<![\w/.\-]){re.escape(parameter)}(?![\w/\-])")
    removed = sorted({e for e in echoed if e}, key=len, reverse=True)
    for text in texts:
        for value in removed:
            text = text.replace(value, " ")
        if word.search(text):
            return True
    return False


def identifier_pairs(item: dict[str, Any]) -> list[dict[str, Any]]:
    """{system, value} of each identifier of `item`, whatever else the identifier carries."""
    return [
        {"system": i.get("system"), "value": i.get("value")}
        for i in as_list(item.get("identifier"))
        if isinstance(i, dict)
    ]
