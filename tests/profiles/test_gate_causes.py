"""A cause of refusal remembered by a compiled gate (profiles/compiled_gate.py) explains a document only when the
document fails exactly that cause: a document that fails it and more, fails another row, fails the structure or
recognition too, or fails nothing, is explained as if no cause were remembered (fast_path=False)."""

from __future__ import annotations

import pytest
from contractor_changes import UNNAMED_KEY, changed

from profiles.compiled_gate import Cause
from profiles.validator import Validator

CAUSED = changed(status="x")
"""One finding of a row of the gate's pass (binding-code-not-in-value-set): the cause the gate learns. (The rows
checked apart never make a cause: a document that fails only them is known without one.)"""
DOCUMENTS = {
    "the cause alone, again": changed(status="x"),
    "the cause and a key the configuration does not name (a row checked apart)": changed(
        status="x", system=UNNAMED_KEY
    ),
    "the cause and a NIP check digit": changed(status="x", nip="5260250275"),
    "the cause and no id (structure)": changed(status="x", id=None),
    "the cause and no category (recognition)": changed(status="x", category=None, meta=None),
    "the cause and an element not of the type": changed(status="x", extension=[{"url": "x"}]),
    "another code of the same binding": changed(status="y"),
    "a key the configuration does not name alone": changed(system=UNNAMED_KEY),
    "a NIP check digit alone": changed(nip="5260250275"),
    "nothing": changed(),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_remembered_cause_explains_only_what_it_causes(name: str) -> None:
    fast = Validator()
    explained = Validator(fast.contract, fast.schemas, fast_path=False)
    for _ in range(3):  # found by the search, then remembered
        assert [issue.code for issue in fast.explain(CAUSED)] == ["binding-code-not-in-value-set"]
    gate = fast._gates["Party", "resource", None]
    assert gate is not None and gate._parts is not None and gate._parts.causes, "no cause was remembered"
    document = DOCUMENTS[name]
    assert fast.explain(document) == explained.validate(document)
    assert fast.validate(document) == explained.validate(document)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_loop_that_refuses_most_documents_tries_their_causes_first(name: str) -> None:
    """After a call of gate_refusals that refused most of its documents, a document that has a remembered cause is
    refused by that cause's one check, and explained by it alike; any other goes through the gate as before."""
    fast = Validator()
    explained = Validator(fast.contract, fast.schemas, fast_path=False)
    for _ in range(3):
        fast.explain(CAUSED)
    assert [index for index, _ in fast.gate_refusals([CAUSED] * 8)] == list(range(8))  # most refused: causes first
    document = DOCUMENTS[name]
    refusals = fast.gate_refusals([document] * 8 + [DOCUMENTS["nothing"]] * 8)
    expected = explained.validate(document)
    assert [index for index, _ in refusals] == ([] if not expected else list(range(8)))
    by_cause = name in (
        "the cause alone, again",
        "the cause and a NIP check digit",
        "another code of the same binding",
    )
    for _, known in refusals:
        assert isinstance(known, Cause) is by_cause, known
        assert fast.explain(document, known=known) == expected
