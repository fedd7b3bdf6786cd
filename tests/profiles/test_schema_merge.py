"""profiles.schema_merge: the merged clean gate gives the verdict of the gate as written, on every document."""

import jsonschema_rs
import pytest
from case_files import load_tests
from hypothesis import given
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced

from profiles.clean_gate import clean_gate
from profiles.contract import RESOURCE, WRITE
from profiles.schema_merge import _merged, merged
from profiles.validator import Validator

VALIDATOR = Validator()
SEEDS = [t.data for t in load_tests() if isinstance(t.data, dict) and isinstance(t.data.get("resourceType"), str)]


def _gates(resource_type):
    """The gate of the type as written and as merged, compiled."""
    rules = VALIDATOR.contract.resources[resource_type]
    structure = VALIDATOR.schemas.documents[rules.schema.removesuffix(".schema.json")]["$id"]
    written = clean_gate(VALIDATOR.contract, rules, RESOURCE, structure, VALIDATOR.kinds, merge=False)
    return tuple(
        jsonschema_rs.validator_for(schema, registry=VALIDATOR.schemas.registry)
        for schema in (written.schema, merged(written.schema))
    )


GATES = {
    name: _gates(name)
    for name in sorted({seed["resourceType"] for seed in SEEDS})
    if name in VALIDATOR.contract.resources
}
leaves = (
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "active", "contractor", "urn:oid:1"])
)
json_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["system", "code", "coding", "value", "profile", "x"]), children, max_size=3)
    ),
    max_leaves=10,
)


@pytest.mark.parametrize("document", SEEDS, ids=lambda d: d.get("id", d["resourceType"]))
def test_merged_gate_agrees_on_case_data(document):
    gates = GATES.get(document["resourceType"])
    if gates is not None:
        written, merged_gate = gates
        assert written.is_valid(document) == merged_gate.is_valid(document)


@given(data=st.data(), value=json_values)
def test_merged_gate_agrees_with_one_element_replaced(data, value):
    document = data.draw(st.sampled_from(SEEDS))
    gates = GATES.get(document["resourceType"])
    if gates is None:
        return
    path = data.draw(st.sampled_from(list(element_paths(document))[1:] or [()]))
    mutated = with_element_replaced(document, path, value)
    written, merged_gate = gates
    assert written.is_valid(mutated) == merged_gate.is_valid(mutated)


def test_merging_joins_shared_paths_and_drops_idle_type_guards():
    schema = {
        "allOf": [
            {"properties": {"a": {"type": "string"}}},
            {"if": {"type": "object"}, "then": {"required": ["a"], "properties": {"a": {"minLength": 1}}}},
            {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]},
        ]
    }
    assert merged(schema) == {
        "allOf": [
            {"properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 1}]}}, "required": ["a"]},
            {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]},
        ]
    }
    kept = {"if": {"type": "object"}, "then": {"required": ["a"], "minimum": 1}}  # minimum is not an object keyword
    assert merged(kept) == kept


def test_a_guard_of_several_types_is_kept():
    # the guard's type may be a list (JSON Schema allows it): no keyword set applies to more than one kind alone
    several = {"if": {"type": ["object", "null"]}, "then": {"required": ["a"]}}
    assert merged(several) == several


class _NothingProduced(dict):
    """A memo of merged() that never finds what it holds: every part walked again, as before the memo."""

    def get(self, key, default=None):
        return default


def _written_gates():
    """The gate of every resource type in each context where it has one, as written."""
    documents = VALIDATOR.schemas.documents
    for name, rules in sorted(VALIDATOR.contract.resources.items()):
        structure = documents[rules.schema.removesuffix(".schema.json")]["$id"] if rules.schema else ""
        for context in (RESOURCE, WRITE):
            written = clean_gate(VALIDATOR.contract, rules, context, structure, VALIDATOR.kinds, merge=False)
            yield pytest.param(written.schema, id=f"{name}-{context}")


@pytest.mark.parametrize("schema", list(_written_gates()))
def test_merging_takes_its_own_results_as_they_are_without_changing_the_gate(schema):
    once = merged(schema)
    assert once == _merged(schema, _NothingProduced())
    assert merged(once) == once  # what the memo relies on: a merged schema is its own merge
