"""A receiver started and stopped: its port freed, kept on restart, refused when taken; its directory kept or not."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import httpx
import pytest

from reports.receiver import Delivery, Receiver, ReceiverStartError


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
