"""profiles.openapi_index: the one reading of schemas/openapi.json, and its consumers built from it."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.catalogue.requirements import load_catalogue
from conformance.suite.support import filters as read_support
from profiles.openapi_index import Filter, list_reads, operation, operations
from reference_impl import search
from schemas import load_schemas

SCHEMAS = load_schemas()


def _properties(name: str) -> set[str]:
    """Property names of a schema and of the schemas it refers to by $ref at its top."""
    schema = SCHEMAS[name]
    found = set(schema.get("properties", {}))
    if "$ref" in schema:
        found |= _properties(schema["$ref"].removesuffix(".schema.json"))
    return found


def test_every_query_parameter_of_every_list_read_says_what_it_filters():
    undescribed = [
        (read.path, p.name)
        for read in list_reads()
        for p in read.parameters
        if p.location == "query" and p.name not in ("count", "offset") and p.filter is None
    ]
    assert undescribed == []


@pytest.mark.parametrize("read", list_reads(), ids=lambda read: read.path)
def test_every_filtered_element_is_an_element_of_the_items(read):
    item_type = "ValueSet" if read.path == "/v1/value-sets" else read.item_type
    elements = _properties(item_type)
    for name, described in read.filters.items():
        if described.shown and described.kind not in ("profile",):
            assert described.element.split(".", 1)[0] in elements, (read.path, name, described)


def test_every_operation_carries_requirements_of_the_catalogue():
    known = {requirement.id for requirement in load_catalogue()}
    for found in operations():
        assert found.requirements, f"{found.method} {found.path} names no requirement"
        assert set(found.requirements) <= known, (found.operation_id, set(found.requirements) - known)


def test_the_reference_implementation_and_the_suite_filter_as_the_index_says():
    for read in list_reads():
        resource_type = "ValueSet" if read.path == "/v1/value-sets" else read.item_type
        for name, described in read.filters.items():
            if not described.shown:
                continue
            # The server may read a filter more widely (participant: a PartyRole, or the Party it plays).
            own_choice = search.OWN_CHOICES.get(resource_type, {}).get(name)
            assert search.FILTERS[resource_type][name] == (own_choice or (described.kind, described.element))
            if read.path != "/v1/value-sets":
                assert read_support.FILTERS[read.path][name].kind == described.kind


def test_parameters_whose_meaning_is_not_shown_are_never_judged_as_filters_of_the_contract():
    not_shown = {
        (read.path, name) for read in list_reads() for name, f in read.filters.items() if f.kind == "not-shown"
    }
    assert ("/v1/parties", "lastModified") in not_shown
    for path, name in not_shown:
        judged: Any = read_support.FILTERS.get(path, {}).get(name)
        assert judged is None or judged.kind == "subset", (path, name)
        assert judged is not None or (path, name) in read_support.FORM_NOT_SHOWN


def test_the_server_tables_come_from_the_index():
    assert search.READ_PATHS["/v1/parties"] == "Party"
    assert "/v1/value-sets" not in search.READ_PATHS
    operations_table = search.load_operations()
    assert operations_table[("PATCH", "/v1/parties")].required == operation("PATCH", "/v1/parties").required
    assert operations_table[("PATCH", "/v1/parties")].required == ["identifier", "owner"]


def test_an_unknown_operation_and_an_unknown_filter_kind_are_refused():
    with pytest.raises(KeyError, match="DELETE /v1/parties is not an operation"):
        operation("DELETE", "/v1/parties")
    assert Filter("not-shown").shown is False and Filter("coded", "type").shown is True
