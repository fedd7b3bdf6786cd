"""The Notifications build_notification makes validate against the contract; one outside it is refused."""

from __future__ import annotations

from typing import Any

import pytest
from outbox_fixtures import CONTRACT, CONTRACTOR, party_notification

from profiles.validator import Validator
from reference_impl.notifications import build_notification


def test_built_notification_validates_with_exactly_six_elements() -> None:
    notification = party_notification()
    assert Validator(CONTRACT).validate(notification) == []
    assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}
    assert notification["reference"] == {"type": "Party", "identifier": {"system": CONTRACTOR, "value": "K-0001"}}
    vocab_url = CONTRACT.installation.values["vocab_url"]
    assert notification["operation"]["coding"][0]["system"] == f"{vocab_url}/notification-operation"
    assert notification["status"]["coding"][0] == {
        "system": f"{vocab_url}/notification-status",
        "code": "completed",
        "display": "Completed",
    }


@pytest.mark.parametrize("operation", ["created", "updated", "deleted"])
@pytest.mark.parametrize("status", ["completed", "failed", "pending"])
def test_every_operation_and_status_validates(operation: str, status: str) -> None:
    notification = build_notification(
        CONTRACT,
        resource_type="FixedAssetDocument",
        identifier={"system": CONTRACT.installation_namespace_key("fixed-asset-document"), "value": "D-1"},
        operation=operation,
        status=status,
        date="2024-05-01T12:00:00.250+02:00",
        notification_id="n-1",
    )
    assert Validator(CONTRACT).validate(notification) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"operation": "merged"}, "not a code"),
        ({"status": "done"}, "not a code"),
        ({"date": "2024-05-01T12:00:00"}, "time zone"),
        ({"date": "yesterday"}, "ISO 8601"),
        ({"date": "2024-05-01T12:00:00+0200"}, "time zone"),
        ({"date": "2024-02-30T12:00:00Z"}, "no such moment"),
        ({"identifier": {"system": CONTRACT.installation.values["nip_system"], "value": "5260001246"}}, "namespace"),
        ({"identifier": {"system": "urn:oid:1.2.616.1.113769.4.999.1", "value": "1"}}, "namespace"),
        ({"identifier": {"system": CONTRACTOR}}, "value"),
        ({"identifier": {"system": CONTRACTOR, "value": ""}}, "value"),
    ],
)
def test_notification_outside_the_contract_is_refused(change: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {
        "resource_type": "Party",
        "identifier": {"system": CONTRACTOR, "value": "K-1"},
        "operation": "created",
        "date": "2024-05-01T12:00:00Z",
        "notification_id": "n-1",
    }
    with pytest.raises(ValueError, match=message):
        build_notification(CONTRACT, **{**arguments, **change})
