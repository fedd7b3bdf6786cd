"""Helpers of the write, fixed-asset, document and notification tests (test_party_posts.py, test_party_changes.py,
fixed_assets/, test_documents.py, test_notifications.py): write bodies built from the contract data of the target's
installation and checked by the validator as writes before they are sent, and reads that discover what
the target holds instead of assuming it."""

from __future__ import annotations

import copy
from typing import Any

import httpx

from conformance.evidence.outcomes import data_selected_by
from conformance.generation.made_up import made_up_hex
from conformance.harness.plugin import Api, Findings, blocked
from profiles import Contract
from profiles.coded import codes_of, same_form
from profiles.contract import value_set_codes
from profiles.installation import INSTALLATION_OID_ARC

FIXED_ASSET_DOCUMENTS = "/v1/fixed-asset-documents"
DOCUMENT_CONTENT = "/v1/fixed-asset-documents/$document-content"
WORKFLOW_CODES = value_set_codes("fixed-asset-document-workflow-attribute")


def vocab(contract: Contract) -> str:
    return contract.installation.values["vocab_url"]


def nip_system(contract: Contract) -> str:
    return contract.installation.values["nip_system"]


def profile_url(contract: Contract, name: str) -> str:
    return contract.profiles[name].url


def namespace_system(contract: Contract, key: str) -> str:
    """The system URI of the namespace `key` of namespaces.json (e.g. "fixed-asset-document")."""
    return next(ns.system for ns in contract.namespaces.values() if ns.key == key)


def namespace_systems(contract: Contract, key: str) -> set[str]:
    """Every system of the namespace kind `key`: the configured one and those the target publishes beside it."""
    return set(contract.namespace_systems(key))


def installation_systems(contract: Contract) -> set[str]:
    """Every installation namespace (urn:oid:1.2.616.1.113769.4.<installation>.<key>) of the installation."""
    return {system for system in contract.namespaces if system.startswith(INSTALLATION_OID_ARC)}


def profile_systems(contract: Contract, profile: str, *, reference_key: bool | None = None) -> list[str]:
    """The installation namespaces of `profile` (a reference key only, or not, when asked)."""
    keys = contract.profiles[profile].identifier_namespaces
    return [
        ns.system
        for ns in contract.namespaces.values()
        if ns.key in keys and (reference_key is None or ns.reference_key == reference_key)
    ]


def reference_key_systems(contract: Contract) -> set[str]:
    return {system for system, ns in contract.namespaces.items() if ns.reference_key}


def identifiers(resource: dict[str, Any], systems: set[str] | list[str] | None = None) -> list[tuple[str, str]]:
    """(system, value) of the identifiers of `resource` that have both (in `systems` when given)."""
    found = []
    for identifier in resource.get("identifier") or []:
        if not isinstance(identifier, dict):
            continue
        system, value = identifier.get("system"), identifier.get("value")
        if isinstance(system, str) and isinstance(value, str) and value and (systems is None or system in systems):
            found.append((system, value))
    return found


def claimed_profiles(resource: dict[str, Any]) -> list[str]:
    """The profile URLs `resource` claims in meta.profile."""
    meta = resource.get("meta")
    claimed = meta.get("profile") if isinstance(meta, dict) else None
    return [url for url in claimed if isinstance(url, str)] if isinstance(claimed, list) else []


def has_identifier(resource: dict[str, Any], system: str, value: str) -> bool:
    return (system, value) in identifiers(resource)


def only(items: list[dict[str, Any]], what: str) -> dict[str, Any]:
    """The one item of a read that must name exactly one resource."""
    assert len(items) == 1, f"{what} returned {len(items)} items, not the one resource it names"
    return items[0]


def token(system: str, value: str) -> str:
    return f"{system}|{value}"


