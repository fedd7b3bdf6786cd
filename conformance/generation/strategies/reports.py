"""Report orders (POST /v1/reports) drawn from `ReportOrder.schema.json` and the operation
definitions of `profiles/operations`: the report, its parameters with their types and ranges,
a public key of the key pool, a run time in UTC, a storage target."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.identifiers import registry_values
from conformance.generation.strategies.keys import public_key_pems
from conformance.generation.strategies.primitives import MAX_ITEMS, texts, tokens
from conformance.generation.strategies.schema_index import schema_index
from profiles import Contract

HONOURED_RULES = frozenset({"public-key-pem", "utc-datetime", "report-id", "report-parameters"})
"""The report-order rules of profiles/report_rules.py the orders drawn here honour."""

_EARLIEST_RUN = datetime(2000, 1, 1)
_LATEST_RUN = datetime(2100, 12, 31)
# Every written form of a UTC instant the utc-datetime rule accepts: Z or a zero offset, seconds and
# fractions optional.
_RUN_AT_FORMS = ("%Y-%m-%dT%H:%MZ", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%S+00:00")


def _enum(*names: str) -> list[Any]:
    index = schema_index()
    node = index.root("ReportOrder")
    for name in names:
        node = index.object_view(node).properties[name]
    return list(index.keyword(node, "enum"))


def report_formats() -> list[str]:
    """The formats of `ReportOrder.schema.json` (parquet, csv)."""
    return _enum("format")


def storage_types() -> list[str]:
    """The storage types of `ReportOrder.schema.json` (blob, http, local, smb)."""
    return _enum("storage", "type")


def run_times() -> st.SearchStrategy[str]:
    """Date-times in UTC, in the past or the future, as an ISO 8601 string."""
    instants = st.datetimes(_EARLIEST_RUN, _LATEST_RUN, timezones=st.just(UTC))
    return st.builds(lambda moment, form: moment.strftime(form), instants, st.sampled_from(_RUN_AT_FORMS))


def storages() -> st.SearchStrategy[dict[str, str]]:
    """A storage of any type the schema names; its connectionString is open in the contract."""
    return st.fixed_dictionaries({"type": st.sampled_from(storage_types()), "connectionString": texts()})


# An integer parameter without bounds is drawn within a signed 64-bit integer, what most languages
# read an integer into (the validator refuses written integers of more than 20 characters).
_INT64 = 2**63 - 1


def _integer_text(low: int | None, high: int | None) -> st.SearchStrategy[str]:
    low = -_INT64 if low is None else low
    high = _INT64 if high is None else high
    numbers = st.integers(low, high)
    padded = st.integers(max(low, 0), high).map(lambda n: f"0{n}")  # leading zeros are still an integer
    return numbers.map(str) | padded


def parameter_values(definition: Mapping[str, Any]) -> st.SearchStrategy[str]:
    """Values of one operation parameter, written as strings as the order's `parameters` are."""
    if definition["type"] == "integer":
        return _integer_text(definition.get("minimum"), definition.get("maximum"))
    if "format" in definition:
        return registry_values(definition["format"])
    return tokens()


def report_parameters(
    operation: Mapping[str, Any], overrides: Mapping[str, st.SearchStrategy[str]] | None = None
) -> st.SearchStrategy[dict[str, str]]:
    """The `parameters` of an order of `operation`: its required ones, maybe its optional ones, maybe
    more keys (the dictionary is open)."""
    chosen = dict(overrides or {})
    required: dict[str, st.SearchStrategy[str]] = {}
    optional: dict[str, st.SearchStrategy[str]] = {}
    for definition in operation["parameter"]:
        name = definition["name"]
        values = chosen.get(name, parameter_values(definition))
        (required if definition.get("required") else optional)[name] = values
    declared = st.fixed_dictionaries(required, optional=optional)
    names = tokens().filter(lambda name: name not in required and name not in optional)
    extras = st.dictionaries(names, texts(), max_size=MAX_ITEMS)
    return st.builds(lambda extra, known: {**extra, **known}, extras, declared)


def report_order(
    contract: Contract,
    *,
    public_key_pem: str | None = None,
    report_id: str | None = None,
    storage: st.SearchStrategy[dict[str, str]] | None = None,
    parameters: Mapping[str, st.SearchStrategy[str]] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid report orders: no error from the validator (a 2048-bit key is a warning).

    `public_key_pem` fixes the key (default: the key pool), `report_id` the report (default: any
    operation of the contract), `storage` the delivery target (default: any storage type of the
    schema), `parameters` the values of some parameters by name (e.g. the company's NIP for
    `CompanyTaxNo`, or the years a server can compute for `Year`)."""
    if report_id is not None and report_id not in contract.operations:
        raise ValueError(f"{report_id!r} is not a report of the contract: {', '.join(sorted(contract.operations))}")
    report_ids = st.just(report_id) if report_id is not None else st.sampled_from(sorted(contract.operations))
    keys = st.just(public_key_pem) if public_key_pem is not None else public_key_pems()

    def for_report(chosen: str) -> st.SearchStrategy[dict[str, Any]]:
        operation = contract.operations[chosen]
        needs_parameters = any(p.get("required") for p in operation["parameter"])
        fields = {
            "reportId": st.just(chosen),
            "format": st.sampled_from(report_formats()),
            "publicKeyPem": keys,
            "runAt": run_times(),
            "storage": storage if storage is not None else storages(),
        }
        optional = {"groupId": tokens(), "compression": st.booleans()}
        (fields if needs_parameters else optional)["parameters"] = report_parameters(operation, parameters)
        return st.fixed_dictionaries(fields, optional=optional)

    return report_ids.flatmap(for_report)
