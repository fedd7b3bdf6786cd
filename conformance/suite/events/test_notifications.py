"""Notifications: a create and an update of a Contractor each push a Notification to the suite's receiver,
shaped exactly as the contract says (no identifier, no contained, no business content, codes of the
notification vocabularies), naming the party by a logical reference {type, identifier}; a read by that
identifier returns the party's current state.

Only for a target whose description declares `[features] notifications = true` and pushes to the
receiver (`[receiver]`; how a consumer registers is not shown, ERIS-EVT-004). Notifications of other
changes may arrive too: the suite picks its own as those that name its party. A notification that names
it wrongly (a literal URL instead of a logical identifier) or with a code outside the operation vocabulary
is still picked, so that it fails the requirement it breaks rather than a wait. Each test records what it
finds per requirement (`findings`): a wrong status fails ERIS-NOTIF-003, not the push itself. The
receiver listens on one port, so these tests run in the "receiver" xdist group."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.configuration.target import Target
from conformance.harness.plugin import Api, Findings, SuiteReceiver, blocked, not_exercised
from conformance.suite.support.reads import as_object
from conformance.suite.support.writes import (
    codes,
    contractor_body,
    create_contractor,
    display_name,
    identifiers,
    installation_systems,
    nip_system,
    owner_nip_exercise,
    owner_nip_of,
    read_parties,
    register_identifier,
    token,
    unique_name,
    vocab,
)
from profiles import Contract

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
BUSINESS_ELEMENTS = ("name", "number", "address", "contactPoint", "partOf")
"""Elements of a Party that a Notification must not carry (it carries no business content)."""
NOT_THE_RESOURCE = ("identifier", "contained")
OPERATIONS = ("created", "updated", "deleted")
BY_LOCATION = {
    "identifier": "ERIS-NOTIF-002",
    "contained": "ERIS-NOTIF-002",
    "status": "ERIS-NOTIF-003",
    "operation": "ERIS-NOTIF-004",
    "reference": "ERIS-NOTIF-005",
}
"""The requirement a validator issue at /<element> breaks: the element's own row of the catalogue."""


@pytest.fixture
def pushed(target: Target, request: pytest.FixtureRequest) -> SuiteReceiver:
    """The receiver, when the target pushes notifications to it."""
    if not target.notifications:
        not_exercised(
            "the target description does not declare [features] notifications = true: the suite has no target that "
            "pushes Notification resources to its receiver",
            exercise="[features] notifications = true, and the receiver's address ([receiver] port, or public_url) "
            "given to the target as where it pushes",
        )
    return request.getfixturevalue("receiver")


def _names(contract: Contract, party: dict[str, Any]) -> Any:
    """A predicate: a notification that names `party`, by one of its installation identifiers in
    reference.identifier, or (wrongly, which the checks then report) by its id or one of those identifier
    values anywhere in a reference without a logical identifier."""
    keys = set(identifiers(party, installation_systems(contract)))
    mentions = {str(party.get("id"))} | {value for _, value in keys}

    def names(notification: dict[str, Any]) -> bool:
        reference = notification.get("reference")
        if not isinstance(reference, dict):
            return False
        identifier = reference.get("identifier")
        if isinstance(identifier, dict):
            return (identifier.get("system"), identifier.get("value")) in keys
        strings = [value for value in reference.values() if isinstance(value, str)]
        return any(mention in string for string in strings for mention in mentions)

    return names


def _of_operation(contract: Contract, party: dict[str, Any], operation: str) -> Any:
    """A predicate: a notification naming `party` whose operation is `operation`, or none of the vocabulary's
    (a code outside it is a finding of its own, not a reason to wait for ever)."""
    names = _names(contract, party)
    system = f"{vocab(contract)}/notification-operation"

    def of_operation(notification: dict[str, Any]) -> bool:
        found = codes(notification.get("operation"), system) & set(OPERATIONS)
        return names(notification) and (operation in found or not found)

    return of_operation


