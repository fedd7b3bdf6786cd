"""Notifications: a create and an update of a Contractor each push a Notification to the suite's receiver,
shaped exactly as the contract says (checked by the validator as a Notification: no identifier, no
contained, no business content), naming the party by a logical reference {type, identifier}; a read by
that identifier returns the party's current state.

Only for a target whose description declares `[features] notifications = true` and pushes to the
receiver (`[receiver]`; how a consumer registers is not shown, ERIS-EVT-004). Notifications of other
changes may arrive too: the suite picks its own by the party's identifier. The receiver listens on one
port, so these tests run in the "receiver" xdist group."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suite._writes import (
    codes,
    contractor_body,
    create_contractor,
    display_name,
    identifiers,
    installation_systems,
    nip_system,
    only,
    owner_nip_of,
    read_parties,
    register_identifier,
    token,
    unique_name,
    vocab,
)

RECEIVER_GROUP = pytest.mark.xdist_group("receiver")
NOTIFIED = (
    "ERIS-EVT-001",
    "ERIS-EVT-003",
    "ERIS-NOTIF-001",
    "ERIS-NOTIF-002",
    "ERIS-NOTIF-003",
    "ERIS-NOTIF-004",
    "ERIS-NOTIF-005",
    "ERIS-NOTIF-006",
)
"""What a notified create or update checks: the push, the read it leads to, and the Notification's shape."""
BUSINESS_ELEMENTS = ("name", "number", "address", "contactPoint", "partOf", "identifier", "contained")


@pytest.fixture
def pushed(target: Any, request: pytest.FixtureRequest) -> Any:
    """The receiver, when the target pushes notifications to it."""
    if not target.notifications:
        pytest.skip(
            "the target description does not declare [features] notifications = true "
            "(the target pushes Notification resources to the suite's [receiver])"
        )
    return request.getfixturevalue("receiver")


def _names(contract: Any, party: dict[str, Any]) -> Any:
    """A predicate: a notification whose reference names `party` by one of its installation identifiers."""
    keys = set(identifiers(party, installation_systems(contract)))

    def names(notification: dict[str, Any]) -> bool:
        reference = notification.get("reference")
        identifier = reference.get("identifier") if isinstance(reference, dict) else None
        return isinstance(identifier, dict) and (identifier.get("system"), identifier.get("value")) in keys

    return names


def _with_operation(contract: Any, party: dict[str, Any], operation: str) -> Any:
    names = _names(contract, party)
    system = f"{vocab(contract)}/notification-operation"
    return lambda n: names(n) and operation in codes(n.get("operation"), system)


def _wait(receiver: Any, target: Any, predicate: Any, what: str) -> dict[str, Any]:
    try:
        return receiver.wait_for_notification(predicate, target.delivery_timeout)
    except TimeoutError as error:
        seen = [
            f"{sorted(codes(n.get('operation')), key=str)} of {n.get('reference')}"
            for n in receiver.notifications()[-5:]
        ]
        pytest.fail(
            f"no Notification of {what} naming it by one of its installation identifiers reached the receiver "
            f"{receiver.notification_url}: {error}" + (f"; the last ones received: {'; '.join(seen)}" if seen else "")
        )


def _check(
    api: Any, contract: Any, notification: dict[str, Any], party: dict[str, Any], operation: str
) -> tuple[str, str]:
    """The notification's shape, by the validator and by the contract's words; its logical identifier."""
    api.assert_valid(notification, "Notification", where=f"the Notification of the {operation} party")
    assert notification.get("resourceType") == "Notification"
    present = [element for element in BUSINESS_ELEMENTS if element in notification]
    assert not present, f"the Notification carries {present}: it has no identifier and no content of the resource"
    assert codes(notification["operation"], f"{vocab(contract)}/notification-operation") == {operation}, (
        f"the Notification of a {operation} party has operation {notification['operation']}"
    )
    reference = notification["reference"]
    assert reference.get("type") == "Party", (
        f"the Notification's reference.type is {reference.get('type')!r}, not Party"
    )
    key = (reference["identifier"].get("system"), reference["identifier"].get("value"))
    assert key in identifiers(party, installation_systems(contract)), (
        f"the Notification names {token(*key)}, not an installation identifier of the party"
    )
    return key


@RECEIVER_GROUP
@pytest.mark.requirement(*NOTIFIED)
def test_a_created_contractor_is_notified_and_reads_back_by_the_notified_identifier(
    api: Any, contract: Any, target: Any, pushed: Any
) -> None:
    _, party = create_contractor(api, contract, unique_name("Powiadomiony"))
    notification = _wait(
        pushed, target, _with_operation(contract, party, "created"), f"the created party {party.get('id')}"
    )
    key = _check(api, contract, notification, party, "created")
    found = only(read_parties(api, *key), f"GET /v1/parties?identifier={token(*key)} (the notified identifier)")
    assert found.get("id") == party.get("id"), "a read by the notified identifier returns another party"


@RECEIVER_GROUP
@pytest.mark.requirement(*NOTIFIED)
def test_an_updated_contractor_is_notified_and_a_read_returns_its_current_state(
    api: Any, contract: Any, target: Any, pushed: Any
) -> None:
    owner = owner_nip_of(api, contract)
    if owner is None:
        pytest.skip("the target shows no owner NIP, which PATCH /v1/parties needs")
    _, party = create_contractor(api, contract, unique_name("Zmieniany"), owner_nip=owner)
    system, value = register_identifier(contract, party)
    renamed = unique_name("Zmieniony")
    body = contractor_body(contract, renamed, namespace=False, owner_nip=owner)
    api.assert_valid(body, "Party", where="the suite's PATCH body", context="write")
    response = api.patch(
        "/v1/parties",
        json=body,
        params={"identifier": token(system, value), "owner": token(nip_system(contract), owner)},
    )
    assert response.status_code == 200, f"PATCH /v1/parties answered {response.status_code}: {response.text[:300]}"
    api.assert_valid(response.json(), "Party", where="the Party answered by PATCH /v1/parties")
    notification = _wait(
        pushed, target, _with_operation(contract, party, "updated"), f"the updated party {party.get('id')}"
    )
    key = _check(api, contract, notification, party, "updated")
    found = only(read_parties(api, *key), f"GET /v1/parties?identifier={token(*key)} (the notified identifier)")
    assert found.get("id") == party.get("id"), "a read by the notified identifier returns another party"
    assert display_name(found) == renamed, "a read by the notified identifier does not return the current state"
    earlier = [n for n in pushed.notifications() if _with_operation(contract, party, "created")(n)]
    for created in earlier:
        assert created.get("id") != notification.get("id"), (
            "the Notifications of the create and of the update have the same id: id is the notification's own"
        )


@pytest.mark.requirement("ERIS-EVT-002")
def test_there_is_no_get_collection_of_notifications(api: Any) -> None:
    response = api.get("/v1/notifications")
    assert 400 <= response.status_code < 500, (
        f"GET /v1/notifications answered {response.status_code}: notifications are only pushed"
    )
