"""A rule kind that says what of a value its explanation reads (RuleKind.explanation_key) is explained once per row and
key (profiles/rule_plans.py): two values with the same key must find the same, at every row of that kind in the
contract. Every value of a small set of members and systems is explained, so that keys repeat; and drawn values."""

from __future__ import annotations

from itertools import product
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from profiles.rules import DocumentContext
from profiles.validator import RESOURCE, Validator

VALIDATOR = Validator()
CONTRACT = VALIDATOR.contract
KEYED = {name: kind for name, kind in VALIDATOR.kinds.items() if kind.explanation_key is not None}
ROWS = [
    (kind, spec)
    for rules in [*(r.rules for r in CONTRACT.resources.values()), *(p.rules for p in CONTRACT.profiles.values())]
    for spec in rules
    if (kind := KEYED.get(spec["rule"])) is not None
]
SYSTEMS = [
    *sorted({ns.system for ns in CONTRACT.namespaces.values()})[:6],
    "urn:oid:1.2.616.1.113769.4.79.3",
    "urn:oid:1.2.616.1.113769.4.7.999999",
    "urn:oid:1.2.616.1.113769.4.x",
    "",
]
scalars = st.none() | st.booleans() | st.sampled_from([0, 1, 1.0, "x", "5260250995"]) | st.sampled_from(SYSTEMS)
identifiers = st.dictionaries(st.sampled_from(["system", "value", "use", "x"]), scalars, max_size=3)
values = (
    scalars
    | identifiers
    | st.dictionaries(st.sampled_from(["identifier", "type", "reference"]), scalars | identifiers, max_size=3)
    | st.lists(scalars, max_size=2)
)


def _findings(kind: Any, spec: Any, value: Any) -> list[Any]:
    ctx = DocumentContext(CONTRACT, RESOURCE, (), {"resourceType": "Party"})
    return list(kind.explain(ctx, value, spec))


def _every_value() -> list[Any]:
    systems = [*SYSTEMS, None, 1, True]
    identifiers = [
        {"system": system, **extra} for system, extra in product(systems, [{}, {"value": "5260250995"}, {"x": 1}])
    ]
    identifiers += [{}, {"value": "x"}]
    return [*systems, [], *identifiers, *({"identifier": identifier, "type": "Party"} for identifier in identifiers)]


def test_the_contract_has_rows_of_keyed_kinds() -> None:
    assert {"installation-identifier", "reference-key"} <= {spec["rule"] for _, spec in ROWS}


def test_every_value_of_one_key_finds_the_same() -> None:
    _same_findings_by_key(_every_value())


@given(st.lists(values, min_size=2, max_size=12))
def test_drawn_values_of_one_key_find_the_same(drawn: list[Any]) -> None:
    _same_findings_by_key(drawn)


def _same_findings_by_key(drawn: list[Any]) -> None:
    for kind, spec in ROWS:
        found: dict[Any, list[Any]] = {}
        for value in drawn:
            try:
                key = kind.explanation_key(value)
                hash(key)
            except TypeError:
                continue  # an unhashable key: that value is explained alone
            findings = _findings(kind, spec, value)
            assert found.setdefault(key, findings) == findings, (spec, key, value)
