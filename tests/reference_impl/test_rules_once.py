"""Rules of the contract kept once in profiles/ and used by each consumer: which report an order chooses
(the validator's rule decides the service's 404), the workflow codes of fixed-asset documents (the
terminology's value set, read by the service and the suite) and the report formats (the schema's, offered
by eris report)."""

import json
from types import SimpleNamespace

import pytest

import conformance.suite.support.writes as suite_writes
import reference_impl.writes as service_writes
from conformance.cli import build_parser
from profiles import load_contract
from profiles.contract import PROFILES_DIR, value_set_codes
from profiles.report_rules import unchosen_report
from profiles.validator import Validator
from reference_impl.report_orders import _check_report_id
from reference_impl.writes import Rejected
from schemas import load_schemas

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
WORKFLOW_VALUE_SET = "fixed-asset-document-workflow-attribute"
NO_REPORT_CHOSEN = {"report-id-missing", "report-id-unknown"}

ORDERS = {
    "known": {"reportId": "cost-calculation"},
    "no reportId": {},
    "only groupId": {"groupId": "monthly"},
    "unknown": {"reportId": "balance-sheet"},
    "reportId not a string": {"reportId": 7},
}


def _service_answer(order: dict, operations=CONTRACT.operations) -> tuple[int, str] | None:
    try:
        _check_report_id(SimpleNamespace(contract=SimpleNamespace(operations=operations)), order)
    except Rejected as rejected:
        return rejected.response.status, json.loads(rejected.response.text)["detail"]
    return None


@pytest.mark.parametrize("case", ORDERS)
def test_the_service_answers_404_exactly_where_the_validator_finds_no_report_chosen(case):
    order = ORDERS[case]
    unchosen = unchosen_report(order, CONTRACT.operations)
    found = {i.code for i in VALIDATOR.validate(order, resource_type="ReportOrder")} & NO_REPORT_CHOSEN
    assert found == ({unchosen.code} if unchosen else set())
    answer = _service_answer(order)
    assert answer == (None if unchosen is None else (404, f"report type not found: {unchosen.message}"))


def test_the_service_takes_the_known_reports_from_the_rule_not_from_a_list_of_its_own():
    assert _service_answer({"reportId": "only-this"}, {"only-this": {}}) is None
    status, detail = _service_answer({"reportId": "cost-calculation"}, {"only-this": {}})
    assert status == 404 and "cost-calculation" in detail and "only-this" in detail


def test_the_workflow_codes_are_the_terminology_value_set():
    resource = json.loads((PROFILES_DIR / "terminology" / f"{WORKFLOW_VALUE_SET}.json").read_text(encoding="utf-8"))
    codes = {c["code"] for include in resource["compose"]["include"] for c in include["concept"]}
    assert codes == {"workflow-status", "workflow-link", "workflow-system"}
    assert value_set_codes(WORKFLOW_VALUE_SET) == codes
    assert codes == service_writes.WORKFLOW_CODES and codes == suite_writes.WORKFLOW_CODES


def test_the_workflow_codes_are_those_the_binding_of_fixed_asset_documents_names():
    binding = next(
        r for r in CONTRACT.resources["FixedAssetDocument"].rules if r["path"] == "attachment.attribute.code"
    )
    (codes,) = CONTRACT.value_sets[binding["valueSet"]].systems.values()
    assert codes == value_set_codes(WORKFLOW_VALUE_SET)


def test_a_value_set_id_that_is_not_one_set_of_the_terminology_is_an_error():
    with pytest.raises(LookupError, match="0 value sets"):
        value_set_codes("no-such-value-set")


def test_eris_report_offers_the_formats_of_the_report_order_schema(capsys):
    formats = load_schemas()["ReportOrder"]["properties"]["format"]["enum"]
    order = ["report", "--company", "5260250274", "--year", "2024", "--month", "1", "--format"]
    assert [build_parser().parse_args([*order, f]).format for f in formats] == formats
    with pytest.raises(SystemExit):
        build_parser().parse_args([*order, "xml"])
    assert "invalid choice: 'xml'" in capsys.readouterr().err
