"""The Notification of a change: built with exactly the contract's elements and judged by the validator before
the outbox (reference_impl.outbox) pushes it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from profiles import Contract
from profiles.validator import Validator

__all__ = ["build_notification"]

_LOGICAL = ("system", "value")
"""The members of an identifier a Notification names its resource by."""


def build_notification(
    contract: Contract,
    *,
    resource_type: str,
    identifier: Mapping[str, Any],
    operation: str,
    date: str,
    status: str = "completed",
    notification_id: str,
    validator: Validator | None = None,
) -> dict[str, Any]:
    """A Notification with exactly the contract's elements: id, resourceType, status, operation,
    date and a logical reference {type, identifier}; no identifier, no contained, no URL.

    Raises ValueError for a code outside the contract's value sets and for a Notification the
    validator finds an error in (a date without a time zone, an identifier outside this
    installation's namespaces or without a value...). `validator` is the service's; without one, a
    new one is built for the call.
    """
    vocab_url = contract.installation.values["vocab_url"]
    notification = {
        "id": notification_id,
        "resourceType": "Notification",
        "status": _concept(contract, f"{vocab_url}/notification-status", status),
        "operation": _concept(contract, f"{vocab_url}/notification-operation", operation),
        "date": date,
        "reference": {"type": resource_type, "identifier": {k: identifier[k] for k in _LOGICAL if k in identifier}},
    }
    issues = (validator or Validator(contract)).iter_issues(notification, resource_type="Notification")
    errors = [f"{issue.location or '/'}: {issue.message}" for issue in issues if issue.is_error]
    if errors:
        raise ValueError(f"not a Notification of the contract: {'; '.join(errors)}")
    _refuse_what_names_nothing(identifier.get("value"), date)
    return notification


def _concept(contract: Contract, url: str, code: str) -> dict[str, Any]:
    value_set = contract.value_set_resources[url]
    for include in value_set["compose"]["include"]:
        for concept in include.get("concept", []):
            if concept["code"] == code:
                return {"coding": [{"system": include["system"], "code": code, "display": concept["display"]}]}
    raise ValueError(f"{code!r} is not a code of {url}")


def _refuse_what_names_nothing(value: Any, date: str) -> None:
    """Stricter than the contract, which fixes neither: an empty identifier value names no resource, and
    a date of the right form may be no moment at all (2024-02-30, a leap second)."""
    if not value:
        raise ValueError("identifier needs a value: an empty one names no resource")
    try:
        datetime.fromisoformat(date)
    except ValueError:
        raise ValueError(f"date {date!r} is not an ISO 8601 date-time: no such moment") from None
