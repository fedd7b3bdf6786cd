"""The rows a clean gate checks apart, after its pass (profiles/clean_gate.py, RuleKind.checked_apart): a document
that fails only them is refused as APART_REFUSED by the loop of `eris validate`, and its explanation, which asks those
rows one by one (the last of them only when the others hold), reports exactly what the rule functions report
(fast_path=False). A document that fails its pass too is refused by the pass, as before."""

from __future__ import annotations

import pytest
from contractor_changes import CONTRACTOR, FOREIGN, UNNAMED_KEY, changed

from profiles import load_installation
from profiles.compiled_gate import APART_REFUSED, APART_SETS_TRIED
from profiles.validator import Validator

FAST = Validator()
EXPLAINED = Validator(FAST.contract, FAST.schemas, fast_path=False)
PESEL = {"system": load_installation().placeholders()["pesel_system"], "value": "44051401359"}


APART_ONLY = {
    "a key the configuration does not name": changed(system=UNNAMED_KEY),
    "another installation's namespace": changed(system=FOREIGN),
    "an owner by PESEL": changed(owner=PESEL),
    "an owner in another installation": changed(owner={"system": FOREIGN, "value": "1"}),
    "partOf by PESEL (the last row checked apart)": changed(partOf=PESEL),
    "a foreign namespace and an owner by PESEL": changed(system=FOREIGN, owner=PESEL),
    "an owner and partOf by PESEL (the last row and one before it)": changed(owner=PESEL, partOf=PESEL),
    "every row checked apart": changed(system=UNNAMED_KEY, owner=PESEL, partOf={"system": FOREIGN, "value": "1"}),
    "an owner by PESEL and a NIP check digit": changed(owner=PESEL, nip="5260250275"),
}
THE_PASS_TOO = {
    "an owner by PESEL and a status out of its value set": changed(owner=PESEL, status="x"),
    "a foreign namespace and an element not of the type": changed(system=FOREIGN, extension=[{"url": "x"}]),
}


@pytest.mark.parametrize("name", sorted(APART_ONLY))
def test_a_document_that_fails_only_rows_checked_apart_is_refused_apart(name: str) -> None:
    document = APART_ONLY[name]
    expected = EXPLAINED.validate(document)
    assert expected, "the document fails nothing: it tests nothing"
    assert FAST.gate_refusals([document]) == [(0, APART_REFUSED)]
    assert FAST.explain(document, known=APART_REFUSED) == expected
    assert FAST.validate(document) == expected


def test_the_sets_found_last_explain_only_the_documents_that_fail_exactly_them() -> None:
    """The sets of rows apart that documents failed are tried first: each document, after others that failed other
    sets, some of them part of its own, is explained as alone."""
    fast = Validator(FAST.contract, FAST.schemas)
    names = sorted(APART_ONLY)
    for order in (names, names[::-1], names[::2] + names[1::2], names):
        for name in order:
            document = APART_ONLY[name]
            assert fast.explain(document, known=APART_REFUSED) == EXPLAINED.validate(document), name
    gate = fast._gates["Party", "resource", None]
    assert gate is not None and gate._parts is not None and len(gate._parts._apart_tried) == APART_SETS_TRIED


@pytest.mark.parametrize("name", sorted(THE_PASS_TOO))
def test_a_document_that_fails_the_pass_too_is_refused_by_the_pass(name: str) -> None:
    document = THE_PASS_TOO[name]
    expected = EXPLAINED.validate(document)
    assert FAST.gate_refusals([document]) == [(0, False)]
    assert FAST.explain(document, known=False) == expected
    assert FAST.validate(document) == expected


def test_a_clean_document_passes_the_rows_checked_apart() -> None:
    assert EXPLAINED.validate(CONTRACTOR) == []
    assert FAST.gate_refusals([CONTRACTOR]) == []


def test_the_gates_check_their_rows_of_those_kinds_apart() -> None:
    """Every row of a kind checked apart is out of the pass, in every gate of every resource type."""
    for resource_type in FAST.resource_types:
        gate = FAST.clean_gate(resource_type)
        if gate is None:
            continue
        apart = {index for index, (spec, _) in enumerate(gate.rows) if FAST.kinds[spec["rule"]].checked_apart}
        assert set(gate.apart) == apart, resource_type