def _after_the_create(contract: Contract, party: dict[str, Any], created: list[dict[str, Any]]) -> Any:
    """A predicate for the update's notification: one naming `party` with operation updated (or none of the
    vocabulary's), after the first one naming it with created (or none of the vocabulary's), which is the
    create's and goes to `created`. The receiver shows notifications in the order they arrived."""
    of_create, of_update = _of_operation(contract, party, "created"), _of_operation(contract, party, "updated")

    def after_the_create(notification: dict[str, Any]) -> bool:
        if not created and of_create(notification):
            created.append(notification)
            return False
        return of_update(notification)

    return after_the_create


def _wait(
    receiver: SuiteReceiver,
    target: Target,
    predicate: Any,
    what: str,
    findings: Findings,
    api: Api | None = None,
    *,
    since: int,
) -> dict[str, Any] | None:
    """The first notification `predicate` picks; None when none arrives, recorded against ERIS-EVT-003 when
    notifications of parties did arrive after the first `since` (those received before the write) but name
    identifiers that no read finds, else against ERIS-EVT-001."""
    try:
        return receiver.wait_for_notification(predicate, target.delivery_timeout)
    except TimeoutError as error:
        arrived = receiver.notifications()[since:]
        unreadable = _unreadable(api, arrived) if api is not None else []
        if unreadable:
            findings.add(
                "ERIS-EVT-003",
                f"no Notification of {what} names an identifier of it; notifications of parties arrived naming "
                f"identifiers that no read finds: {unreadable[:3]}",
            )
            return None
        seen = [
            f"{sorted(codes(n.get('operation')), key=str)} of {n.get('reference')}"
            for n in receiver.notifications()[-5:]
        ]
        findings.add(
            "ERIS-EVT-001",
            f"no Notification of {what} naming it reached the receiver {receiver.notification_url}: {error}"
            + (f"; the last ones received: {'; '.join(seen)}" if seen else ""),
        )
        return None


def _unreadable(api: Api, notifications: list[dict[str, Any]]) -> list[str]:
    """The identifiers named by Party notifications among `notifications` that GET /v1/parties does not find
    ("To learn the current state the consumer issues a separate read")."""
    found = []
    for notification in notifications[-5:]:
        reference = as_object(notification.get("reference"))
        named = as_object(reference.get("identifier"))
        system, value = named.get("system"), named.get("value")
        if not (reference.get("type") == "Party" and isinstance(system, str) and isinstance(value, str)):
            continue
        if not read_parties(api, system, value):
            found.append(token(system, value))
    return found


def _check(
    api: Api,
    contract: Contract,
    notification: dict[str, Any],
    party: dict[str, Any],
    operation: str,
    findings: Findings,
) -> tuple[str, str] | None:
    """Record what is wrong with the notification, per requirement; the logical identifier it names (None
    when it names none of the party's installation identifiers)."""
    for issue in api.validator.validate(notification, resource_type="Notification"):
        if issue.is_error:
            element = (issue.location or "/").split("/")[1] if issue.location else ""
            requirement = BY_LOCATION.get(element) or issue.requirement or "ERIS-NOTIF-001"
            findings.add(requirement, f"{issue.location or '/'}: {issue.message} [{issue.code}]")
    if notification.get("resourceType") != "Notification":
        findings.add("ERIS-NOTIF-001", f"resourceType is {notification.get('resourceType')!r}, not Notification")
    for element in NOT_THE_RESOURCE:
        if element in notification:
            findings.add("ERIS-NOTIF-002", f"the Notification carries {element!r}: it has none")
    present = [element for element in BUSINESS_ELEMENTS if element in notification]
    if present:
        findings.add("ERIS-NOTIF-006", f"the Notification carries {present}: it has no content of the resource")
    name = display_name(party)
    if name and name in json.dumps(notification, ensure_ascii=False):
        findings.add("ERIS-NOTIF-006", f"the Notification carries the party's name {name!r}, business content")
    status_codes = codes(notification.get("status"), f"{vocab(contract)}/notification-status")
    if not status_codes or not status_codes <= {"completed", "failed", "pending"}:
        findings.add("ERIS-NOTIF-003", f"the Notification's status {notification.get('status')} is not a code of it")
    operations = codes(notification.get("operation"), f"{vocab(contract)}/notification-operation")
    if operations != {operation}:
        findings.add(
            "ERIS-NOTIF-004",
            f"the Notification of a {operation} party has operation {notification.get('operation')}",
        )
    reference = as_object(notification.get("reference"))
    if reference.get("type") != "Party":
        findings.add("ERIS-NOTIF-005", f"the Notification's reference.type is {reference.get('type')!r}, not Party")
    named = as_object(reference.get("identifier"))
    key = (named.get("system"), named.get("value"))
    if key not in identifiers(party, installation_systems(contract)):
        findings.add(
            "ERIS-NOTIF-005",
            f"the Notification names the party by {reference}, not by a logical identifier "
            "(reference.identifier) in an installation namespace of the party",
        )
        return None
    return key


