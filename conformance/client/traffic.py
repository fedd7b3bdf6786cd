"""Every HTTP exchange of a certification run, outbound (the suite asking the target) and inbound
(the target delivering to the suite's receiver), kept per test for the HAR log and the report."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from conformance.client.redaction import redacted_connection_strings, redacted_headers
from conformance.configuration.settings import DEFAULT_MAX_ANSWER_SIZE

__all__ = ["BODY_LIMIT", "Exchange", "Traffic", "exchange_of_cut_answer", "exchange_of_response"]

BODY_LIMIT = DEFAULT_MAX_ANSWER_SIZE
"""Bytes of a body kept for the record: every answer the suite reads by default, whole, so that `eris verify` can
answer from traffic.har what the target answered (a larger one is cut, and the HAR says so)."""


@dataclass(frozen=True)
class Exchange:
    direction: str
    """"outbound": the suite's request to the target; "inbound": the target's request to the receiver."""
    started: float
    duration: float
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str
    """Base64 of at most BODY_LIMIT bytes."""
    request_body_size: int
    status: int
    response_headers: dict[str, str]
    response_body: str
    response_body_size: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Exchange:
        return cls(**data)

    def curl(self, *, token_from_environment: bool = False) -> str:
        """A curl command that repeats an outbound request (bodies over the limit are cut).
        `token_from_environment`: a Bearer token is left out, and the shell puts back `$ERIS_TOKEN`."""
        parts = ["curl", "-i", "-X", self.method, _quote(self.url)]
        for name, value in self.request_headers.items():
            if name.lower() in ("host", "content-length", "accept-encoding", "connection", "user-agent"):
                continue
            if token_from_environment and name.lower() == "authorization" and value.startswith("Bearer "):
                parts += ["-H", f'"{name}: Bearer $ERIS_TOKEN"']
                continue
            parts += ["-H", _quote(f"{name}: {value}")]
        body = base64.b64decode(self.request_body)
        if body:
            parts += ["--data-binary", _quote(body.decode("utf-8", "replace"))]
        return " ".join(parts)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _kept(body: bytes | None) -> str:
    return base64.b64encode((body or b"")[:BODY_LIMIT]).decode("ascii")


def exchange_of_response(response: httpx.Response, started: float) -> Exchange:
    return _exchange(response.request, started, response.status_code, dict(response.headers), response.content)


def exchange_of_cut_answer(
    request: httpx.Request, response: httpx.Response | None, received: bytes, started: float
) -> Exchange:
    """The record of an answer cut at a bound: what arrived of it (status 0: not even its head)."""
    status, headers = (response.status_code, dict(response.headers)) if response is not None else (0, {})
    return _exchange(request, started, status, headers, received)


def _exchange(request: httpx.Request, started: float, status: int, headers: dict[str, str], body: bytes) -> Exchange:
    content = request.content if hasattr(request, "_content") else b""
    return Exchange(
        direction="outbound",
        started=started,
        duration=time.time() - started,
        method=request.method,
        url=str(request.url),
        # a traffic.har is published with its certification: what opens the target or a store never reaches it
        request_headers=redacted_headers(dict(request.headers)),
        request_body=_kept(redacted_connection_strings(content)),
        request_body_size=len(content),
        status=status,
        response_headers=headers,
        response_body=_kept(body),
        response_body_size=len(body),
    )


class Traffic:
    """Exchanges of the running test; the plugin empties it into each test's report. Safe to record into from
    several threads; a thread inside `kept_apart` records into its own list instead."""

    def __init__(self) -> None:
        self._exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._apart = threading.local()

    def record(self, exchange: Exchange) -> None:
        kept: list[Exchange] | None = getattr(self._apart, "exchanges", None)
        if kept is not None:
            kept.append(exchange)
            return
        with self._lock:
            self._exchanges.append(exchange)

    @contextmanager
    def kept_apart(self) -> Iterator[list[Exchange]]:
        """What this thread records inside the block goes to the list given, not to the test's: a call run in a
        thread hands its exchanges back, to be recorded in the order of the calls (a HAR read like a sequence)."""
        kept: list[Exchange] = []
        self._apart.exchanges = kept
        try:
            yield kept
        finally:
            self._apart.exchanges = None

    def take(self) -> list[Exchange]:
        with self._lock:
            taken, self._exchanges = self._exchanges, []
        return taken

    def inbound(
        self,
        *,
        started: float,
        duration: float,
        method: str,
        url: str,
        request_headers: dict[str, str],
        request_body: bytes | None,
        request_body_size: int,
        status: int,
        response_headers: dict[str, str],
        response_body: bytes,
    ) -> None:
        self.record(
            Exchange(
                direction="inbound",
                started=started,
                duration=duration,
                method=method,
                url=url,
                request_headers=request_headers,
                request_body=_kept(request_body),
                request_body_size=request_body_size,
                status=status,
                response_headers=response_headers,
                response_body=_kept(response_body),
                response_body_size=len(response_body),
            )
        )
