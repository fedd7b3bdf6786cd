"""Discovery's reasoning over served items (conformance.discovery.published.derive): what each form of the data tells,
and what it leaves undecided. Servers that serve such data are in tests/conformance/cli/test_init.py."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from conformance.discovery.init_description import target_toml
from conformance.discovery.published import derive
from conformance.discovery.served_values import type_codes
from profiles import load_installation

NS = "https://x.example/fhir"
VOCAB = "https://x.example/vocab"
V2 = "http://terminology.hl7.org/CodeSystem/v2-0203"
NIPS = ["5260250274", "7251801126", "1132853869"]
PESELS = ["02070803628", "44051401458"]


def oid(key: int, installation: int = 7) -> str:
    return f"urn:oid:1.2.616.1.113769.4.{installation}.{key}"


def party(profile: str, *identifiers: dict[str, Any], **more: Any) -> dict[str, Any]:
    kind = {"AssetHolder": "asset-holder"}.get(profile, profile.lower())
    return {
        "resourceType": "Party",
        "meta": {"profile": [f"{NS}/StructureDefinition/{profile}"]},
        "category": [{"coding": [{"system": f"{VOCAB}/party-kind", "code": kind}]}],
        "identifier": list(identifiers),
        **more,
    }


def ident(system: str, value: str, **more: Any) -> dict[str, Any]:
    return {"system": system, "value": value, **more}


@pytest.mark.parametrize(
    "form",
    ["TAX", "tax", {"coding": [{"system": V2, "code": "TAX"}]}, {"system": V2, "code": "TAX"}, [{"text": "x"}, "TAX"]],
)
def test_identifier_type_is_read_in_every_form(form: Any) -> None:
    assert type_codes({"type": form}) == {"TAX"}


def test_a_registry_is_the_one_format_all_values_of_a_system_pass() -> None:
    served = {
        "/v1/parties": [
            party("Contractor", ident("urn:a:tax", NIPS[0], type="TAX")),
            party("Contractor", ident("urn:a:tax", NIPS[1], type={"coding": [{"system": V2, "code": "TAX"}]})),
            party("Contractor", ident("urn:a:mixed", NIPS[2]), ident("urn:a:duns", "150483782")),
            party("Contractor", ident("urn:a:mixed", "PL" + NIPS[2])),
            party("Contractor", ident("urn:a:ids", PESELS[0])),  # PESEL-valid, but no Employee's
            party("Employee", ident("urn:a:pesel", PESELS[0]), ident("urn:a:ids", PESELS[1])),
            party("Employee", ident("urn:a:pesel", PESELS[1])),
        ]
    }
    found = derive(served)
    assert found.values["nip_system"] == "urn:a:tax"
    assert "2 values on Contractor parties pass the nip check, type TAX" in found.sources["nip_system"]
    assert found.values["pesel_system"] == "urn:a:pesel"
    assert "eu_vat_system" not in found.values  # urn:a:mixed holds a NIP and an EU VAT number: neither
    assert found.conflict_of("pesel_system") is None


def test_two_systems_of_one_registry_are_a_conflict() -> None:
    served = {
        "/v1/parties": [
            *(party("Contractor", ident("urn:a", nip)) for nip in NIPS[:2]),
            *(party("Employer", ident("urn:b", nip)) for nip in NIPS[1:]),
        ]
    }
    found = derive(served)
    conflict = found.conflict_of("nip_system")
    assert conflict is not None and {c.value for c in conflict.candidates} == {"urn:a", "urn:b"}
    assert "nip_system" not in found.values


def contractors(*keys: int) -> list[dict[str, Any]]:
    return [party("Contractor", *(ident(oid(key), f"K-{n}") for key in keys)) for n in range(3)]


def test_contractor_namespaces_nothing_tells_apart_are_both_shown_and_neither_written() -> None:
    found = derive({"/v1/parties": contractors(1, 2)})
    assert found.value_of("namespaces.contractor") is None and found.value_of("namespaces.contractor-warehouse") is None
    conflict = found.conflict_of("namespaces.contractor")
    assert conflict is not None and "nothing the target publishes tells whether it is an accounting register" in (
        conflict.reason
    )
    text = target_toml("http://t", found)
    assert '# contractor = "1"' in text and '# contractor = "2"' in text
    assert '# contractor-warehouse = "1"' in text and '# contractor-warehouse = "2"' in text
    assert "contractor" not in tomllib.loads(text)["installation"]["namespaces"]


def test_a_reference_tells_a_register_and_leaves_the_other_key_undecided() -> None:
    document = {
        "resourceType": "DocumentReference",
        "identifier": [ident(oid(6), "D-1")],
        "participant": [{"type": "PartyRole", "identifier": ident(oid(2), "K-0")}],
    }
    found = derive({"/v1/parties": contractors(1, 2), "/v1/document-references": [document]})
    conflict = found.conflict_of("namespaces.contractor")
    assert conflict is not None and "for 1 nothing the target publishes tells" in conflict.reason
    # 2 is a register by its reference: never offered as the warehouse copy
    offered = {(c.name, c.value) for c in conflict.candidates}
    assert offered == {
        ("namespaces.contractor", "1"),
        ("namespaces.contractor", "2"),
        ("namespaces.contractor-warehouse", "1"),
    }
    assert "GET /v1/document-references: references use it" not in conflict.reason  # said of 2, not of 1


def test_a_namingsystem_of_any_shape_tells_the_reference_key_by_its_one_yes_no() -> None:
    systems = [
        {"resourceType": "NamingSystem", "kod": "K1", "uri": [{"value": oid(1)}], "klucz": False},
        {"resourceType": "NamingSystem", "kod": "K2", "uri": [{"value": oid(2)}], "klucz": True},
    ]
    found = derive({"/v1/parties": contractors(1, 2), "/v1/naming-systems": systems})
    assert found.namespaces["contractor"] == "2" and found.namespaces["contractor-warehouse"] == "1"
    # two yes/no members, neither named for a reference: nothing is told
    unclear = [dict(item, active=True) for item in systems]
    assert derive({"/v1/parties": contractors(1, 2), "/v1/naming-systems": unclear}).conflicts


def test_every_register_the_target_tells_is_kept_and_a_published_key_of_no_kind_is_shown() -> None:
    systems = [
        {"resourceType": "NamingSystem", "uniqueId": oid(key), "referenceKey": flag}
        for key, flag in ((1, True), (12, True), (2, False), (31, True))
    ]
    parties = [*contractors(1, 2), party("Contractor", ident(oid(12), "K-9"))]
    found = derive({"/v1/parties": parties, "/v1/naming-systems": systems})
    assert (found.namespaces["contractor"], found.more_namespaces["contractor"]) == ("1", ["12"])
    assert found.namespaces["contractor-warehouse"] == "2"
    assert found.unplaced == [oid(31)]
    text = target_toml("http://t", found)
    assert 'contractor = ["1", "12"]   # from GET /v1/parties' in text
    comments = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    assert f"the target also publishes {oid(31)} (GET /v1/naming-systems), of a kind its data do not show" in comments


def test_one_key_seen_for_two_kinds_is_a_conflict() -> None:
    served = {"/v1/parties": [party("Employee", ident(oid(3), "E-1")), party("AssetHolder", ident(oid(3), "A-1"))]}
    found = derive(served)
    conflict = found.conflict_of("namespaces.employee")
    assert conflict is not None and conflict is found.conflict_of("namespaces.asset-holder")
    assert "key 3 is seen for more than one kind of resource" in conflict.describe()


def test_a_second_inbox_is_written_as_a_list_the_most_used_first() -> None:
    documents = [{"resourceType": "DocumentReference", "identifier": [ident(oid(key), f"D-{n}")]} for n, key in
                 enumerate([11, 6, 6, 6])]  # fmt: skip
    found = derive({"/v1/document-references": documents})
    assert found.namespaces["document-reference"] == "6" and found.more_namespaces["document-reference"] == ["11"]
    text = target_toml("http://t", found)
    assert 'document-reference = ["6", "11"]   # from GET /v1/document-references (identifiers)' in text


def test_a_written_list_loads_as_more_namespaces_of_the_kind(tmp_path) -> None:
    documents = [{"resourceType": "DocumentReference", "identifier": [ident(oid(key), "D")]} for key in (6, 6, 11)]
    written = tmp_path / "t.toml"
    written.write_text(target_toml("http://t", derive({"/v1/document-references": documents})), encoding="utf-8")
    assert load_installation(written).more_namespace_keys["document-reference"] == ("11",)


def test_vocab_url_from_the_systems_of_the_contracts_vocabularies_not_from_fhirs() -> None:
    fhir = {"resourceType": "Party", "address": [{"use": {"coding": [{"system": "http://hl7.org/fhir/address-use",
                                                                        "code": "home"}]}}]}  # fmt: skip
    assert "vocab_url" not in derive({"/v1/parties": [fhir]}).values
    found = derive({"/v1/parties": [fhir, party("Employee")]})
    assert found.values["vocab_url"] == VOCAB and "coding systems" in found.sources["vocab_url"]
    listed = derive(
        {"/v1/value-sets": [{"url": "https://other.example/v/employment-type"}], "/v1/parties": [party("Employee")]}
    )
    assert listed.values["vocab_url"] == "https://other.example/v"  # the value-set listing comes first


def test_profiles_under_two_bases_are_a_conflict() -> None:
    other = party("Employee")
    other["meta"]["profile"] = ["https://y.example/StructureDefinition/Employee"]
    found = derive({"/v1/parties": [party("Contractor"), other]})
    assert "ns_url" not in found.values and found.conflict_of("ns_url") is not None
