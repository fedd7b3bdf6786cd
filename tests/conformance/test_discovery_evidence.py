"""Discovery weighs what a target shows, never asks for unanimity: registry numbers with wrong check digits, a PESEL
on a person who holds assets, NamingSystems in shapes of their own, a second identifier beside a kind's own
(conformance/discovery/registry_systems.py, conformance/discovery/naming_system_items.py,
conformance/discovery/installation_evidence.py)."""

from __future__ import annotations

from typing import Any

import pytest
from test_discovery import NS, V2, ident, oid, party

from conformance.discovery.init_description import target_toml
from conformance.discovery.naming_system_items import read_naming_system
from conformance.discovery.published import derive
from profiles.identifier_formats import nip_check_digit, pesel_check_digit


def _nip(n: int, *, clean: bool = True) -> str:
    nine = f"{526025027 + 7 * n:09d}"
    digit = nip_check_digit(nine)
    while digit is None:
        nine = f"{int(nine) + 1:09d}"
        digit = nip_check_digit(nine)
    return f"{nine}{digit if clean else (digit + 1) % 10}"


def _pesel(n: int, *, clean: bool = True) -> str:
    ten = f"80010{n:05d}"
    digit = pesel_check_digit(ten)
    return f"{ten}{digit if clean else (digit + 1) % 10}"


def _contractors(system: str, values: list[str], **more: Any) -> list[dict[str, Any]]:
    return [party("Contractor", ident(system, value, **more)) for value in values]


DIRTY_NIPS = [_nip(n, clean=n < 3) for n in range(7)]
"""3 of 7 pass the NIP check: as one implementation served them."""


@pytest.mark.parametrize("typed", ["TAX", {"coding": [{"system": V2, "code": "TAX"}]}, {"code": "tax"}])
def test_numbers_typed_tax_are_the_nip_with_four_of_seven_check_digits_wrong(typed: Any) -> None:
    found = derive({"/v1/parties": _contractors("urn:a:nip", DIRTY_NIPS, type=typed)})
    assert found.values["nip_system"] == "urn:a:nip"
    assert "3 of 7 values on Contractor parties pass the nip check, type TAX" in found.sources["nip_system"]
    [warning] = found.warnings
    assert warning.startswith("4 values in nip_system urn:a:nip fail the nip check (") and "identifier-nip-invalid" in (
        warning
    )
    text = target_toml("http://t", found)
    assert "# warning: 4 values in nip_system urn:a:nip fail the nip check" in text


def test_the_same_numbers_said_by_nothing_are_a_gap_not_a_guess() -> None:
    found = derive({"/v1/parties": _contractors("urn:a:nip", DIRTY_NIPS)})
    assert "nip_system" not in found.values and found.conflict_of("nip_system") is None


def test_a_namingsystem_of_own_words_names_the_registry_of_dirty_numbers() -> None:
    published = [{"kod": "NIP-PL", "opis": "Numer identyfikacji podatkowej", "przestrzen": "urn:a:nip"}]
    found = derive({"/v1/parties": _contractors("urn:a:nip", DIRTY_NIPS), "/v1/naming-systems": published})
    assert found.values["nip_system"] == "urn:a:nip"
    assert "GET /v1/naming-systems (published as nip)" in found.sources["nip_system"]


def test_a_system_said_to_be_one_registry_whose_values_are_another_is_a_conflict() -> None:
    pesels = [_pesel(n) for n in range(4)]
    parties = [party("Employee", ident("urn:a:x", value, type="NIP")) for value in pesels]
    found = derive({"/v1/parties": parties})
    assert "pesel_system" not in found.values and "nip_system" not in found.values
    conflict = found.conflict_of("pesel_system")
    assert conflict is not None and "what the target says of a system and what its values show differ" in (
        conflict.reason
    )


def test_a_pesel_on_an_asset_holder_beside_the_employees_pesels_keeps_the_pesel_system() -> None:
    employees = [party("Employee", ident("urn:a:pesel", _pesel(n, clean=n != 2), type="NI")) for n in range(5)]
    holder = party("AssetHolder", ident("urn:a:pesel", _pesel(9)))
    found = derive({"/v1/parties": [*employees, holder]})
    assert found.values["pesel_system"] == "urn:a:pesel"
    assert (
        "5 of 6 values on Employee and AssetHolder parties pass the pesel check, type NI"
        in (found.sources["pesel_system"])
    )
    # held mostly by others, the same numbers are no PESEL system
    others = [party("AssetHolder", ident("urn:a:pesel", _pesel(n))) for n in range(10, 14)]
    assert "pesel_system" not in derive({"/v1/parties": [*employees[:2], *others]}).values


