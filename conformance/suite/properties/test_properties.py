"""The property phase: requests nobody wrote by hand, generated from the contract (schemathesis from
schemas/openapi.json; hypothesis from the contract data), each answer judged by checks tied to requirements.

Budget and seed come from `eris certify --examples N --seed S`: the same seed sends the same requests.
"""

from __future__ import annotations

import zlib
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from conformance.catalogue.operations import OPERATION_REQUIREMENTS
from conformance.configuration.target import Target
from conformance.evidence.outcomes import Blocked
from conformance.generation.properties import GENERATION_ERRORS, REPORTS, Finding, judge, load_schema, send
from conformance.harness.plugin import (
    SUITE_ERROR_EXERCISE,
    TOKEN_EXERCISE,
    Api,
    Findings,
    PropertyBudget,
    SuiteCouldNotSend,
    not_exercised,
)
from conformance.suite.support.properties import (
    PARTIES,
    PartyLedger,
    contractor_writes,
    forced_seed,
    party_sequences,
    walk_links,
)
from conformance.suite.support.reads import openapi
from conformance.suite.support.writes import owner_nip_exercise, owner_nip_of
from profiles import Contract
from profiles.validator import Validator

OPERATIONS = [
    f"{method.upper()} {path}"
    for path, operations in openapi()["paths"].items()
    for method in operations
    if method in ("get", "post", "patch")
]


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 300 else text[:299] + "…"


def _seed_of(budget: PropertyBudget, name: str) -> int:
    """One seed per property, derived from the run's seed: a property's requests do not depend on which
    other properties ran before it (-k, --requirement, workers)."""
    return (budget.seed + zlib.crc32(name.encode())) % 2**32


def _settings(budget: PropertyBudget) -> settings:
    # generate only: nothing is shrunk (a finding is recorded, never raised), and no example database, so that
    # the seed alone decides what is sent (nor do the modules a process loaded:
    # conformance/generation/drawn_constants.py)
    return settings(
        max_examples=budget.examples,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


@pytest.mark.requirement(
    "ERIS-GEN-001", "ERIS-READ-002", "ERIS-ERR-300", "ERIS-ERR-307", "ERIS-AUTH-001", "ERIS-ERR-001"
)
@pytest.mark.parametrize(
    "label",
    [pytest.param(label, marks=pytest.mark.requirement(OPERATION_REQUIREMENTS[label])) for label in OPERATIONS],
)
def test_generated_requests_get_answers_of_the_contract(
    label: str, api: Api, target: Target, validator: Validator, findings: Findings, property_budget: PropertyBudget
) -> None:
    """Requests generated from the operation's OpenAPI description (positive data: every parameter and body
    of the described types): no 5xx; on POST /v1/reports only the status codes of the Errors part and the
    configured token never refused with 401; success answers of the described content type and schema; list
    reads within `count`, with disjoint pages, every item valid by the contract."""
    method, path = label.split(" ", 1)
    if label == REPORTS and not target.token:
        not_exercised(
            "the target description gives no token ([target] token): generated orders of POST /v1/reports would "
            "be refused before the order is read",
            exercise=TOKEN_EXERCISE,
        )
    operation = load_schema(target.base_url)[path][method]
    cases: list[Any] = []

    # drawn first, sent after: nothing is shrunk and nothing sent steers the drawing, so the seed alone still
    # decides the requests, and the requests of one operation go out at once (Api.concurrently)
    @seed(_seed_of(property_budget, label))
    @_settings(property_budget)
    @given(case=operation.as_strategy())
    def property_of(case: Any) -> None:
        cases.append(case)

    try:
        property_of()
    except GENERATION_ERRORS as error:
        not_exercised(
            f"hypothesis could not generate requests of {label}: {_one_line(error)}", exercise=SUITE_ERROR_EXERCISE
        )
    sent_count, unsent = 0, []
    for answered in api.concurrently([partial(_send_and_judge, api, case, target, validator) for case in cases]):
        if isinstance(answered, str):
            unsent.append(answered)
            continue
        sent_count += answered is not None
        for finding in answered or ():
            findings.add(finding.requirement, f"[{finding.check}] {finding.message}")
    findings.check()
    if not sent_count:
        why = f": {unsent[0]}" if unsent else ""
        not_exercised(f"no generated request of {label} could be sent{why}", exercise=SUITE_ERROR_EXERCISE)


def _send_and_judge(api: Api, case: Any, target: Target, validator: Validator) -> list[Finding] | str | None:
    """What one generated request met: its findings; the reason it could not be sent (the client's doing: it
    tells nothing of the target); None for an answer past the run's bounds (recorded against the operation's
    requirement)."""
    try:
        return list(judge(send(api, case, target.token), validator=validator, api=api))
    except SuiteCouldNotSend as error:
        return str(error)
    except Blocked:
        return None


@pytest.mark.requirement("ERIS-PARTY-012", "ERIS-PARTY-015", "ERIS-READ-003", "ERIS-GEN-001")
def test_contractor_sequences_follow_the_openapi_links(
    api: Api,
    target: Target,
    contract: Contract,
    validator: Validator,
    findings: Findings,
    property_budget: PropertyBudget,
) -> None:
    """Sequences through the OpenAPI links of /v1/parties: create a Contractor, read it by the identifier the
    answer assigned, update it by that identifier and its owner's NIP, read it again. Each drawn pair of
    Contractor bodies walks every link; then schemathesis' state machine mixes the same operations at random.
    Every answer is judged as above; a read that follows a write must find exactly that party, as written."""
    owner = owner_nip_of(api, contract)
    if owner is None:
        not_exercised(
            "the target shows no NIP that owns parties at GET /v1/parties: an update (owner required) cannot be "
            "addressed",
            exercise=owner_nip_exercise(contract),
        )
    schema = load_schema(target.base_url).include(path="/v1/parties")
    bodies = contractor_writes(contract, owner)
    ledger = PartyLedger(api, target, contract, validator, findings, OPERATION_REQUIREMENTS)

    @seed(_seed_of(property_budget, "links /v1/parties"))
    @settings(_settings(property_budget), max_examples=max(2, property_budget.examples // 4))
    @given(created=bodies, updated=bodies)
    def walk(created: dict[str, Any], updated: dict[str, Any]) -> None:
        start = schema[PARTIES]["POST"].Case(body=created)
        walk_links(schema, ledger, openapi(), start, {"updateParty": updated})

    @schema.hook("flatmap_body")
    def contractor_bodies(context: Any, body: Any) -> Any:
        return bodies

    try:
        walk()
        sequences = party_sequences(schema.as_state_machine(), ledger)
        with forced_seed(_seed_of(property_budget, "stateful /v1/parties")):
            sequences.run(
                settings=settings(
                    _settings(property_budget),
                    max_examples=max(1, property_budget.examples // 4),
                    stateful_step_count=8,
                    phases=[Phase.generate],
                )
            )
    except GENERATION_ERRORS as error:
        not_exercised(f"hypothesis could not generate the sequences: {_one_line(error)}", exercise=SUITE_ERROR_EXERCISE)
    ledger.verdict()
    findings.check()
    if not ledger.sent:
        why = f": {ledger.unsent[0]}" if ledger.unsent else ""
        not_exercised(f"no step of the sequences could be sent{why}", exercise=SUITE_ERROR_EXERCISE)
    if not ledger.reads_after.get("PATCH"):
        not_exercised(
            "no sequence reached a read of a party it updated",
            exercise="more examples of the property phase (--examples N, above the default)",
        )
