"""The certification of one run: each requirement judged from the tests citing it, the verdict, and the
outputs (certification.json, report.html, traffic.har)."""

from conformance.certification.document import to_json
from conformance.certification.expected import ExpectedFailure, ExpectedFailures
from conformance.certification.judgement import (
    CONFORMANT,
    FORMAT,
    INCOMPLETE,
    NON_CONFORMANT,
    STATUSES,
    VERDICTS,
    Certification,
    RequirementResult,
    certify,
)
from conformance.certification.outputs import write_outputs

__all__ = [
    "CONFORMANT",
    "FORMAT",
    "INCOMPLETE",
    "NON_CONFORMANT",
    "STATUSES",
    "VERDICTS",
    "Certification",
    "ExpectedFailure",
    "ExpectedFailures",
    "RequirementResult",
    "certify",
    "to_json",
    "write_outputs",
]
