"""Faults of a valid order of POST /v1/reports and the answers the tests of conformance/suite/reports/test_errors.py
hold them to: the faults whose status the Errors part does not name (a Month outside 1..12, a missing parameter, a
required field missing or invalid), each refused as the client's fault and charged to the requirement of its field
(`assert_refused`); and the faults a drawn order is given in the property test, each with the requirement fixing its
answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from conformance.harness.plugin import Api, Findings
from conformance.suite.support.orders import REPORTS, assert_refused_as_client_fault
from profiles.limits import LIMITS

__all__ = [
    "DRAWN_ORDER_FAULTS",
    "FIELD_FAULTS",
    "MONTH_FAULTS",
    "ORDER_FAULTS",
    "PARAMETER_FAULTS",
    "assert_refused",
    "with_fault",
]

MONTH_FAULTS = {
    f"Month-{month}": ("parameters.Month", str(month)) for month in (LIMITS.month.minimum - 1, LIMITS.month.maximum + 1)
}
PARAMETER_FAULTS = {f"{name}-missing": (f"parameters.{name}", None) for name in ("CompanyTaxNo", "Year", "Month")}
FIELD_FAULTS = {
    "format-missing": ("format", None),
    "format-xml": ("format", "xml"),
    "runAt-missing": ("runAt", None),
    "runAt-not-a-date": ("runAt", "next Monday"),
    "storage-missing": ("storage", None),
    "storage-type-ftp": ("storage.type", "ftp"),
    "storage-connectionString-missing": ("storage.connectionString", None),
}
ORDER_FAULTS = {**MONTH_FAULTS, **PARAMETER_FAULTS, **FIELD_FAULTS}


def with_fault(order: dict[str, Any], fault: tuple[str, str | None]) -> tuple[dict[str, Any], str]:
    """The order with the field at the dotted path removed (value None) or replaced; and a description."""
    path, value = fault
    holder = order
    *parents, name = path.split(".")
    for parent in parents:
        holder = holder[parent]
    if value is None:
        del holder[name]
    else:
        holder[name] = value
    return order, f"an order with {path} {'missing' if value is None else repr(value)}"


FIELD_REQUIREMENTS = {"format": "ERIS-REPORT-001", "runAt": "ERIS-REPORT-004", "storage": "ERIS-REPORT-005"}
"""The requirement fixing each required field of an order (the parameters: ERIS-REPORT-008)."""
WRONG_STATUS_REQUIREMENTS = {401: "ERIS-ERR-303", 403: "ERIS-ERR-304", 404: "ERIS-ERR-305"}


def assert_refused(
    api: Api, token: str, order: dict[str, Any], fault: tuple[str, str | None], findings: Findings
) -> None:
    """Accepting the faulty order breaks the requirement of its field; a 5xx blames the service for the
    client's fault (ERIS-ERR-308); 401, 403 or 404 give a condition that is false here."""
    faulty, what = with_fault(order, fault)
    response = api.post(REPORTS, json=faulty, token=token)
    try:
        assert_refused_as_client_fault(response, what)
    except AssertionError as failure:
        status = response.status_code
        field = FIELD_REQUIREMENTS.get(fault[0].split(".")[0], "ERIS-REPORT-008")
        findings.add("ERIS-ERR-308" if status >= 500 else WRONG_STATUS_REQUIREMENTS.get(status, field), str(failure))
    findings.check()


# -- the faults of a drawn order ------------------------------------------------------------------------------

MONTHS_OUTSIDE = st.integers(max_value=LIMITS.month.minimum - 1) | st.integers(min_value=LIMITS.month.maximum + 1)
DRAWN_ORDER_FAULTS: dict[str, tuple[str, Callable[[dict[str, Any], Any], Any]]] = {
    # fault -> (requirement, change of a valid order)
    "publicKeyPem missing": ("ERIS-ERR-001", lambda order, draw: order.pop("publicKeyPem")),
    "reportId missing": ("ERIS-REPORT-006", lambda order, draw: order.pop("reportId")),
    "groupId instead of reportId": (
        "ERIS-REPORT-006",
        lambda order, draw: order.__setitem__("groupId", order.pop("reportId")),
    ),
    f"Month outside {LIMITS.month}": (
        "ERIS-REPORT-008",
        lambda order, draw: order["parameters"].__setitem__("Month", str(draw(MONTHS_OUTSIDE))),
    ),
}
