"""Where a Party's registry numbers live: the PESEL of an Employee in {pesel_system}.

The contract names the namespace ("Identifier namespaces of Party: {pesel_system} | PESEL (Employee)") but not the
PESEL's form, so a value in {pesel_system} is taken as it is (real HR registers hold PESELs with wrong check digits).
A PESEL is seen outside it only where the target says so itself (Identifier.type NNPOL) or the values of a system
show it, as `eris init` reads a target's registries (conformance/discovery/registry_systems.py), a few wrong check
digits allowed; a target that also keeps the PESEL in a system of its own, beside {pesel_system}, breaks nothing."""

from __future__ import annotations

import pytest

from conformance.evidence.outcomes import data_selected_by
from conformance.harness.plugin import Api, Findings, clause_not_exercised, exercised, not_exercised
from conformance.suite.support.clauses import PESEL_CLAUSE
from conformance.suite.support.write_choices import Pesel, pesels_of_employees
from conformance.suite.support.writes import token
from profiles import Contract

PARTIES = "/v1/parties"


@pytest.mark.requirement("ERIS-PARTY-008")
def test_an_employees_pesel_is_in_the_pesel_namespace(api: Api, contract: Contract, findings: Findings) -> None:
    """ "Identifier namespaces of Party ... {pesel_system} | PESEL (Employee)": an Employee whose PESEL the target
    serves (typed as one, or in a system whose values are PESELs of Employees) carries it in {pesel_system}."""
    source = f"GET {PARTIES}"
    parties = [
        (party, tuple(profile.name for profile in api.validator.recognised_profiles(party, "Party")))
        for party in api.read_all(PARTIES)
        if isinstance(party, dict)
    ]
    pesels = pesels_of_employees(contract, parties)
    assumed = contract.installation.assumed
    exercise = data_selected_by(assumed, "pesel_system", PARTIES, "an Employee with a PESEL")
    if not pesels:
        reason = f"GET {PARTIES} served no Employee with a PESEL, in {{pesel_system}} or recognisably elsewhere"
        clause_not_exercised("ERIS-PARTY-008", PESEL_CLAUSE, reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    pesel_system = contract.installation.values["pesel_system"]
    kept = {(id(pesel.employee), pesel.value) for pesel in pesels if pesel.system == pesel_system}
    elsewhere: dict[str, list[Pesel]] = {}
    for pesel in pesels:
        if pesel.system != pesel_system and (id(pesel.employee), pesel.value) not in kept:
            elsewhere.setdefault(pesel.system, []).append(pesel)
    if elsewhere and "pesel_system" in assumed:  # the example's system is no finding against the target
        reason = (
            f"Employees carry their PESEL in {', '.join(elsewhere)}, and the run has no pesel_system of the target's "
            f"(the example installation's {pesel_system} was taken)"
        )
        clause_not_exercised("ERIS-PARTY-008", PESEL_CLAUSE, reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    for pesel in pesels:
        exercised("ERIS-PARTY-008", PESEL_CLAUSE, value=token(pesel.system, pesel.value), request=source)
    for system, found in elsewhere.items():
        shown = ", ".join(f"{pesel.employee.get('id')} ({pesel.value})" for pesel in found[:5])
        shown += f" and {len(found) - 5} more" if len(found) > 5 else ""
        findings.add(
            "ERIS-PARTY-008",
            f"{len(found)} Employees carry their PESEL in {system} ({found[0].because}), not in {{pesel_system}} = "
            f"{pesel_system}: {shown}. The PESEL namespace of Party is "
            "{pesel_system}: the target description's pesel_system is wrong, or the target serves the PESEL elsewhere",
        )
    findings.check()
