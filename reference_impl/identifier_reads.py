"""Identifier reads of the common shape, answered by one indexed statement.

`GET <read>?identifier=<system|value>`, with at most a `count` and an `offset` beside it, is the read integrators
make most. The general path (reads.list_resources) serves it too, through the machinery every filter needs: the
query as lists, the required parameters, a condition per filter, a count choosing the condition's shape. Here the
one shape is recognised and handed to `Store.bodies_with_token`; anything else, a value the general path would
refuse included, is left to the general path, so that answers and errors stay its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from yarl import URL

from profiles.limits import LIMITS
from reference_impl.answer_cache import AnswerCache
from reference_impl.envelope import envelope_of
from reference_impl.search import FILTERS, MAX_COUNT, MAX_OFFSET, READ_PATHS, Operation, page_number
from reference_impl.store import Store

_IDENTIFIER = "identifier"


def identifier_read_types(operations: Mapping[tuple[str, str], Operation]) -> dict[str, str]:
    """The list reads this path answers, path -> item type: those whose `identifier` is an identifier filter and
    which require no parameter (a read requiring one answers 400 without it, which the general path writes)."""
    return {
        path: resource_type
        for path, resource_type in READ_PATHS.items()
        if FILTERS.get(resource_type, {}).get(_IDENTIFIER, ("",))[0] == "identifier"
        and not _requires_parameters(operations.get(("GET", path)))
    }


def _requires_parameters(operation: Operation | None) -> bool:
    return operation is not None and bool(operation.required)


class IdentifierReads:
    """The answer to an identifier read of the common shape, or None for any other read. Answers are kept in
    `cache` (when given) by the request's path and raw query, until the store's next write."""

    def __init__(self, store: Store, types: Mapping[str, str], cache: AnswerCache | None = None) -> None:
        self._store = store
        self._types = types
        self.cache = cache

    def answer(self, url: URL) -> bytes | None:
        """The envelope's bytes for the request's `url` (path and query). A kept answer is found by the query as
        sent, without parsing it; not as decoded: "a%26count=5" and "a&count=5" differ."""
        if self.cache is None:
            bodies = self.bodies(url.path, url.query)
            return None if bodies is None else envelope_of(bodies)
        key = f"{url.path}?{url.raw_query_string}"
        found = self.cache.get(key, self._store.writes)
        if found is None:
            bodies = self.bodies(url.path, url.query)
            if bodies is None:
                return None
            found = envelope_of(bodies)
            self.cache.put(key, found, self._store.writes)
        return found

    def bodies(self, path: str, query: Mapping[str, str]) -> list[str] | None:
        resource_type = self._types.get(path)
        if resource_type is None:
            return None
        identifier = count = offset = None
        for name, raw in query.items():  # each parameter once, no other: a repeated or other one is the general path's
            if name == _IDENTIFIER and identifier is None:
                identifier = raw
            elif name == "count" and count is None:
                count = raw
            elif name == "offset" and offset is None:
                offset = raw
            else:
                return None
        if identifier is None:
            return None
        try:
            page_count = page_number(count, LIMITS.count_default, MAX_COUNT)
            page_offset = page_number(offset, LIMITS.offset_default, MAX_OFFSET)
        except ValueError:
            return None  # the general path answers the 400
        system, bar, value = identifier.partition("|")
        if not bar:  # no system: the value in any system, as reference_impl.search reads it
            system, value = None, identifier
        store = self._store
        return store.bodies_with_token(resource_type, _IDENTIFIER, system, value, count=page_count, offset=page_offset)
