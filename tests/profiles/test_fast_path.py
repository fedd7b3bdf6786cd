"""The fast path (rule rows compiled to JSON Schema) reports exactly what the rule functions report.

A compiled schema that accepted a document its rule refuses would hide an issue; one that refused
too much would only cost speed. Both are caught here: the two validators must agree issue for issue.
"""

import pytest
from case_files import load_tests
from hypothesis import given, settings
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced

from profiles.validator import RESOURCE, WRITE, Validator

FAST = Validator()
EXPLAINED = Validator(FAST.contract, FAST.schemas, fast_path=False)
CASE_TESTS = load_tests()


def _agree(document, **options):
    expected = EXPLAINED.validate(document, **options)
    assert FAST.validate(document, **options) == expected
    # eris validate's loop: the gate first, the refused payloads explained later without asking it again
    assert FAST.explain(document, **options) == expected
    assert not FAST.passes_gate(document, **options) or expected == []


@pytest.mark.parametrize("case_test", CASE_TESTS, ids=lambda case_test: case_test.id)
def test_fast_path_agrees_on_case_files(case_test):
    _agree(case_test.data, **case_test.options())


def test_fast_path_skips_the_rule_functions_for_a_valid_document(monkeypatch):
    calls = []
    document = next(t.data for t in CASE_TESTS if t.file == "party/contractor.json" and t.test["valid"])
    binding = FAST._fast(FAST.contract.resources["Party"], RESOURCE)
    assert binding.validator.is_valid(document)
    assert all(rule.spec["rule"] not in {"binding", "required"} for _, rules in binding.residual for rule in rules)
    monkeypatch.setattr(FAST.schemas, "iter_issues", lambda *args: calls.append(args) or iter(()))
    monkeypatch.setattr(FAST.schemas, "check", lambda *args: calls.append(args))
    assert FAST.validate(document) == []
    assert calls == []


leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "active", "contractor"])
json_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["system", "code", "coding", "value", "x"]), children, max_size=3)
    ),
    max_leaves=10,
)
SEEDS = [(t.data, t.options()) for t in CASE_TESTS if isinstance(t.data, dict)]


@settings(max_examples=3000)
@given(data=st.data(), value=json_values, context=st.sampled_from([RESOURCE, WRITE]))
def test_fast_path_agrees_on_case_data_with_one_element_replaced(data, value, context):
    document, options = data.draw(st.sampled_from(SEEDS))
    path = data.draw(st.sampled_from(list(element_paths(document))[1:] or [()]))
    mutated = with_element_replaced(document, path, value)
    _agree(mutated, **{**options, "context": context})
