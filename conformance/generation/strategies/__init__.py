"""Hypothesis strategies drawn from the contract data: valid payloads of every resource type,
profile and write of the contract, and single-fault mutations of them with the issue each must
give. Everything is read from `schemas/` and `profiles/` (a `Contract`), never copied here.

    contract = profiles.load_contract()
    valid_resource(contract, "Party", profile="Contractor")   # served resources
    valid_write(contract, "createParty")                        # write bodies, by operationId
    report_order(contract, public_key_pem=pem)                  # POST /v1/reports bodies
    payload_kinds(contract), valid_payload(contract, kind)      # every kind, for parametrized tests
    mutations(contract, kind)                                   # Mutation(payload, expected_code, location, ...)
"""

from conformance.generation.strategies.identifiers import registry_values
from conformance.generation.strategies.keys import (
    KEY_SIZES,
    certificate_pem,
    private_key_pem,
    public_key_pem,
    public_key_pems,
)
from conformance.generation.strategies.kinds import (
    PayloadKind,
    payload_kinds,
    sample_payloads,
    valid_payload,
    valid_resource,
)
from conformance.generation.strategies.mutations import FAULTS, Mutation, applicable_faults, mutations
from conformance.generation.strategies.reports import report_order, run_times, storage_types
from conformance.generation.strategies.writes import WriteOperation, valid_write, write_operation, write_operations

__all__ = [
    "FAULTS",
    "KEY_SIZES",
    "Mutation",
    "PayloadKind",
    "WriteOperation",
    "applicable_faults",
    "certificate_pem",
    "mutations",
    "payload_kinds",
    "private_key_pem",
    "public_key_pem",
    "public_key_pems",
    "registry_values",
    "report_order",
    "run_times",
    "sample_payloads",
    "storage_types",
    "valid_payload",
    "valid_resource",
    "valid_write",
    "write_operation",
    "write_operations",
]
