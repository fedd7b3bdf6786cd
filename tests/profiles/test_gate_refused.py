"""Validator.gate_refused, the loop of `eris validate` that calls the clean gates directly, refuses exactly the
documents that passes_gate() refuses, one at a time: on the case files, on them with one element replaced, and on what
is no resource at all."""

from __future__ import annotations

from case_files import load_tests
from hypothesis import given
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced

from profiles.validator import Validator

VALIDATOR = Validator()
DOCUMENTS = [t.data for t in load_tests() if isinstance(t.data, dict) and "resourceType" in t.data]


class _Text(str):
    pass


class _Mapping(dict):
    pass


ODD = [
    None,
    "Party",
    [],
    [{"resourceType": "Party"}],
    {},
    {"resourceType": None},
    {"resourceType": 7},
    {"resourceType": "NoSuchType", "id": "x"},
    {"resourceType": _Text("Party"), "id": "x"},  # not exactly a str: passes_gate asks no gate
    _Mapping(resourceType="Party", id="x"),  # not exactly a dict: the same
    {"resourceType": "ReportOrder"},  # a gate with checks after its pass (the key, the dates)
    {"resourceType": "Party", "id": "\ud800"},  # a lone surrogate: the pass raises ValueError, a refusal
    {"resourceType": "Party", "id": "x", "name": {"text": "x" * 10_000}},
]


def _one_at_a_time(documents: list[object]) -> list[int]:
    return [index for index, document in enumerate(documents) if not VALIDATOR.passes_gate(document)]


def test_the_loop_refuses_what_passes_gate_refuses() -> None:
    documents = [*DOCUMENTS, *ODD, *DOCUMENTS]
    expected = _one_at_a_time(documents)
    assert 0 < len(expected) < len(documents)  # some pass and some are refused: neither answer passes vacuously
    assert VALIDATOR.gate_refused(documents) == expected


def _pass_held(document: object) -> bool:
    """Whether the pass of the document's gate holds (its checks after the pass aside)."""
    assert isinstance(document, dict)
    gate = VALIDATOR._gate(document["resourceType"], "resource", None)
    assert gate is not None
    return bool(gate.is_valid(document))


def test_the_loop_says_whose_pass_held() -> None:
    """gate_refusals marks a refused document whose pass held (its checks after the pass refused it: a NIP's check
    digit), so that its explanation asks the pass nothing again."""
    documents = [*DOCUMENTS, *ODD]
    refusals = VALIDATOR.gate_refusals(documents)
    assert [index for index, _ in refusals] == VALIDATOR.gate_refused(documents)
    known = [found for _, found in refusals]
    assert True in known and False in known  # both kinds of refusal are among them
    for index, found in refusals:
        if found is True:
            assert _pass_held(documents[index])


SEEDS = DOCUMENTS
leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "5260250995", "urn:oid:1.2"])
json_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["system", "code", "value", "x"]), children, max_size=3)
    ),
    max_leaves=8,
)


@given(data=st.data(), value=json_values)
def test_both_loops_agree_on_documents_with_one_element_replaced(data: st.DataObject, value: object) -> None:
    documents = []
    for _ in range(data.draw(st.integers(1, 6), label="documents")):
        document = data.draw(st.sampled_from(SEEDS))
        path = data.draw(st.sampled_from(list(element_paths(document))[1:] or [()]))
        documents.append(with_element_replaced(document, path, value) if path else document)
    assert VALIDATOR.gate_refused(documents) == _one_at_a_time(documents)
