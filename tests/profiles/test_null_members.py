"""A null for an element without a value: Java and .NET serialisers write `"comment": null` where another
implementation leaves the element out. The contract does not forbid it, so the validator reads such a null as an
absent element and reports it as an open choice (information; an error under --strict). A null stays an error
where the element is required, where it is an entry of a dictionary (a report parameter), an item of an array, or
an element the type does not have."""

from __future__ import annotations

import json

import pytest
from case_files import load_tests
from mutations import element_paths, with_element_replaced

from profiles.issues import Severity, pointer
from profiles.validator import WRITE, Validator

VALIDATOR = Validator()
STRICT = Validator(VALIDATOR.contract, VALIDATOR.schemas, strict=True)
EXPLAINED = Validator(VALIDATOR.contract, VALIDATOR.schemas, fast_path=False)
CASE_TESTS = load_tests()
VALID = [t for t in CASE_TESTS if t.test["valid"] and isinstance(t.data, dict)]


def _first_valid(file: str) -> dict:
    return next(t.data for t in VALID if t.file == file)


def _location(path: tuple) -> str:
    location = ""
    for token in path:
        location = pointer(location, token)
    return location


def _without(document: dict, path: tuple) -> dict:
    copy = json.loads(json.dumps(document))
    target = copy
    for step in path[:-1]:
        target = target[step]
    del target[path[-1]]
    return copy


def _errors(issues: list) -> list[tuple[str, str]]:
    return [(issue.code, issue.location) for issue in issues if issue.is_error]


def _open_choices(issues: list) -> list[str]:
    return [issue.location for issue in issues if issue.code == "open-choice"]


@pytest.mark.parametrize(
    ("file", "members"),
    [
        ("party/contractor.json", ["comment", "number", "partOf"]),
        ("document/hr-inbox.json", ["comment", "issueDate"]),
        ("access/capability.json", ["description", "validTo"]),
    ],
)
def test_a_null_optional_element_is_an_open_choice_not_an_error(file, members):
    document = {**_first_valid(file), **dict.fromkeys(members)}
    issues = VALIDATOR.validate(document)
    assert _errors(issues) == []
    assert sorted(_open_choices(issues)) == sorted(f"/{name}" for name in members)
    assert all(issue.severity is Severity.INFORMATION for issue in issues if issue.code == "open-choice")
    strict = STRICT.validate(document)
    assert sorted(_errors(strict)) == sorted(("open-choice", f"/{name}") for name in members)


def test_a_null_is_read_as_the_element_left_out():
    document = _first_valid("party/contractor.json")
    nulled = {**document, "comment": None, "partOf": None}
    left_out = {key: value for key, value in document.items() if key not in ("comment", "partOf")}
    issues = VALIDATOR.validate(nulled)
    assert [i for i in issues if i.code != "open-choice"] == VALIDATOR.validate(left_out)
    assert EXPLAINED.validate(nulled) == issues


def test_nulls_inside_elements_are_open_choices_where_they_are():
    document = _first_valid("party/contractor.json")
    identifier = {**document["identifier"][0], "type": None}
    nip = next(i for i in document["identifier"] if i["system"].endswith("/nip"))
    owner = {"type": "Party", "identifier": {"system": nip["system"], "value": nip["value"]}, "display": None}
    nulled = {**document, "identifier": [identifier, *document["identifier"][1:]], "owner": [owner]}
    issues = VALIDATOR.validate(nulled)
    assert _errors(issues) == []
    assert sorted(_open_choices(issues)) == ["/identifier/0/type", "/owner/0/display"]


def test_a_write_body_may_carry_nulls_too():
    body = _first_valid("party-write/contractor-by-category.json")
    issues = VALIDATOR.validate({**body, "comment": None, "number": None}, context=WRITE)
    assert _errors(issues) == []
    assert sorted(_open_choices(issues)) == ["/comment", "/number"]


@pytest.mark.parametrize("member", ["status", "operation", "date", "reference"])
def test_a_required_element_that_is_null_stays_an_error(member):
    notification = {**_first_valid("notification/valid.json"), member: None}
    issues = VALIDATOR.validate(notification)
    assert any(issue.is_error and issue.location == f"/{member}" for issue in issues), issues
    assert _open_choices(issues) == []


