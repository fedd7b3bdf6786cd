"""The mutations of the corpus: each makes a valid document slightly invalid, with at least one eris error (some only
a profile rule can see, some the JSON Schemas see too), and MUTATIONS names those that apply to each resource type.
"""

from __future__ import annotations

from collections.abc import Callable

from payload_parts import Document, PayloadParts, pesel

__all__ = ["MUTATIONS", "Mutation"]

Mutation = Callable[[PayloadParts, Document], None]


def _unknown_element(b: PayloadParts, d: Document) -> None:
    d["extension"] = [{"url": f"{b.ns}/StructureDefinition/legacy-flag", "valueBoolean": True}]


def _status_plain_string(b: PayloadParts, d: Document) -> None:
    d["status"] = "active"


def _missing_id(b: PayloadParts, d: Document) -> None:
    del d["id"]


def _identifier_relative_system(b: PayloadParts, d: Document) -> None:
    d["identifier"][0]["system"] = "nip"


def _identifier_foreign_installation(b: PayloadParts, d: Document) -> None:
    d["identifier"][0]["system"] = b.oid("location", installation="99")


def _coding_numeric_code(b: PayloadParts, d: Document) -> None:
    field = "category" if "category" in d else "type"
    concept = d[field][0] if isinstance(d[field], list) else d[field]
    concept["coding"][0]["code"] = 1


def _status_code_not_in_value_set(b: PayloadParts, d: Document) -> None:
    d["status"]["coding"][0]["code"] = "archived"


def _party_type_not_in_value_set(b: PayloadParts, d: Document) -> None:
    d["type"]["coding"][0]["code"] = "crm"


def _party_namespace_of_other_profile(b: PayloadParts, d: Document) -> None:
    kinds = {c["coding"][0]["code"] for c in d["category"]}
    d["identifier"][0]["system"] = b.oid("asset-holder" if "asset-holder" not in kinds else "contractor")


def _owner_by_pesel(b: PayloadParts, d: Document) -> None:
    d["owner"] = [b.reference("Party", {"system": b.pesel_system, "value": pesel(b.rng)})]


def _issue_date_month_13(b: PayloadParts, d: Document) -> None:
    d["issueDate"] = "2025-13-01"


def _participant_not_reference_key(b: PayloadParts, d: Document) -> None:
    d["participant"][0]["identifier"] = b.identifier("contractor-warehouse")


def _notification_reference_not_installation(b: PayloadParts, d: Document) -> None:
    d["reference"]["identifier"] = b.nip_identifier()


def _notification_without_date(b: PayloadParts, d: Document) -> None:
    del d["date"]


def _period_without_start(b: PayloadParts, d: Document) -> None:
    d["period"] = {"end": "2027-12-31"}


def _valid_from_not_iso(b: PayloadParts, d: Document) -> None:
    d["validFrom"] = "01.01.2024"


def _value_set_concept_without_code(b: PayloadParts, d: Document) -> None:
    d["compose"]["include"][0]["concept"] = [{"display": "Other"}]


def _value_set_url_relative(b: PayloadParts, d: Document) -> None:
    d["url"] = "value-sets/" + d["id"]


def _usage_place_without_category(b: PayloadParts, d: Document) -> None:
    d["meta"] = {"profile": [f"{b.ns}/StructureDefinition/UsagePlace"]}
    d.pop("category", None)


def _dimension_as_array(b: PayloadParts, d: Document) -> None:
    d["dimension"] = [d["dimension"]]


def _attachment_data_not_base64(b: PayloadParts, d: Document) -> None:
    attachments = d.setdefault("attachment", [b.attachment(48)])
    attachments[0]["data"] = attachments[0]["data"].rstrip("=") + "!"


def _order_run_at_not_utc(b: PayloadParts, d: Document) -> None:
    d["runAt"] = d["runAt"].removesuffix("Z") + "+02:00"


def _order_without_report_id(b: PayloadParts, d: Document) -> None:
    del d["reportId"]


def _order_month_13(b: PayloadParts, d: Document) -> None:
    d["parameters"]["Month"] = "13"


def _order_format_xlsx(b: PayloadParts, d: Document) -> None:
    d["format"] = "xlsx"


def _order_storage_without_connection(b: PayloadParts, d: Document) -> None:
    d["storage"] = {"type": d["storage"]["type"]}


_BASE = (_missing_id, _identifier_relative_system, _identifier_foreign_installation)

MUTATIONS: dict[str, tuple[Mutation, ...]] = {
    "Party": (
        *_BASE,
        _unknown_element,
        _status_plain_string,
        _coding_numeric_code,
        _status_code_not_in_value_set,
        _party_type_not_in_value_set,
        _party_namespace_of_other_profile,
        _owner_by_pesel,
    ),
    "Location": (*_BASE, _owner_by_pesel, _usage_place_without_category),
    "DocumentReference": (
        *_BASE,
        _unknown_element,
        _coding_numeric_code,
        _issue_date_month_13,
        _participant_not_reference_key,
        _attachment_data_not_base64,
    ),
    "FixedAsset": (*_BASE, _status_plain_string, _owner_by_pesel),
    "FixedAssetDocument": (*_BASE, _status_code_not_in_value_set, _attachment_data_not_base64),
    "FixedAssetAllocation": (_missing_id, _dimension_as_array, _owner_by_pesel),
    "GrantAssignment": (*_BASE, _unknown_element, _period_without_start),
    "Capability": (*_BASE, _unknown_element, _valid_from_not_iso),
    "ValueSet": (_missing_id, _unknown_element, _value_set_concept_without_code, _value_set_url_relative),
    "Notification": (
        _missing_id,
        _unknown_element,
        _status_code_not_in_value_set,
        _notification_reference_not_installation,
        _notification_without_date,
    ),
    "ReportOrder": (
        _order_run_at_not_utc,
        _order_without_report_id,
        _order_month_13,
        _order_format_xlsx,
        _order_storage_without_connection,
    ),
}
