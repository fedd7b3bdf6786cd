"""The clean gate, and the explanation of a payload it refuses by the parts of it that failed, report exactly what the
rule functions report when they explain every payload alone and every value of it (fast_path=False, the standard
rules given: no explanation kept by its key).

A gate that passed a payload with something to report would hide an issue, and so would an explanation that skipped a
rule row whose part failed; a gate that refused too much would only cost speed. Both halves of every rule kind
(profiles/rules.py) are held to the same answers here: on the case files, on them with one element replaced, and on
payloads of every resource type, profile and write drawn from the contract data, valid and with one fault each.
"""

import pytest
from case_files import load_tests
from hypothesis import given
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced

from conformance.generation.strategies import applicable_faults, mutations, payload_kinds, valid_payload
from profiles.rule_set import standard_rules
from profiles.validator import RESOURCE, WRITE, Validator

FAST = Validator()
EXPLAINED = Validator(FAST.contract, FAST.schemas, rules=standard_rules(), fast_path=False)
CASE_TESTS = load_tests()
KINDS = payload_kinds(FAST.contract)


def _agree(document, **options):
    expected = EXPLAINED.validate(document, **options)
    assert FAST.validate(document, **options) == expected
    # eris validate's loop: the gate first, the refused payloads explained later without asking it again
    assert FAST.explain(document, **options) == expected
    assert not FAST.passes_gate(document, **options) or expected == []
    # told what gate_refusals found of the refusal
    for _, known in FAST.gate_refusals([document], **options):
        assert FAST.explain(document, **options, known=known) == expected


@pytest.mark.parametrize("case_test", CASE_TESTS, ids=lambda case_test: case_test.id)
def test_fast_path_agrees_on_case_files(case_test):
    _agree(case_test.data, **case_test.options())


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


@given(data=st.data(), value=json_values, context=st.sampled_from([RESOURCE, WRITE]))
def test_fast_path_agrees_on_case_data_with_one_element_replaced(data, value, context):
    document, options = data.draw(st.sampled_from(SEEDS))
    path = data.draw(st.sampled_from(list(element_paths(document))[1:] or [()]))
    mutated = with_element_replaced(document, path, value)
    _agree(mutated, **{**options, "context": context})


@given(data=st.data(), forced=st.booleans())
def test_fast_path_agrees_on_generated_payloads_of_every_kind(data, forced):
    """Valid payloads of each kind, and with one fault; validated as drawn, or with the kind's profile forced."""
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    payloads = valid_payload(FAST.contract, kind)
    if applicable_faults(FAST.contract, kind):
        payloads |= mutations(FAST.contract, kind).map(lambda mutation: mutation.payload)
    payload = data.draw(payloads, label="payload")
    options = kind.validate_options()
    if forced and kind.profile is not None:
        options["profile"] = kind.profile
    _agree(payload, **options)
