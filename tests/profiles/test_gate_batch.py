"""The compiled loop of the clean gates (profiles/_gate_batch.c) refuses exactly the documents that passes_gate()
refuses, one at a time: on the case files, on them with one element replaced, and on what is no resource at all.

Where the module was not built (no C compiler) these tests are skipped saying so, unless ERIS_REQUIRE_COMPILED=1 (set by
.ci/run): then they fail, so that CI never passes on the Python loop alone."""

from __future__ import annotations

import pytest
from accelerators import compiled_or_skip
from case_files import load_tests
from hypothesis import given, settings
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced

from profiles.validator import Validator

compiled = compiled_or_skip("_gate_batch", "gate_refused maps passes_gate")

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
    {"resourceType": "ReportOrder"},  # a gate with functions: not in the table, asked through passes_gate
    {"resourceType": "Party", "id": "\ud800"},  # a lone surrogate: the pass raises ValueError, a refusal
    {"resourceType": "Party", "id": "x", "name": {"text": "x" * 10_000}},
]


def _python(documents: list[object]) -> list[int]:
    return VALIDATOR.gate_refused(documents, compiled=False)


def test_the_compiled_loop_refuses_what_passes_gate_refuses() -> None:
    documents = [*DOCUMENTS, *ODD, *DOCUMENTS]
    expected = [index for index, document in enumerate(documents) if not VALIDATOR.passes_gate(document)]
    assert 0 < len(expected) < len(documents)  # some pass and some are refused: neither answer passes vacuously
    assert _python(documents) == expected
    assert VALIDATOR.gate_refused(documents) == expected


def test_the_table_holds_the_gates_that_are_nothing_more() -> None:
    VALIDATOR.gate_refused([{"resourceType": "Party"}, {"resourceType": "ReportOrder"}])
    table = VALIDATOR._gate_table
    assert "Party" in table
    assert "ReportOrder" not in table  # its key and dates are checked by functions after the pass
    is_valid, holds = table["Party"]
    assert callable(is_valid) and callable(holds)


SEEDS = [document for document in DOCUMENTS if document.get("resourceType") != "ReportOrder"]
leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "5260250995", "urn:oid:1.2"])
json_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["system", "code", "value", "x"]), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=500)
@given(data=st.data(), value=json_values)
def test_both_loops_agree_on_documents_with_one_element_replaced(data: st.DataObject, value: object) -> None:
    documents = []
    for _ in range(data.draw(st.integers(1, 6), label="documents")):
        document = data.draw(st.sampled_from(SEEDS))
        path = data.draw(st.sampled_from(list(element_paths(document))[1:] or [()]))
        documents.append(with_element_replaced(document, path, value) if path else document)
    assert VALIDATOR.gate_refused(documents) == _python(documents)


def test_an_error_other_than_a_refusal_is_raised_not_taken_for_one() -> None:
    def broken(document: object) -> bool:
        raise TypeError("a bug in a gate")

    with pytest.raises(TypeError, match="a bug in a gate"):
        compiled.refused([{"resourceType": "T"}], {"T": (broken, None)}, VALIDATOR.passes_gate)
    with pytest.raises(TypeError, match="a bug in a gate"):
        compiled.refused([{"resourceType": "U"}], {}, broken)


def test_a_value_error_of_the_pass_is_a_refusal_and_holds_is_asked_only_after_a_pass() -> None:
    asked = []

    def raises(document: object) -> bool:
        raise ValueError("not checkable")

    def holds(document: object) -> bool:
        asked.append(document)
        return document.get("ok", False)

    table = {"A": (raises, holds), "B": (lambda document: True, holds), "C": (lambda document: False, holds)}
    documents = [{"resourceType": "A"}, {"resourceType": "B", "ok": True}, {"resourceType": "B"}, {"resourceType": "C"}]
    assert compiled.refused(documents, table, lambda document: True) == [0, 2, 3]
    assert asked == documents[1:3]
