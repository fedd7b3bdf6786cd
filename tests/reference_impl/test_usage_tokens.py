"""The reference's NamingSystem usage filter reads usage in any shape it may be stored in: a string, a Coding, or
an object whose string members name what the namespace is used for (the self-test's usage-as-objects variant)."""

from __future__ import annotations

from profiles import load_contract
from profiles.validator import Validator
from reference_impl.search import search_tokens

PROFILE = "https://erp.example.com/fhir/StructureDefinition/Contractor"


def test_usage_is_searchable_by_each_string_it_holds_and_a_codings_system_and_code() -> None:
    naming_system = {
        "resourceType": "NamingSystem",
        "id": "ns-x",
        "usage": ["Location", {"resourceType": "Party", "profile": PROFILE}, {"system": "urn:x", "code": "party"}],
    }
    tokens = {
        (system, value)
        for param, system, value in search_tokens(naming_system, Validator(load_contract()))
        if param == "usage"
    }
    assert tokens == {("", "Location"), ("", "Party"), ("", PROFILE), ("urn:x", "party")}
