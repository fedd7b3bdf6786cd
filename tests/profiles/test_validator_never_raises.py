"""The validator returns issues for any input, however malformed; it never raises.

Two kinds of input: arbitrary JSON values, and valid payloads (the example files, and a sample of
every kind conformance/generation/strategies draws) with one element replaced by an arbitrary JSON value (which
reaches the profile rules with shapes they do not expect).
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mutations import element_paths, with_element_replaced
from project_paths import DATA_DIR

from conformance.generation.strategies import sample_payloads
from profiles.validator import RESOURCE, WRITE, Validator

EXAMPLES = DATA_DIR / "examples"
VALIDATOR = Validator()
SEEDS = [
    (json.loads(path.read_text()), "ReportOrder" if "report-order" in path.parts else None)
    for path in sorted(EXAMPLES.rglob("*.json"))
] + [(payload, kind.resource_type) for kind, payload in sample_payloads(VALIDATOR.contract, per_kind=2)]
"""The example files, and valid payloads of every resource type, profile and write drawn from the contract data."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=25,
)
resource_types = st.sampled_from([None, *VALIDATOR.resource_types, "Invoice"])
contexts = st.sampled_from([RESOURCE, WRITE])


def _no_internal_errors(issues):
    assert all(issue.code != "validator-internal-error" for issue in issues), issues


@given(document=json_values, resource_type=resource_types, context=contexts)
def test_arbitrary_json_gives_issues_not_exceptions(document, resource_type, context):
    if isinstance(document, dict) and resource_type:
        document = {**document, "resourceType": resource_type}
    _no_internal_errors(VALIDATOR.validate(document, context=context))


@given(data=st.data(), value=json_values, context=contexts)
def test_valid_examples_with_one_element_replaced_give_issues_not_exceptions(data, value, context):
    document, resource_type = data.draw(st.sampled_from(SEEDS))
    path = data.draw(st.sampled_from(list(element_paths(document))))
    mutated = with_element_replaced(document, path, value)
    _no_internal_errors(VALIDATOR.validate(mutated, resource_type=resource_type, context=context))


def _nested(depth):
    node = "leaf"
    for _ in range(depth):
        node = {"x": [node]}
    return node


@pytest.mark.parametrize(
    "document",
    [
        {"resourceType": "Party", "id": "\ud800"},
        {"resourceType": "Notification", "status": {"coding": [{"system": "\udfff"}]}},
        {"resourceType": "Location", "id": "l", "deep": _nested(300)},
        {"resourceType": "Party", "id": "p", "deep": _nested(300)},
        {"resourceType": "FixedAsset", "id": "f", "deep": _nested(2000)},
    ],
    ids=["lone surrogate", "lone surrogate in a coding", "deep open element", "deep unknown element", "very deep"],
)
def test_payloads_the_schema_engine_refuses_give_issues(document):
    issues = VALIDATOR.validate(document)
    _no_internal_errors(issues)
    assert any(issue.is_error for issue in issues) or document["resourceType"] in {"Location", "FixedAsset"}
