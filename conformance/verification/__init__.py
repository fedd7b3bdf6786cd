"""A certification anyone can re-check offline (`eris verify`): what a run records for it (digests, seeds, options,
the target description without secrets, the report keys), the replay of its traffic.har, and the comparison of
the recorded statuses with the re-derived ones."""

from conformance.verification.digests import contract_digest, file_digest, suite_code_digest
from conformance.verification.recording import (
    KEY_RECORD_VARIABLE,
    KEYS_FILE,
    RECORDING_FORMAT,
    STORE_READS_FILE,
    RunRecord,
    collected_keys,
    collected_store_reads,
    keys_recorded,
    options_of,
    redacted_description,
    seal,
    store_reads_recorded,
)

__all__ = [
    "KEYS_FILE",
    "KEY_RECORD_VARIABLE",
    "RECORDING_FORMAT",
    "STORE_READS_FILE",
    "RunRecord",
    "collected_keys",
    "collected_store_reads",
    "contract_digest",
    "file_digest",
    "keys_recorded",
    "options_of",
    "redacted_description",
    "seal",
    "store_reads_recorded",
    "suite_code_digest",
]
