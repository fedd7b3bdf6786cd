"""The clauses of the catalogue's requirements a request of the suite exercises, and their record
(conformance.harness.plugin.exercised): a requirement passes only when each of its clauses was sent with the target's
own data by a test that held."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from conformance.catalogue.requirements import load_catalogue
from conformance.harness.plugin import clause_not_exercised, exercised
from profiles import Contract

__all__ = [
    "PARTY_NAMESPACES",
    "PESEL_CLAUSE",
    "clause_named",
    "leave_parameter",
    "placeholders_by_system",
    "record_parameter",
    "registry_clauses",
]


@cache
def _clauses() -> dict[str, tuple[str, ...]]:
    return {requirement.id: requirement.clauses for requirement in load_catalogue()}


def clause_named(requirement_id: str, name: str) -> str | None:
    """The clause of `requirement_id` that names the parameter `name` (as `name`, `name[]` or `name (...)`)."""
    for clause in _clauses().get(requirement_id, ()):
        if clause in (name, f"{name}[]") or clause.startswith(f"{name} ("):
            return clause
    return None


def record_parameter(requirement_ids: Iterable[str], parameter: str, *, value: str, request: str) -> None:
    """`parameter` sent with `value` in `request`: the clause naming it exercised, for each requirement listing it."""
    for requirement_id in requirement_ids:
        if (clause := clause_named(requirement_id, parameter)) is not None:
            exercised(requirement_id, clause, value=value, request=request)


def leave_parameter(requirement_ids: Iterable[str], parameter: str, reason: str, *, exercise: str) -> None:
    """`parameter` could not be sent: why, and what would send it, for each requirement listing it."""
    for requirement_id in requirement_ids:
        if (clause := clause_named(requirement_id, parameter)) is not None:
            clause_not_exercised(requirement_id, clause, reason, exercise=exercise)


PARTY_NAMESPACES = "ERIS-PARTY-008"
PESEL_CLAUSE = "{pesel_system} (PESEL, Employee)"
_REGISTRY_CLAUSES = {
    "nip_system": "{nip_system} (NIP)",
    "regon_system": "{regon_system} (REGON)",
    "eu_vat_system": "{eu_vat_system} (EU VAT number)",
    "pesel_system": PESEL_CLAUSE,
}
"""The clauses of ERIS-PARTY-008 ("Identifier namespaces {nip_system}, {regon_system}, {eu_vat_system} (NIP, REGON,
EU VAT number) and {pesel_system} (PESEL, Employee)") by the placeholder of the installation naming each system."""


def placeholders_by_system(contract: Contract) -> dict[str, str]:
    """The installation's system of each registry -> the placeholder naming it (nip_system, ...)."""
    return {contract.installation.values[name]: name for name in _REGISTRY_CLAUSES}


def registry_clauses(contract: Contract) -> dict[str, str]:
    """The installation's system of each registry -> the clause of ERIS-PARTY-008 naming it."""
    return {contract.installation.values[name]: clause for name, clause in _REGISTRY_CLAUSES.items()}
