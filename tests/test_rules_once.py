"""Rules of the contract kept once in profiles/ and used by each consumer: which report an order chooses
(the validator's rule decides the service's 404)."""

import json
from types import SimpleNamespace

import pytest

from profiles import load_contract
from profiles.report_rules import unchosen_report
from profiles.validator import Validator
from reference_impl.report_orders import _check_report_id
from reference_impl.writes import Rejected

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
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