CONTRACTOR = f"{NS}/StructureDefinition/Contractor"


@pytest.mark.parametrize(
    ("register", "copy"),
    [
        ({"referenceKey": "yes"}, {"referenceKey": "no"}),
        ({"referenceKey": "True"}, {"referenceKey": "false"}),
        ({"isReferenceKey": {"coding": [{"system": "urn:yn", "code": "Y"}]}}, {"isReferenceKey": {"code": "N"}}),
        ({"reference_key": 1}, {"reference_key": 0}),
        ({"klucz": "tak"}, {"klucz": "nie"}),
    ],
)
@pytest.mark.parametrize(
    "usage",
    [[{"type": "Party", "profile": CONTRACTOR}], "Contractor", ["Party.identifier"], {"code": "contractor"}],
)
def test_namingsystems_of_every_shape_tell_the_register_from_the_copy(register: Any, copy: Any, usage: Any) -> None:
    systems = [
        {"key": 101, "title": "Kontrahenci", "namespace": oid(101, 42), "usage": usage} | register,
        {"key": {"code": "102"}, "title": "Magazyn", "oid": f"1.2.616.1.113769.4.42.{102}", "usage": usage} | copy,
    ]
    parties = [party("Contractor", ident(oid(101, 42), f"K-{n}"), ident(oid(102, 42), f"K-{n}")) for n in range(3)]
    found = derive({"/v1/parties": parties, "/v1/naming-systems": systems})
    assert found.conflicts == []
    assert (found.namespaces["contractor"], found.namespaces["contractor-warehouse"]) == ("101", "102")


def test_a_namingsystem_item_is_read_whatever_its_member_names() -> None:
    item = {
        "resourceType": "NamingSystem",
        "url": "https://x.example/NamingSystem/kontrahent",
        "name": {"system": "urn:keys", "code": "contractor-warehouse"},
        "uniqueId": [{"type": "uri", "value": oid(2), "preferred": True}],
        "usableInReferences": "no",
        "usage": [{"resource": "https://x.example/StructureDefinition/Contractor"}],
    }
    read = read_naming_system(item, ["contractor-warehouse", "nip"], ["Contractor", "Party"])
    assert read.system == oid(2) and read.keys == {"contractor-warehouse"}
    assert read.reference_key is False and read.usage == {"Contractor"}


def _documents(number_namespace: int, *, based_on: bool = True) -> list[dict[str, Any]]:
    hr = [{"resourceType": "DocumentReference", "identifier": [ident(oid(6), f"HR-{n}")]} for n in range(2)]
    warehouse = [
        {"resourceType": "DocumentReference", "identifier": [ident(oid(6), f"WD-{n}"), ident(oid(number_namespace),
                                                                                          f"PZ/{n}/2025")]}
        for n in range(3)
    ]  # fmt: skip
    if based_on:
        warehouse[1]["basedOn"] = [{"type": "DocumentReference", "identifier": ident(oid(6), "WD-0")}]
    return [*hr, *warehouse]


def test_document_numbers_beside_the_documents_ids_are_no_namespace_of_them() -> None:
    found = derive({"/v1/document-references": _documents(11)})
    assert found.namespaces["document-reference"] == "6" and "document-reference" not in found.more_namespaces
    [second] = found.seconds
    assert second.startswith(f"{oid(11)} stands beside another document-reference namespace on every item")
    text = target_toml("http://t", found)
    assert 'document-reference = "6"' in text and "# left out: " + oid(11) in text


def test_a_number_namespace_published_as_no_reference_key_is_left_out_without_references() -> None:
    published = [{"system": oid(11), "referenceKey": False, "usage": "DocumentReference"}]
    found = derive({"/v1/document-references": _documents(11, based_on=False), "/v1/naming-systems": published})
    assert found.namespaces["document-reference"] == "6" and found.seconds and not found.conflicts


def test_a_namespace_that_never_identifies_alone_and_nothing_tells_is_a_conflict() -> None:
    found = derive({"/v1/document-references": _documents(11, based_on=False)})
    conflict = found.conflict_of("namespaces.document-reference")
    assert conflict is not None and "never identifies an item alone" in conflict.reason
    assert "document-reference" not in found.namespaces
    text = target_toml("http://t", found)
    assert '# document-reference = "11"   # seen in' in text and '# document-reference = "6"   # seen in' in text
