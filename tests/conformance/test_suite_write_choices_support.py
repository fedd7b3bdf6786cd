"""The helpers of the write-choice and PESEL tests (conformance/suite/support/write_choices.py): the namespaces a POST
may name, the contractor whose number a POST carries, and what is taken for an Employee's PESEL: everything in
{pesel_system} whatever its check digit, elsewhere only what the target types as one or its values show, never a
single 11-digit number nor a system that other profiles hold."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suite.support.write_choices import COPY, contractor_namespaces, holders_of, pesels_of_employees
from profiles import Contract, load_contract
from profiles.identifier_formats import pesel_check_digit

VENDOR = "https://vendor.example/pesel"


@pytest.fixture(scope="module")
def contract() -> Contract:
    return load_contract()


def _pesel(ten: str, *, clean: bool = True) -> str:
    digit = pesel_check_digit(ten)
    return f"{ten}{digit if clean else (digit + 1) % 10}"


def _party(*identifiers: dict[str, Any]) -> dict[str, Any]:
    return {"resourceType": "Party", "id": str(id(identifiers)), "identifier": list(identifiers)}


def _employees(system: str, values: list[str], profile: str = "Employee") -> list[tuple[dict[str, Any], tuple[str]]]:
    return [(_party({"system": system, "value": value}), (profile,)) for value in values]


def _found(contract: Contract, parties: list[tuple[dict[str, Any], tuple[str, ...]]]) -> list[tuple[str, str]]:
    return [(pesel.system, pesel.value) for pesel in pesels_of_employees(contract, parties)]


def test_a_pesel_in_the_pesel_namespace_counts_whatever_its_check_digit(contract: Contract) -> None:
    system = contract.installation.values["pesel_system"]
    dirty = _pesel("7103141000", clean=False)
    assert _found(contract, _employees(system, [dirty])) == [(system, dirty)]


def test_a_system_of_pesels_elsewhere_is_seen_with_a_few_wrong_check_digits(contract: Contract) -> None:
    values = [_pesel(f"80010{n:05d}") for n in range(7)] + [_pesel("8001099999", clean=False)]
    assert len(_found(contract, _employees(VENDOR, values))) == 8


def test_one_number_or_numbers_that_mostly_fail_the_check_are_no_pesel_system(contract: Contract) -> None:
    assert _found(contract, _employees(VENDOR, [_pesel("7103141000")])) == []
    mostly_dirty = [_pesel(f"80010{n:05d}", clean=n == 0) for n in range(4)]
    assert _found(contract, _employees(VENDOR, mostly_dirty)) == []


def test_a_system_other_profiles_hold_too_is_no_pesel_system(contract: Contract) -> None:
    values = [_pesel(f"80010{n:05d}") for n in range(4)]
    parties = [*_employees(VENDOR, values[:2]), *_employees(VENDOR, values[2:], profile="Contractor")]
    assert _found(contract, parties) == []


def test_the_type_names_a_pesel_by_nnpol_only(contract: Contract) -> None:
    typed = {"system": "urn:example:hr:id", "value": "12345", "type": {"coding": [{"code": "NNPOL"}]}}
    national = {"system": "urn:example:no:id", "value": _pesel("7103141000"), "type": "NI"}
    parties = [(_party(typed), ("Employee",)), (_party(national), ("Employee",))]
    assert _found(contract, parties) == [("urn:example:hr:id", "12345")]


def test_a_post_may_name_each_copy_and_each_installation_namespace_the_contract_places_nowhere(
    contract: Contract,
) -> None:
    copy = contract.namespace_systems("contractor-warehouse")[0]
    register = contract.namespace_systems("contractor")[0]
    unknown = f"urn:oid:1.2.616.1.113769.4.{contract.installation.number}.99"
    carried = [_party({"system": register, "value": "K-1"}, {"system": unknown, "value": "X-1"})]
    assert contractor_namespaces(contract, carried) == [(copy, COPY), (unknown, None)]


def test_the_holder_of_a_number_is_read_back_by_its_register_id_and_owners_come_last(contract: Contract) -> None:
    nip = contract.installation.values["nip_system"]
    register = contract.namespace_systems("contractor")[0]
    owner = _party({"system": register, "value": "K-1"}, {"system": nip, "value": "111", "period": {"start": "2020"}})
    other = _party({"system": register, "value": "K-2"}, {"system": nip, "value": "222", "type": "TAX"})
    other["owner"] = [{"identifier": {"system": nip, "value": "111"}}]
    without_key = _party({"system": nip, "value": "333"})
    found = holders_of(contract, [owner, other, without_key], nip)
    assert [(h.number, h.key) for h in found] == [
        ({"system": nip, "value": "222", "type": "TAX"}, (register, "K-2")),
        ({"system": nip, "value": "111"}, (register, "K-1")),
    ]
