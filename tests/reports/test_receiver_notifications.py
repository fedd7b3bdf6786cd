"""The receiver records each JSON object pushed to it as a notification, refuses other bodies, and is waited on."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest
from receiver_requests import notification_about, post_later

from reports.receiver import Receiver


def test_notifications_are_recorded_and_waited_on(receiver: Receiver, client: httpx.Client) -> None:
    for identifier in ("p1", "p2"):
        assert client.post(receiver.notification_url, json=notification_about(identifier)).status_code == 200
    poster = post_later(receiver.notification_url, delay=0.3, json=notification_about("p3"))

    def about(identifier: str) -> Callable[[dict], bool]:
        return lambda n: n.get("reference", {}).get("identifier", {}).get("value") == identifier

    assert receiver.wait_for_notification(about("p2"), timeout=1)["id"] == "n-p2"
    assert receiver.wait_for_notification(about("p3"), timeout=20)["id"] == "n-p3"
    poster.join()
    assert [n["id"] for n in receiver.notifications()] == ["n-p1", "n-p2", "n-p3"]


def test_records_cannot_be_changed_through_what_is_returned(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.notification_url, json=notification_about("p1"))

    receiver.notifications()[0]["id"] = "changed"
    receiver.wait_for_notification(lambda n: True, timeout=1)["id"] = "changed"

    assert receiver.notifications()[0]["id"] == "n-p1"


def test_wait_for_notification_times_out_naming_the_url(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.notification_url, json=notification_about("p1"))

    with pytest.raises(TimeoutError, match=re.escape(receiver.notification_url)):
        receiver.wait_for_notification(lambda n: n["id"] == "never", timeout=0.2)


@pytest.mark.parametrize(
    ("body", "explanation"),
    [(b"{not json", "not valid JSON"), (b"\xff\xfe", "not valid JSON"), (b"[1, 2]", "must be a JSON object")],
)
def test_a_notification_that_is_not_a_json_object_gets_400(
    receiver: Receiver, client: httpx.Client, body: bytes, explanation: str
) -> None:
    response = client.post(receiver.notification_url, content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert explanation in response.text
    assert receiver.notifications() == []


def test_a_json_object_pushed_to_any_other_path_is_a_notification(receiver: Receiver, client: httpx.Client) -> None:
    # The push address is not shown by the contract: a service configured with another path must not fail.
    assert client.post(f"{receiver.url}/hooks/eris", json=notification_about("p1")).status_code == 200
    assert client.post(f"{receiver.url}/", json=notification_about("p2")).status_code == 200
    assert client.post(f"{receiver.url}/hooks/eris", json=[notification_about("p3")]).status_code == 404

    assert [n["id"] for n in receiver.notifications()] == ["n-p1", "n-p2"]


def test_an_artifact_posted_below_its_delivery_url_is_delivered_under_its_name(
    receiver: Receiver, client: httpx.Client
) -> None:
    # The form of an http connectionString is open: a service may append a file name to the URL it was given.
    response = client.post(f"{receiver.delivery_url('order-7')}/3f0c.parquet.enc", content=b"sealed")

    assert response.status_code == 200
    delivery = receiver.wait_for_delivery("order-7", timeout=1)
    assert delivery.path.read_bytes() == b"sealed"
    assert receiver.notifications() == []
