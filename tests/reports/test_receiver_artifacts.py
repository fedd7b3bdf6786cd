"""The receiver saves each artifact POSTed to its delivery URL whole, never overwrites, and is waited on."""

from __future__ import annotations

import hashlib
import random
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from receiver_requests import part_files, post_later

from reports.receiver import Receiver


def _eventually(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``condition`` becomes true within ``timeout``: for states the receiver reaches on its own thread
    with nothing to wait on (a file removed after a broken upload)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


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
    assert part_files(receiver.directory) == []


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
        assert _eventually(lambda: bool(part_files(receiver.directory))), "the upload never started"

    assert _eventually(lambda: not part_files(receiver.directory)), "the .part file of a broken upload remained"
    assert receiver.deliveries() == []
    assert not (receiver.directory / "broken").exists()


def test_wait_for_delivery_wakes_up_when_the_delivery_arrives(receiver: Receiver) -> None:
    poster = post_later(receiver.delivery_url("late"), delay=0.3, content=b"artifact")
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
