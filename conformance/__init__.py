"""The validator engine, the requirement catalogue and the command line of eris."""

from conformance.issues import Issue, Severity
from conformance.validator import RESOURCE, WRITE, Validator

__all__ = ["RESOURCE", "WRITE", "Issue", "Severity", "Validator"]