def _read_back(api: Api, key: tuple[str, str], party: dict[str, Any], findings: Findings) -> dict[str, Any] | None:
    """The party read by the notified identifier; recorded against ERIS-EVT-003 when it is not the one."""
    found = read_parties(api, *key)
    if [item.get("id") for item in found] != [party.get("id")]:
        findings.add(
            "ERIS-EVT-003",
            f"GET /v1/parties?identifier={token(*key)} (the notified identifier) returns "
            f"{[item.get('id') for item in found]}, not exactly the party {party.get('id')}",
        )
        return None
    return found[0]


@RECEIVER_GROUP
@pytest.mark.requirement(*NOTIFIED)
def test_a_created_contractor_is_notified_and_reads_back_by_the_notified_identifier(
    api: Api, contract: Contract, target: Target, pushed: SuiteReceiver, findings: Findings
) -> None:
    # counted before the write: its notification may arrive before the wait begins
    received = len(pushed.notifications())
    _, party = create_contractor(api, contract, unique_name("Powiadomiony"))
    notification = _wait(
        pushed,
        target,
        _of_operation(contract, party, "created"),
        f"the created party {party.get('id')}",
        findings,
        api,
        since=received,
    )
    if notification is not None and (key := _check(api, contract, notification, party, "created", findings)):
        _read_back(api, key, party, findings)
    findings.check()


@RECEIVER_GROUP
@pytest.mark.requirement(*NOTIFIED)
def test_an_updated_contractor_is_notified_and_a_read_returns_its_current_state(
    api: Api, contract: Contract, target: Target, pushed: SuiteReceiver, findings: Findings
) -> None:
    owner = owner_nip_of(api, contract)
    if owner is None:
        not_exercised(
            "GET /v1/parties showed no owner NIP (no Contractor owned by a NIP, no Employer with a NIP), which the "
            "owner parameter of PATCH /v1/parties needs",
            exercise=owner_nip_exercise(contract),
        )
    received = len(pushed.notifications())
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
    if response.status_code != 200:  # PATCH is ERIS-PARTY-015's own test; here it is the way to a notification
        blocked("ERIS-PARTY-015", f"PATCH /v1/parties answered {response.status_code}: {response.text[:300]}")
    api.judge(response.json(), "Party", where="the Party answered by PATCH /v1/parties")
    updated = response.json()
    created: list[dict[str, Any]] = []
    notification = _wait(
        pushed,
        target,
        _after_the_create(contract, party, created),
        f"the updated party {party.get('id')}",
        findings,
        api,
        since=received,
    )
    if notification is not None:
        key = _check(api, contract, notification, updated, "updated", findings)
        found = _read_back(api, key, party, findings) if key else None
        if found is not None and display_name(found) != renamed:
            findings.add("ERIS-EVT-003", "a read by the notified identifier does not return the current state")
        for earlier in created:
            if earlier.get("id") == notification.get("id"):
                findings.add(
                    "ERIS-NOTIF-001",
                    f"the Notifications of the create and of the update have the same id {notification.get('id')!r}: "
                    "id is the notification's own",
                )
    findings.check()


@pytest.mark.requirement("ERIS-EVT-002")
def test_there_is_no_get_collection_of_notifications(api: Api) -> None:
    response = api.get("/v1/notifications")
    assert 400 <= response.status_code < 500, (
        f"GET /v1/notifications answered {response.status_code}: notifications are only pushed"
    )
