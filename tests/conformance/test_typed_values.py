"""The filter values the suite derives from what a target serves, in the forms the contract leaves open
(conformance.suite.support.typed_values): every shape gives its values, and nothing is guessed where no form is
shown."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suite.support.typed_values import (
    contained_values,
    json_text,
    typed_attributes_with_types,
    usage_candidates,
    usage_strings,
)

PROFILE = "https://erp.example.com/fhir/StructureDefinition/Contractor"


@pytest.mark.parametrize(
    ("value", "text"),
    [("A", "A"), (42, "42"), (12.5, "12.5"), (True, "true"), (False, "false"), (None, None), ({"a": 1}, None)],
)
def test_a_value_is_sent_in_its_json_text_and_an_object_not_at_all(value: Any, text: str | None) -> None:
    assert json_text(value) == text


def test_attributes_of_every_type_but_objects_are_filter_values() -> None:
    item = {
        "attribute": [
            {"code": "building", "value": "A"},
            {"code": {"coding": [{"system": "s", "code": "area"}]}, "value": 1250.5},
            {"code": "heated", "value": False},
            {"code": "size", "value": {"width": 3}},
            {"code": "a|b", "value": 1},
        ]
    }
    assert typed_attributes_with_types(item) == [
        (("building", "A"), "string"),
        (("area", "1250.5"), "number"),
        (("heated", "false"), "boolean"),
    ]


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ("Party", ["Party"]),
        (["Party", "Location"], ["Party", "Location"]),
        ({"system": "urn:x", "code": "party"}, ["party", "urn:x|party"]),
        ({"coding": [{"system": "urn:x", "code": "party"}]}, ["party", "urn:x|party"]),
        ([{"resourceType": "Party", "profile": PROFILE}], ["Party", PROFILE]),
        (None, []),
        ([1, None], []),
    ],
)
def test_usage_gives_values_in_each_shape_it_comes_in(usage: Any, expected: list[str]) -> None:
    assert usage_candidates(usage) == expected


def test_the_texts_of_a_usage_say_what_it_is_about() -> None:
    usage = [{"resourceType": "Party", "profile": PROFILE}, {"system": "urn:x", "code": "party"}]
    assert usage_strings(usage) == {"Party", PROFILE, "urn:x", "party", "urn:x|party"}


def test_a_contained_resource_is_named_by_its_identifiers_and_its_id() -> None:
    item = {
        "contained": [
            {"resourceType": "Location", "id": "dock", "identifier": [{"system": "urn:oid:1.2", "value": "D-1"}]},
            {"resourceType": "BankAccount"},
            "not a resource",
        ]
    }
    assert contained_values(item) == ["urn:oid:1.2|D-1", "dock"]
