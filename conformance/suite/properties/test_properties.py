"""The property phase: requests nobody wrote by hand, generated from the contract (schemathesis from
schemas/openapi.json; hypothesis from the contract data), each answer judged by checks tied to requirements.

Budget and seed come from `eris certify --examples N --seed S`: the same seed sends the same requests.
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from conformance.properties import REPORTS, judge, load_schema, send
from conformance.suite.support.properties import (
    PARTIES,
    PartyLedger,
    contractor_writes,
    forced_seed,
    party_sequences,
    walk_links,
)
from conformance.suite.support.reads import list_reads, openapi
from conformance.suite.support.writes import owner_nip_of

# What each operation answers for: a failure of its answers (a 5xx, a body that is not the contract's) counts
# against this requirement; the checks of envelope, content type and status codes have their own.
OPERATION_REQUIREMENTS = {
    "GET /v1/parties": "ERIS-READ-003",
    "POST /v1/parties": "ERIS-PARTY-012",
    "PATCH /v1/parties": "ERIS-PARTY-015",
    "GET /v1/party-roles": "ERIS-FILTER-007",
    "GET /v1/party-relationships": "ERIS-FILTER-008",
    "GET /v1/locations": "ERIS-LOC-002",
    "GET /v1/value-sets": "ERIS-VS-004",
    "GET /v1/naming-systems": "ERIS-NS-001",
    "GET /v1/capabilities": "ERIS-ACCESS-003",
    "GET /v1/grant-assignments": "ERIS-ACCESS-004",
    "GET /v1/fixed-assets": "ERIS-ASSET-004",
    "GET /v1/asset-components": "ERIS-ASSET-004",
    "GET /v1/fixed-asset-allocations": "ERIS-ASSET-007",
    "GET /v1/cost-centers": "ERIS-ASSET-004",
    "GET /v1/fixed-asset-documents": "ERIS-ASSET-010",
    "POST /v1/fixed-asset-documents": "ERIS-ASSET-013",
    "PATCH /v1/fixed-asset-documents": "ERIS-ASSET-012",
    "GET /v1/fixed-asset-documents/$document-content": "ERIS-ASSET-011",
    "GET /v1/document-references": "ERIS-DOC-004",
    "POST /v1/document-references": "ERIS-DOC-005",
    "PATCH /v1/document-references": "ERIS-DOC-006",
    REPORTS: "ERIS-ERR-001",
}
ITEM_TYPES = {f"GET {read.path}": read.resource_type for read in list_reads()}
OPERATIONS = [
    f"{method.upper()} {path}"
    for path, operations in openapi()["paths"].items()
    for method in operations
    if method in ("get", "post", "patch")
]


def _seed_of(budget: Any, name: str) -> int:
    """One seed per property, derived from the run's seed: a property's requests do not depend on which
    other properties ran before it (-k, --requirement, workers)."""
    return (budget.seed + zlib.crc32(name.encode())) % 2**32


def _settings(budget: Any) -> settings:
    # generate only: nothing is shrunk (a finding is recorded, never raised), and no example database, so that
    # the seed alone decides what is sent
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
    label: str, api: Any, target: Any, validator: Any, findings: Any, property_budget: Any
) -> None:
    """Requests generated from the operation's OpenAPI description (positive data: every parameter and body
    of the described types): no 5xx; on POST /v1/reports only the status codes of the Errors part and the
    configured token never refused with 401; success answers of the described content type and schema; list
    reads within `count`, with disjoint pages, every item valid by the contract."""
    method, path = label.split(" ", 1)
    operation = load_schema(target.base_url)[path][method]
    sent_count = [0]

    @seed(_seed_of(property_budget, label))
    @_settings(property_budget)
    @given(case=operation.as_strategy())
    def property_of(case: Any) -> None:
        sent = send(api, case, target.token)
        sent_count[0] += 1
        for finding in judge(
            sent,
            operation_requirement=OPERATION_REQUIREMENTS[label],
            item_type=ITEM_TYPES.get(label),
            validator=validator,
            api=api,
        ):
            findings.add(finding.requirement, f"[{finding.check}] {finding.message}")

    property_of()
    assert sent_count[0] > 0, f"no request was generated for {label}"
    findings.check()


@pytest.mark.requirement("ERIS-PARTY-012", "ERIS-PARTY-015", "ERIS-READ-003", "ERIS-GEN-001")
def test_contractor_sequences_follow_the_openapi_links(
    api: Any, target: Any, contract: Any, validator: Any, findings: Any, property_budget: Any
) -> None:
    """Sequences through the OpenAPI links of /v1/parties: create a Contractor, read it by the identifier the
    answer assigned, update it by that identifier and its owner's NIP, read it again. Each drawn pair of
    Contractor bodies walks every link; then schemathesis' state machine mixes the same operations at random.
    Every answer is judged as above; a read that follows a write must find exactly that party, as written."""
    owner = owner_nip_of(api, contract)
    if owner is None:
        pytest.skip("the target shows no NIP that owns parties: an update (owner required) cannot be addressed")
    schema = load_schema(target.base_url).include(path="/v1/parties")
    bodies = contractor_writes(contract, owner)
    ledger = PartyLedger(api, target, contract, validator, findings, OPERATION_REQUIREMENTS)

    @seed(_seed_of(property_budget, "links /v1/parties"))
    @settings(_settings(property_budget), max_examples=max(2, property_budget.examples // 4))
    @given(created=bodies, updated=bodies)
    def walk(created: dict[str, Any], updated: dict[str, Any]) -> None:
        start = schema[PARTIES]["POST"].Case(body=created)
        walk_links(schema, ledger, openapi(), start, {"updateParty": updated})

    walk()

    @schema.hook("flatmap_body")
    def contractor_bodies(context: Any, body: Any) -> Any:
        return bodies

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
    ledger.verdict()
    findings.check()
    if not ledger.reads_after.get("PATCH"):
        pytest.skip("no sequence reached a read of a party it updated")
