"""`eris requirements --trace`: every requirement leads to places that really carry it."""

from __future__ import annotations

import json

import pytest
from project_paths import ROOT

from conformance.catalogue.requirements import load_catalogue
from conformance.catalogue.trace import Tracer
from conformance.cli import main

CATALOGUE = load_catalogue()
TRACER = Tracer()


def _line(place) -> str:
    return (ROOT / place.path).read_text(encoding="utf-8").splitlines()[place.line - 1]


@pytest.mark.parametrize("requirement", CATALOGUE, ids=lambda r: r.id)
def test_every_requirement_traces_to_places_that_carry_it(requirement):
    found = TRACER.trace(requirement.id)

    assert f'id = "{requirement.id}"' in _line(found.contract)
    for place in [*found.data, *found.tests, *found.faults, *found.implementation, *found.rules]:
        line = _line(place)
        if "x-eris-requirements" in place.label:
            assert '"operationId"' in line, place
        elif place.label.startswith(("rule function", "fault ")) or " serves " in place.label:
            assert line.lstrip().startswith(("def ", "async def ", "@")), place
        elif "validates" in place.label:
            assert "validat" in line, place
        elif place.path.startswith("conformance/suite/"):
            assert place.label in line or line.lstrip().startswith("@"), place
        else:
            assert requirement.id in line, place
    if requirement.level == "MUST":
        assert found.tests, f"{requirement.id}: no test checks this MUST requirement"


def test_a_requirement_of_an_endpoint_leads_to_its_operation_its_handler_and_its_faults():
    found = TRACER.trace("ERIS-PARTY-015")

    assert any("PATCH /v1/parties (updateParty)" in place.label for place in found.data)
    assert [p.label for p in found.implementation if " serves " in p.label] == ["update_party serves PATCH /v1/parties"]
    assert {p.label.split(":")[0] for p in found.faults} >= {"fault patch-party-without-owner-accepted"}


def test_a_requirement_of_the_data_leads_to_its_rule_function_and_where_the_server_applies_it():
    found = TRACER.trace("ERIS-REPORT-008")

    assert any(p.path == "profiles/resources/ReportOrder.json" for p in found.data)
    assert [p.label for p in found.rules] == ["rule function 'report-parameters' (applied by ReportOrder.json)"]
    assert any(
        p.path == "reference_impl/report_orders.py" and "validates orders" in p.label for p in found.implementation
    )
    assert any(p.path.startswith("tests/cases/report-order/") for p in found.tests)


def test_the_command_prints_a_trace_as_text_or_json(capsys):
    assert main(["requirements", "--trace", "ERIS-CRYPT-003"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("ERIS-CRYPT-003 (MUST)") and "faults of the self-test:" in text

    assert main(["requirements", "--trace", "ERIS-CRYPT-003", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["id"] == "ERIS-CRYPT-003" and document["tests"] and document["faults"]


def test_an_unknown_id_is_exit_2_naming_close_ones(capsys):
    assert main(["requirements", "--trace", "ERIS-CRYPT-03"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean ERIS-CRYPT-003" in err
