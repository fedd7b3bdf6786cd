"""Tests of the integrator's local HTTP receiver (reports/receiver.py): real servers on 127.0.0.1, driven with
httpx the way a service delivering reports and pushing notifications would."""

from __future__ import annotations

import errno
import hashlib
import http.client
import json
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from reports.receiver import Delivery, Receiver, ReceiverStartError


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    with Receiver(tmp_path / "deliveries") as started:
        yield started


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as session:
        yield session


def _eventually(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``condition`` becomes true within ``timeout``: for states the receiver reaches on its own thread
    with nothing to wait on (a file removed after a broken upload)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def _part_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.part"))


def _post_later(url: str, delay: float, **kwargs: object) -> threading.Thread:
    def post() -> None:
        time.sleep(delay)
        httpx.post(url, timeout=30, **kwargs)

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


# Artifacts


def test_artifact_is_saved_byte_identically(receiver: Receiver, client: httpx.Client) -> None:
    artifact = random.Random(1).randbytes(3 * (1 << 20) + 123)
    response = client.post(
        receiver.delivery_url("order-1"),
        content=artifact,
        headers={"Content-Type": "application/octet-stream", "X-Execution-Id": "exec-42"},
    )

    assert response.status_code == 200
    expected_sha256 = hashlib.sha256(artifact).hexdigest()
    assert response.json() == {"received": len(artifact), "sha256": expected_sha256}
    delivery = receiver.wait_for_delivery("order-1", timeout=5)
    assert delivery.name == "order-1"
    assert delivery.path == receiver.directory / "order-1"
    assert delivery.path.read_bytes() == artifact
    assert delivery.size == len(artifact)
    assert delivery.sha256 == expected_sha256
    assert delivery.headers["content-type"] == "application/octet-stream"
    assert delivery.headers["x-execution-id"] == "exec-42"
    assert abs(delivery.received_at - time.time()) < 60
    assert _part_files(receiver.directory) == []


def test_large_streamed_upload_is_saved_correctly(receiver: Receiver, client: httpx.Client) -> None:
    chunk_count, chunk_size = 50, 1 << 20
    sent = hashlib.sha256()
    generator = random.Random(7)

    def body() -> Iterator[bytes]:
        # A generator body: httpx sends it chunked, as a service streaming an artifact from disk would.
        for _ in range(chunk_count):
            chunk = generator.randbytes(chunk_size)
            sent.update(chunk)
            yield chunk

    response = client.post(receiver.delivery_url("large"), content=body())

    assert response.status_code == 200, response.text
    delivery = receiver.wait_for_delivery("large", timeout=5)
    assert delivery.size == chunk_count * chunk_size
    assert delivery.sha256 == sent.hexdigest()
    assert delivery.headers.get("transfer-encoding") == "chunked"
    on_disk = hashlib.sha256()
    with delivery.path.open("rb") as saved:
        while block := saved.read(1 << 20):
            on_disk.update(block)
    assert on_disk.hexdigest() == sent.hexdigest()
    assert delivery.path.stat().st_size == chunk_count * chunk_size


def test_repeated_delivery_is_kept_as_a_second_file(receiver: Receiver, client: httpx.Client) -> None:
    assert client.post(receiver.delivery_url("order"), content=b"first").status_code == 200
    assert client.post(receiver.delivery_url("order"), content=b"second").status_code == 200
    assert client.post(receiver.delivery_url("other"), content=b"third").status_code == 200

    repeats = receiver.deliveries("order")
    assert [d.path.name for d in repeats] == ["order", "order.2"]
    assert [d.path.read_bytes() for d in repeats] == [b"first", b"second"]
    assert [d.name for d in receiver.deliveries()] == ["order", "order", "other"]
    assert receiver.wait_for_delivery("order", timeout=1).path.read_bytes() == b"first"


def test_a_file_already_in_the_directory_is_not_overwritten(tmp_path: Path, client: httpx.Client) -> None:
    (tmp_path / "order").write_bytes(b"from an earlier run")
    with Receiver(tmp_path) as receiver:
        client.post(receiver.delivery_url("order"), content=b"new")
        delivery = receiver.wait_for_delivery("order", timeout=5)

    assert (tmp_path / "order").read_bytes() == b"from an earlier run"
    assert delivery.path == tmp_path / "order.2"
    assert delivery.path.read_bytes() == b"new"


def test_a_broken_upload_never_becomes_a_delivery(receiver: Receiver) -> None:
    with socket.create_connection(("127.0.0.1", receiver.port)) as connection:
        connection.sendall(
            b"POST /reports/broken HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1000
        )
        assert _eventually(lambda: bool(_part_files(receiver.directory))), "the upload never started"

    assert _eventually(lambda: not _part_files(receiver.directory)), "the .part file of a broken upload remained"
    assert receiver.deliveries() == []
    assert not (receiver.directory / "broken").exists()


def test_wait_for_delivery_wakes_up_when_the_delivery_arrives(receiver: Receiver) -> None:
    poster = _post_later(receiver.delivery_url("late"), delay=0.3, content=b"artifact")
    started = time.monotonic()

    delivery = receiver.wait_for_delivery("late", timeout=20)

    assert delivery.path.read_bytes() == b"artifact"
    assert time.monotonic() - started < 10
    poster.join()


def test_wait_for_delivery_times_out_naming_the_url(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.delivery_url("someone-else"), content=b"x")
    started = time.monotonic()

    with pytest.raises(TimeoutError, match=re.escape(receiver.delivery_url("missing"))) as raised:
        receiver.wait_for_delivery("missing", timeout=0.3)

    assert time.monotonic() - started >= 0.3
    assert "someone-else" in str(raised.value)


# Failure injection


def test_fail_next_answers_the_status_then_serves_again(receiver: Receiver, client: httpx.Client) -> None:
    receiver.fail_next(1)

    failed = client.post(receiver.delivery_url("retried"), content=b"a" * 100_000)
    served = client.post(receiver.delivery_url("retried"), content=b"b" * 100_000)

    assert failed.status_code == 500
    assert served.status_code == 200
    assert [d.path.read_bytes() for d in receiver.deliveries("retried")] == [b"b" * 100_000]
    assert _part_files(receiver.directory) == []


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


# Notifications


def _notification(identifier: str) -> dict[str, object]:
    return {
        "resourceType": "Notification",
        "id": f"n-{identifier}",
        "reference": {"type": "Party", "identifier": {"system": "urn:example", "value": identifier}},
    }


def test_notifications_are_recorded_and_waited_on(receiver: Receiver, client: httpx.Client) -> None:
    for identifier in ("p1", "p2"):
        assert client.post(receiver.notification_url, json=_notification(identifier)).status_code == 200
    poster = _post_later(receiver.notification_url, delay=0.3, json=_notification("p3"))

    def about(identifier: str) -> Callable[[dict], bool]:
        return lambda n: n.get("reference", {}).get("identifier", {}).get("value") == identifier

    assert receiver.wait_for_notification(about("p2"), timeout=1)["id"] == "n-p2"
    assert receiver.wait_for_notification(about("p3"), timeout=20)["id"] == "n-p3"
    poster.join()
    assert [n["id"] for n in receiver.notifications()] == ["n-p1", "n-p2", "n-p3"]


def test_records_cannot_be_changed_through_what_is_returned(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.notification_url, json=_notification("p1"))

    receiver.notifications()[0]["id"] = "changed"
    receiver.wait_for_notification(lambda n: True, timeout=1)["id"] = "changed"

    assert receiver.notifications()[0]["id"] == "n-p1"


def test_wait_for_notification_times_out_naming_the_url(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.notification_url, json=_notification("p1"))

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
    assert client.post(f"{receiver.url}/hooks/eris", json=_notification("p1")).status_code == 200
    assert client.post(f"{receiver.url}/", json=_notification("p2")).status_code == 200
    assert client.post(f"{receiver.url}/hooks/eris", json=[_notification("p3")]).status_code == 404

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


# Names, paths and methods


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


# Exchanges


def test_exchanges_record_every_request_with_its_answer(receiver: Receiver, client: httpx.Client) -> None:
    client.post(receiver.delivery_url("order"), content=b"z" * 5000)
    notification = json.dumps(_notification("p1")).encode()
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


# Lifecycle


def test_a_new_receiver_can_listen_on_the_port_of_a_stopped_one(tmp_path: Path, client: httpx.Client) -> None:
    first = Receiver(tmp_path / "first").start()
    try:
        # The client keeps this connection alive, so stopping must also close connections in use.
        assert client.post(first.delivery_url("before"), content=b"1").status_code == 200
    finally:
        first.stop()
    with pytest.raises(httpx.TransportError):
        client.post(first.delivery_url("while-down"), content=b"2")

    with Receiver(tmp_path / "second", port=first.port) as second:
        assert second.url == first.url
        assert client.post(second.delivery_url("after"), content=b"3").status_code == 200
        assert second.wait_for_delivery("after", timeout=5).path.read_bytes() == b"3"


def test_a_restarted_receiver_keeps_its_port_and_records(tmp_path: Path, client: httpx.Client) -> None:
    receiver = Receiver(tmp_path)
    with receiver:
        url = receiver.url
        client.post(receiver.delivery_url("order"), content=b"1")
    with receiver:
        assert receiver.url == url
        client.post(receiver.delivery_url("order"), content=b"2")
        deliveries: list[Delivery] = receiver.deliveries("order")

    assert [d.path.read_bytes() for d in deliveries] == [b"1", b"2"]


def test_start_on_a_taken_port_raises_a_clear_error(receiver: Receiver) -> None:
    with pytest.raises(ReceiverStartError) as raised:
        Receiver(port=receiver.port).start()

    assert isinstance(raised.value, OSError)
    assert raised.value.errno == errno.EADDRINUSE
    assert f"127.0.0.1:{receiver.port}" in str(raised.value)
    assert "0 for any free port" in str(raised.value)


def test_stop_is_idempotent_joins_the_thread_and_removes_a_temporary_directory() -> None:
    receiver = Receiver()
    receiver.stop()
    receiver.start()
    directory = receiver.directory
    assert directory.is_dir()
    assert receiver.running

    receiver.stop()
    receiver.stop()

    assert not receiver.running
    assert not directory.exists()
    assert not [t for t in threading.enumerate() if t.name == "eris-receiver"]


def test_a_given_directory_is_kept_after_stop(tmp_path: Path, client: httpx.Client) -> None:
    with Receiver(tmp_path / "kept") as receiver:
        client.post(receiver.delivery_url("order"), content=b"data")

    assert (tmp_path / "kept" / "order").read_bytes() == b"data"