@pytest.mark.parametrize("member", ["format", "publicKeyPem", "runAt", "storage"])
def test_a_required_field_of_a_report_order_that_is_null_stays_an_error(member):
    order = {**_first_valid("report-order/valid-order.json"), member: None}
    issues = VALIDATOR.validate(order, resource_type="ReportOrder")
    assert any(issue.is_error and issue.location == f"/{member}" for issue in issues), issues
    assert _open_choices(issues) == []


def test_an_optional_field_of_a_report_order_may_be_null():
    order = {**_first_valid("report-order/valid-order.json"), "groupId": None, "compression": None}
    issues = VALIDATOR.validate(order, resource_type="ReportOrder")
    assert _errors(issues) == []
    assert sorted(_open_choices(issues)) == ["/compression", "/groupId"]


def test_a_null_where_a_rule_requires_the_element_is_an_error():
    body = _first_valid("document-write/warehouse-patch.json")
    issues = VALIDATOR.validate({**body, "status": None}, context=WRITE)
    assert ("required-element-missing", "") in _errors(issues)


def test_a_null_entry_of_a_dictionary_stays_an_error():
    order = _first_valid("report-order/valid-order.json")
    order = {**order, "parameters": {**order["parameters"], "Department": None}}
    issues = VALIDATOR.validate(order, resource_type="ReportOrder")
    assert ("schema-type", "/parameters/Department") in _errors(issues)
    assert _open_choices(issues) == []


def test_a_null_item_of_an_array_and_a_null_element_the_type_lacks_stay_errors():
    document = _first_valid("party/contractor.json")
    issues = VALIDATOR.validate({**document, "address": [None], "colour": None})
    assert ("schema-type", "/address/0") in _errors(issues)
    assert ("schema-unexpected-element", "/colour") in _errors(issues)
    assert _open_choices(issues) == []


def test_an_element_whose_schema_allows_null_is_untouched():
    envelope = {"items": [], "nextToken": None}
    assert VALIDATOR.validate(envelope, resource_type="ReadEnvelope") == []


def test_the_clean_gate_still_refuses_a_null_and_the_explanation_reads_it():
    document = {**_first_valid("party/contractor.json"), "comment": None}
    assert not VALIDATOR.passes_gate(document)
    assert _open_choices(VALIDATOR.explain(document)) == ["/comment"]
    assert VALIDATOR.gate_refused([document, _first_valid("party/contractor.json")]) == [0]


def _member_nulled(case_tests):
    """Each member of each object of one valid payload per case file, set to null."""
    seen = set()
    for case_test in case_tests:
        if case_test.file in seen:
            continue
        seen.add(case_test.file)
        for path in element_paths(case_test.data):
            if path and isinstance(path[-1], str):
                yield pytest.param(case_test, path, id=f"{case_test.file}:{_location(path)}")


@pytest.mark.parametrize(("case_test", "path"), list(_member_nulled(VALID)))
def test_any_member_set_to_null_is_read_as_absent_or_judged_as_it_is_never_a_rule_failure(case_test, path):
    options = case_test.options()
    document = with_element_replaced(case_test.data, path, None)
    issues = VALIDATOR.validate(document, **options)
    assert [i for i in issues if i.code == "validator-internal-error"] == []
    assert EXPLAINED.validate(document, **options) == issues
    where = _location(path)
    if where in _open_choices(issues):  # read as absent: what the payload without the member gets, and no more
        left_out = _without(case_test.data, path)
        assert [i for i in issues if i.location != where or i.code != "open-choice"] == VALIDATOR.validate(
            left_out, **options
        )


def test_as_read_leaves_out_the_members_whose_null_is_read_as_absent():
    document = _first_valid("party/contractor.json")
    nulled = {**document, "comment": None, "owner": None}
    assert VALIDATOR.as_read(nulled) == {k: v for k, v in document.items() if k not in ("comment", "owner")}
    assert VALIDATOR.as_read(document) is document
    required = {**_first_valid("notification/valid.json"), "date": None}
    assert VALIDATOR.as_read(required) == required