def codes(concept: Any, system: str | None = None) -> set[str]:
    """The codes of a CodeableConcept, or of a list of them (of `system` only, when given); a coding without a
    text code has none. Read in the form served: one object where an array is expected, or an array where one
    object is, holds its codings still; the shape is its own requirement's finding (the validator's), and a
    check of a filter or a value must not fail on it too."""
    return {
        coding["code"]
        for one in _one_or_many(concept)
        if isinstance(one, dict)
        for coding in _one_or_many(one.get("coding"))
        if isinstance(coding, dict)
        and isinstance(coding.get("code"), str)
        and (system is None or coding.get("system") == system)
    }


def _one_or_many(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def has_coding(concepts: Any, system: str, code: str) -> bool:
    """Whether a CodeableConcept, or any of a list of them, holds the coding system|code."""
    return code in codes(concepts, system)


def display_name(party: dict[str, Any]) -> str | None:
    """The name of a Party as written by the suite: the display of a name coding, else name.text. A name served as
    bare text is that text: its shape is the validator's finding (ERIS-PARTY-001), not a name lost."""
    name = party.get("name")
    if isinstance(name, str):
        return name
    if not isinstance(name, dict):
        return None
    for coding in name.get("coding") or []:
        if isinstance(coding, dict) and isinstance(coding.get("display"), str):
            return coding["display"]
    return name.get("text") if isinstance(name.get("text"), str) else None


def unordered(party: dict[str, Any]) -> Any:
    """A party as a write that must not touch it leaves it: `meta` left out (its contents beyond profile are not
    shown), and the items of every array in any order (the contract fixes none)."""

    def canonical(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: canonical(item) for key, item in value.items()}
        if isinstance(value, list):
            return sorted((canonical(item) for item in value), key=repr)
        return value

    return canonical({key: value for key, value in party.items() if key != "meta"})


def unique_name(kind: str = "Kontrahent") -> str:
    """A name no other party has: the suite finds what it wrote by it."""
    return f"{kind} eris {made_up_hex(12)} Sp. z o.o."


# -- parties -------------------------------------------------------------------------------------------


def contractor_body(
    contract: Contract,
    name: str,
    *,
    by: str = "category",
    namespace: str | bool | None = True,
    owner_nip: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A Contractor write body. `by`: recognised by its party-kind "category", by "meta" (meta.profile),
    or by "both". `namespace`: True for the Contractor's register namespace with the value omitted (as the
    contract recommends), a system URI for that namespace, None or False for no identifier at all."""
    body: dict[str, Any] = {"resourceType": "Party"}
    if by in ("meta", "both"):
        body["meta"] = {"profile": [profile_url(contract, "Contractor")]}
    if by in ("category", "both"):
        system, code = contract.profiles["Contractor"].category_codings[0]
        body["category"] = [{"coding": [{"system": system, "code": code}]}]
    if namespace:
        system = (
            namespace if isinstance(namespace, str) else profile_systems(contract, "Contractor", reference_key=True)[0]
        )
        body["identifier"] = [{"system": system}]
    body["name"] = {"coding": [{"system": f"{vocab(contract)}/party-name", "code": "finance", "display": name}]}
    if owner_nip is not None:
        body["owner"] = [{"type": "Party", "identifier": {"system": nip_system(contract), "value": owner_nip}}]
    body.update(extra)
    return body


def without_profile(contract: Contract, name: str) -> dict[str, Any]:
    """A Party body with neither meta.profile nor a party-kind category."""
    body = contractor_body(contract, name)
    del body["category"]
    return body


def of_profile(contract: Contract, profile: str, name: str, *, by: str) -> dict[str, Any]:
    """A Party body of another profile than Contractor, recognised by meta.profile or by category, with
    an identifier of that profile's own namespace when it has one (value given: the suite looks for it)."""
    body = contractor_body(contract, name, by=by, namespace=False)
    if by == "meta":
        body["meta"] = {"profile": [profile_url(contract, profile)]}
    else:
        system, code = contract.profiles[profile].category_codings[0]
        body["category"] = [{"coding": [{"system": system, "code": code}]}]
    own = profile_systems(contract, profile)
    if own:
        body["identifier"] = [{"system": own[0], "value": f"ERIS-{made_up_hex(12).upper()}"}]
    return body


def contractors(api: Api, contract: Contract) -> list[dict[str, Any]]:
    """Contractors of the target (a first page of up to 100), as read by their profile (every item checked
    by the validator)."""
    params = {"profile": profile_url(contract, "Contractor"), "count": 100}
    return api.read("/v1/parties", params, resource_type="Party")


def owner_nip_exercise(contract: Contract) -> str:
    """What would exercise a test that found no NIP owning parties: the data, or [installation] nip_system where the
    run took the example installation's (its NIPs are then looked for in a system the target may not use)."""
    what = "a Contractor owned by a NIP, or an Employer with a NIP"
    return data_selected_by(contract.installation.assumed, "nip_system", "/v1/parties", what)


def owner_nip_of(api: Api, contract: Contract) -> str | None:
    """A NIP that owns parties, found in the data: the owner of a Contractor referenced by NIP, else the
    NIP of an Employer (the own organization). None when the target shows neither."""
    system = nip_system(contract)
    for party in contractors(api, contract):
        for owner in party.get("owner") or []:
            identifier = owner.get("identifier") if isinstance(owner, dict) else None
            if isinstance(identifier, dict) and identifier.get("system") == system and identifier.get("value"):
                return identifier["value"]
    params = {"profile": profile_url(contract, "Employer"), "count": 100}
    employers = api.read("/v1/parties", params, resource_type="Party")
    for employer in employers:
        for found_system, value in identifiers(employer, {system}):
            if found_system == system:
                return value
    return None


def assert_created_contractor(
    api: Api,
    contract: Contract,
    response: httpx.Response,
    body: dict[str, Any],
    findings: Findings | None = None,
    assigned: tuple[str, ...] = ("ERIS-PARTY-012",),
) -> dict[str, Any]:
    """A POST /v1/parties answer: 200 with the created Party, a value assigned in an installation namespace of
    the Contractor profile, a Contractor, with the name written; what the validator finds wrong in it is
    recorded against its rules' requirements (`Api.judge`). The first failure is recorded against what it
    breaks: a 2xx other than 200 ERIS-WRITE-001, no identifier assigned the requirements `assigned`, anything
    else ERIS-PARTY-012. With `findings` (a test of POST itself) the test fails by them; otherwise the test
    needed the write and stops there, not exercised (`blocked`)."""

    def check(holds: bool, message: str, requirements: tuple[str, ...] = ("ERIS-PARTY-012",)) -> None:
        __tracebackhide__ = True
        if holds:
            return
        if findings is not None:
            for requirement in requirements:
                findings.add(requirement, message)
            findings.check()
        blocked(requirements[0], message)

    answered = f"POST /v1/parties of a Contractor answered {response.status_code}, not 200: {response.text[:300]}"
    other_success = 200 < response.status_code < 300
    check(response.status_code == 200, answered, ("ERIS-WRITE-001",) if other_success else ("ERIS-PARTY-012",))
    party = response.json()
    check(isinstance(party, dict) and party.get("resourceType") == "Party", "POST /v1/parties did not answer a Party")
    systems = profile_systems(contract, "Contractor")
    check(
        bool(identifiers(party, systems)),
        "the created Party has no assigned identifier (system and value) in an installation namespace of "
        f"the Contractor profile ({', '.join(systems)}): {party.get('identifier')}",
        assigned,
    )
    api.judge(party, "Party", where="the Party answered by POST /v1/parties")
    check(
        contract.profiles["Contractor"] in api.validator.recognised_profiles(party, "Party"),
        "the created Party is not recognisable as a Contractor (neither meta.profile nor a party-kind category)",
    )
    check(display_name(party) == display_name(body), "the created Party does not carry the name written")
    return party


def create_contractor(
    api: Api,
    contract: Contract,
    name: str,
    *,
    findings: Findings | None = None,
    assigned: tuple[str, ...] = ("ERIS-PARTY-012",),
    **options: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """POST a Contractor (its body checked as a write first); the body and the created Party. `findings` and
    `assigned`: see `assert_created_contractor`."""
    body = contractor_body(contract, name, **options)
    api.assert_valid(body, "Party", where="the suite's Contractor write body", context="write")
    response = api.post("/v1/parties", json=body)
    party = assert_created_contractor(api, contract, response, body, findings, assigned)
    return body, party


def register_identifier(contract: Contract, party: dict[str, Any]) -> tuple[str, str]:
    """The party's identifier in the Contractor register namespace (a reference key), else in another
    installation namespace of the Contractor profile."""
    ordered = [
        *profile_systems(contract, "Contractor", reference_key=True),
        *profile_systems(contract, "Contractor", reference_key=False),
    ]
    found = identifiers(party, ordered)
    assert found, (
        f"the party has no identifier in an installation namespace of the Contractor: {party.get('identifier')}"
    )
    return min(found, key=lambda pair: ordered.index(pair[0]))


def read_parties(api: Api, system: str, value: str) -> list[dict[str, Any]]:
    return api.read_identified("/v1/parties", system, value, resource_type="Party")


# -- fixed-asset documents -----------------------------------------------------------------------------


def workflow_of(attachment: Any) -> dict[str, Any]:
    """The workflow data of one attachment: code -> value (a code in any form, see profiles.coded)."""
    if not isinstance(attachment, dict):
        return {}
    return {
        code: a.get("value")
        for a in attachment.get("attribute") or []
        if isinstance(a, dict)
        for code in codes_of(a.get("code"))
        if code in WORKFLOW_CODES
    }


def is_workflow(attribute: Any, *wanted: str) -> bool:
    """Whether `attribute` holds workflow data (of one of the `wanted` codes, when given)."""
    found = codes_of(attribute.get("code")) if isinstance(attribute, dict) else []
    return any(code in (wanted or WORKFLOW_CODES) for code in found)


def attribute_like(document: Any, code: str, value: Any) -> dict[str, Any]:
    """An attribute `code`|`value` whose code takes the form the target gives the attribute codes of
    `document` (a bare code, a Coding or a CodeableConcept: Attribute's structure is not shown)."""
    examples = [
        a.get("code")
        for holder in [document, *((document or {}).get("attachment") or [])]
        if isinstance(holder, dict)
        for a in holder.get("attribute") or []
        if isinstance(a, dict)
    ]
    return {"code": same_form(examples[0] if examples else None, code), "value": value}


def without_workflow(document: dict[str, Any]) -> dict[str, Any]:
    """The document with its workflow data and `meta` (whose contents beyond profile are not shown, e.g. a
    last-update time) taken out, and attachment attributes in a stable order: what a PATCH of workflow
    data must leave as it was."""
    rest = copy.deepcopy(document)
    rest.pop("meta", None)
    for attachment in rest.get("attachment") or []:
        if isinstance(attachment, dict) and isinstance(attachment.get("attribute"), list):
            kept = [a for a in attachment["attribute"] if not is_workflow(a)]
            attachment["attribute"] = sorted(kept, key=repr)
            if not attachment["attribute"]:
                del attachment["attribute"]
    return rest


def read_document(api: Api, system: str, value: str) -> dict[str, Any]:
    """The one fixed-asset document with identifier system|value."""
    mine = api.read_identified(FIXED_ASSET_DOCUMENTS, system, value, resource_type="FixedAssetDocument")
    assert len(mine) == 1, f"a read of the fixed-asset document {system}|{value} gave {len(mine)} documents with it"
    return mine[0]
