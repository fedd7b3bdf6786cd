"""The compiled walk of registry identifiers (profiles/_registry_identifiers.c) answers as the Python walk of
profiles/clean_gate.py and the check-digit rules of profiles/identifier_formats.py, on generated numbers and documents.

Where the module was not built (no C compiler) these tests are skipped saying so, unless ERIS_REQUIRE_COMPILED=1 (set by
.ci/run): then they fail, so that CI never passes on the Python walk alone."""

from __future__ import annotations

import pytest
from accelerators import compiled_or_skip
from hypothesis import example, given, settings
from hypothesis import strategies as st

from profiles.clean_gate import RegistryIdentifiers
from profiles.contract import load_contract
from profiles.identifier_formats import is_nip, is_pesel, is_regon

compiled = compiled_or_skip("_registry_identifiers", "the Python walk is used")

CONTRACT = load_contract()
REGISTRY_SYSTEMS = sorted(ns.system for ns in CONTRACT.namespaces.values() if ns.format is not None)
PATHS = [("identifier",), ("owner", "identifier")]

digits = st.text(st.sampled_from("0123456789"), min_size=8, max_size=15)
number_like = (
    digits
    | st.text(st.sampled_from("0123456789-"), max_size=16)
    | st.text(st.sampled_from("0123456789٩²x "), max_size=14)  # Unicode digits, spaces, letters
    | st.text(max_size=12)
)


@pytest.mark.parametrize(
    ("format_number", "python_check"), [(compiled.NIP, is_nip), (compiled.REGON, is_regon), (compiled.PESEL, is_pesel)]
)
@settings(max_examples=600)
@given(value=number_like)
@example(value="5260250274")
@example(value="526-025-02-74")
@example(value="--5260250274--")
@example(value="123456785")
@example(value="12345678512347")
@example(value="44051401359")
@example(value="4405140135٩")
@example(value="0000000000")
def test_compiled_check_digits_answer_as_the_python_rules(format_number, python_check, value):
    assert compiled.value_holds(format_number, value) is python_check(value)


def test_compiled_check_digits_take_valid_numbers_and_refuse_each_one_digit_change():
    for format_number, python_check, valid in [
        (compiled.NIP, is_nip, "5260250274"),
        (compiled.REGON, is_regon, "12345678512347"),
        (compiled.PESEL, is_pesel, "44051401359"),
    ]:
        assert compiled.value_holds(format_number, valid)
        for at in range(len(valid)):
            for digit in "0123456789":
                changed = valid[:at] + digit + valid[at + 1 :]
                assert compiled.value_holds(format_number, changed) is python_check(changed), changed


systems = st.sampled_from([*REGISTRY_SYSTEMS, "urn:other", ""]) | st.integers() | st.none() | st.lists(st.text())
identifier = st.fixed_dictionaries(
    {}, optional={"system": systems, "value": number_like | st.integers() | st.none(), "type": st.text(max_size=3)}
)
identifiers = identifier | st.lists(identifier, max_size=3) | st.none() | st.text(max_size=3) | st.integers()
owner = st.fixed_dictionaries({}, optional={"identifier": identifiers, "reference": st.text(max_size=5)})
documents = st.fixed_dictionaries(
    {"resourceType": st.just("Party")},
    optional={
        "identifier": identifiers,
        "owner": owner | st.lists(owner | st.integers(), max_size=3) | st.text(max_size=3),
    },
)


@settings(max_examples=1500)
@given(document=documents, paths=st.sampled_from([PATHS, PATHS[:1], PATHS[1:], [("owner", "identifier", "x")]]))
def test_compiled_walk_answers_as_the_python_walk(document, paths):
    walks = [RegistryIdentifiers(CONTRACT, paths, compiled=flag) for flag in (True, False)]
    assert walks[0].holds not in (walks[0]._walk, walks[1].holds)  # the compiled walk is the one asked
    assert walks[0](document) is walks[1](document)


def test_a_registry_identifier_with_a_wrong_check_digit_anywhere_is_found():
    walk = RegistryIdentifiers(CONTRACT, PATHS)
    nip = next(s for s in REGISTRY_SYSTEMS if s.endswith("nip"))
    good, bad = {"system": nip, "value": "5260250274"}, {"system": nip, "value": "5260250275"}
    assert walk({"identifier": [good], "owner": {"identifier": good}})
    assert not walk({"identifier": [good, bad]})
    assert not walk({"identifier": bad})
    assert not walk({"owner": [{"identifier": good}, {"identifier": [good, bad]}]})
    assert walk({"owner": {"identifier": {"system": nip, "value": 5260250275}}})  # not a string: the schema's finding
