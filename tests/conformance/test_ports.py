"""conformance.client.ports.free_port: a port nothing listens on, outside the range outgoing connections are given."""

from __future__ import annotations

import socket

from conformance.client import ports
from conformance.client.ports import ephemeral_range, free_port


def test_a_free_port_is_below_the_range_of_outgoing_connections_and_can_be_listened_on():
    low, high = ephemeral_range()
    assert 1024 <= low < high
    for _ in range(20):
        port = free_port()
        assert port < low
        with socket.socket() as server:
            server.bind(("127.0.0.1", port))
            server.listen()


def test_a_port_something_listens_on_is_passed_over(monkeypatch):
    other = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        taken.listen()
        held = taken.getsockname()[1]
        tries = iter([held, held, other])
        monkeypatch.setattr(ports.random, "randrange", lambda low, high: next(tries))
        assert free_port() == other
