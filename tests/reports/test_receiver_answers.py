"""What the receiver answers besides a delivery: injected failures, refused names, paths and methods, the record."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path

import httpx
import pytest
from receiver_requests import notification_about, part_files

from reports.receiver import Receiver


def test_fail_next_answers_the_status_then_serves_again(receiver: Receiver, client: httpx.Client) -> None:
    receiver.fail_next(1)

    failed = client.post(receiver.delivery_url("retried"), content=b"a" * 100_000)
    served = client.post(receiver.delivery_url("retried"), content=b"b" * 100_000)

    assert failed.status_code == 500
    assert served.status_code == 200
    assert [d.path.read_bytes() for d in receiver.deliveries("retried")] == [b"b" * 100_000]
    assert part_files(receiver.directory) == []


def test_fail_next_counts_requests_of_any_kind(receiver: Receiver, client: httpx.Client) -> None:
    receiver.fail_next(2, status=503)

    statuses = [client.post(receiver.notification_url, json={"n": n}).status_code for n in range(3)]

    assert statuses == [503, 503, 200]
    assert receiver.notifications() == [{"n": 2}]


def test_fail_next_rejects_nonsense(receiver: Receiver) -> None:
    with pytest.raises(ValueError):
        receiver.fail_next(-1)
    with pytest.raises(ValueError):
        receiver.fail_next(1, status=200)


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a b", "r\u00e9port", "a%2Fb", "x" * 201])
def test_an_invalid_delivery_name_is_rejected(receiver: Receiver, name: str) -> None:
    with pytest.raises(ValueError, match="invalid delivery name"):
        receiver.delivery_url(name)
    with pytest.raises(ValueError, match="invalid delivery name"):
        receiver.wait_for_delivery(name, timeout=0)


@pytest.mark.parametrize("path", ["/reports/..", "/reports/.", "/reports/a%2Fb", "/reports/..%2Fescaped"])
def test_a_path_outside_the_directory_gets_404(receiver: Receiver, path: str) -> None:
    # http.client sends the path as written; httpx would resolve the dot segments first.
    connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=10)
    try:
        connection.request("POST", path, body=b"payload")
        status = connection.getresponse().status
    finally:
        connection.close()

    assert status == 404
    assert receiver.deliveries() == []
    assert [p.name for p in receiver.directory.parent.iterdir()] == [receiver.directory.name]
    assert list(receiver.directory.iterdir()) == []


def test_other_paths_and_methods_are_refused(receiver: Receiver, client: httpx.Client) -> None:
    assert client.get(receiver.delivery_url("order")).status_code == 405
    assert client.put(receiver.delivery_url("order"), content=b"x").status_code == 405
    assert client.get(receiver.notification_url).status_code == 405
    assert client.post(f"{receiver.url}/elsewhere", content=b"x").status_code == 404
    assert client.post(f"{receiver.url}/reports", content=b"x").status_code == 404
    assert receiver.deliveries() == []


def test_urls(tmp_path: Path) -> None:
    receiver = Receiver(tmp_path)
    with pytest.raises(RuntimeError):
        _ = receiver.url
    with receiver:
        assert receiver.url == f"http://127.0.0.1:{receiver.port}"
        assert receiver.delivery_url("o-1.x_y") == f"{receiver.url}/reports/o-1.x_y"
        assert receiver.notification_url == f"{receiver.url}/notifications"
    public = Receiver(tmp_path, public_url="https://tunnel.example/eris/")
    assert public.delivery_url("o") == "https://tunnel.example/eris/reports/o"


def test_exchanges_record_every_request_with_its_answer(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.delivery_url("order"), content=b"z" * 5000)
    notification = json.dumps(notification_about("p1")).encode()
    client.post(receiver.notification_url, content=notification, headers={"Content-Type": "application/json"})
    client.get(receiver.delivery_url("order"))
    receiver.fail_next(1, status=502)
    client.post(receiver.delivery_url("order"), content=b"w" * 10)

    exchanges = receiver.exchanges()

    assert [(e.method, e.url, e.status) for e in exchanges] == [
        ("POST", receiver.delivery_url("order"), 200),
        ("POST", receiver.notification_url, 200),
        ("GET", receiver.delivery_url("order"), 405),
        ("POST", receiver.delivery_url("order"), 502),
    ]
    artifact, pushed, refused, failed = exchanges
    assert artifact.request_body is None
    assert artifact.request_body_size == 5000
    assert json.loads(artifact.response_body)["received"] == 5000
    assert artifact.response_headers["content-type"].startswith("application/json")
    assert artifact.response_headers["content-length"] == str(len(artifact.response_body))
    assert pushed.request_body == notification
    assert pushed.request_body_size == len(notification)
    assert pushed.request_headers["content-type"] == "application/json"
    assert refused.request_body_size == 0
    assert refused.response_headers["allow"] == "POST"
    assert failed.request_body_size == 10
    assert b"502" in failed.response_body
    for exchange in exchanges:
        assert exchange.duration >= 0
        assert abs(exchange.started - time.time()) < 60
    assert [e.started for e in exchanges] == sorted(e.started for e in exchanges)
