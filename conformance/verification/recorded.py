"""A certification's traffic.har read back for a replay: each exchange with its whole bodies, the index that finds
the recorded answer to a request (method, URL, body; never the order of arrival), the exchange after whose answer
the target pushed each inbound one, and which test used each recorded report key."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization

from conformance.client.redaction import redacted_connection_strings
from conformance.client.traffic import BODY_LIMIT

__all__ = ["RecordedExchange", "Recording", "RecordingError", "match_key", "read_keys", "read_recording"]

OUTBOUND, INBOUND = "outbound", "inbound"
_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")
"""A moment of the suite's clock in a request (an order's runAt): the replay answers as the target answered the
moment the run sent; the answer is what is judged, and it is the recorded one."""
_PEM = re.compile(rb"-----BEGIN [A-Z0-9 ]+-----.*?-----END [A-Z0-9 ]+-----", re.DOTALL)
"""A key or certificate in a request: the property phase's keys are made anew in each process (they need not be
fresh, conformance/generation/strategies/keys.py), and a recorded report key opens the recorded answer whatever it
matched."""
_PEM_END = b"-----END PRIVATE KEY-----\n"


class RecordingError(ValueError):
    """traffic.har or report-keys.pem cannot be read; the message is one line."""


@dataclass(frozen=True)
class RecordedExchange:
    number: int
    """Its index in traffic.har's log.entries (the order the exchanges started)."""
    direction: str
    test: str
    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    status: int
    response_headers: list[tuple[str, str]]
    response_body: bytes
    started: float
    seconds: float

    @property
    def target(self) -> str:
        """The path and query of its URL: what the replay answers at whatever address it listens on."""
        parts = urlsplit(self.url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    @property
    def origin(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"


def match_key(method: str, target: str, body: bytes) -> tuple[str, str, bytes]:
    """What a request is matched on: its method, path and query, and its body as recorded (cut and its store
    credentials redacted as the record has them), the suite's clock readings and keys masked."""
    kept = redacted_connection_strings(body)[:BODY_LIMIT]
    return method.upper(), target, _PEM.sub(b"<pem>", _TIME.sub(b"<time>", kept))


@dataclass
class Recording:
    exchanges: list[RecordedExchange]
    outbound: dict[tuple[str, str, bytes], list[RecordedExchange]] = field(default_factory=dict)
    by_target: dict[tuple[str, str], list[RecordedExchange]] = field(default_factory=dict)
    pushed_after: dict[int, list[RecordedExchange]] = field(default_factory=dict)
    """Number of an outbound exchange -> the inbound exchanges the target sent after answering it."""
    unprompted: list[RecordedExchange] = field(default_factory=list)
    """Inbound exchanges that followed no outbound one: pushed when the replay answers its first request."""

    def __post_init__(self) -> None:
        outbound = defaultdict(list)
        by_target = defaultdict(list)
        for exchange in self.exchanges:
            if exchange.direction == OUTBOUND:
                outbound[match_key(exchange.method, exchange.target, exchange.request_body)].append(exchange)
                by_target[exchange.method.upper(), exchange.target].append(exchange)
        self.outbound, self.by_target = dict(outbound), dict(by_target)
        self._link_inbound()

    def _link_inbound(self) -> None:
        """A delivery follows the order that named its URL; any other push (a notification) follows the last
        write the target accepted before it."""
        pushed: dict[int, list[RecordedExchange]] = defaultdict(list)
        last_write: RecordedExchange | None = None
        for exchange in self.exchanges:
            if exchange.direction == OUTBOUND:
                if exchange.method.upper() != "GET" and 200 <= exchange.status < 300:
                    last_write = exchange
                continue
            path = urlsplit(exchange.url).path.encode()
            order = (
                next(
                    (
                        candidate
                        for candidate in reversed(self.exchanges[: exchange.number])
                        if candidate.direction == OUTBOUND
                        and candidate.method.upper() == "POST"
                        and path in candidate.request_body
                    ),
                    None,
                )
                if path.startswith(b"/reports/")
                else None
            )
            trigger = order or last_write
            if trigger is None:
                self.unprompted.append(exchange)
            else:
                pushed[trigger.number].append(exchange)
        self.pushed_after = dict(pushed)

    def keys_by_test(self, keys: list[bytes]) -> tuple[dict[str, list[bytes]], list[bytes]]:
        """The recorded private keys (PEM) each test used, in the order its requests first name their public keys,
        and all of them in the order of first use (for a test that takes a key it did not record)."""
        public = {form: pem for pem in keys for form in _public_pems(pem)}
        by_test: dict[str, list[bytes]] = defaultdict(list)
        in_order: list[bytes] = []
        for exchange in self.exchanges:
            if exchange.direction != OUTBOUND or b"publicKeyPem" not in exchange.request_body:
                continue
            try:
                named = json.loads(exchange.request_body).get("publicKeyPem")
            except (ValueError, AttributeError):
                continue
            pem = public.get(_normal_pem(named)) if isinstance(named, str) else None
            if pem is not None and pem not in in_order:
                in_order.append(pem)
                by_test[exchange.test].append(pem)
        return dict(by_test), in_order + [pem for pem in keys if pem not in in_order]


def read_recording(har: Path) -> Recording:
    """traffic.har read whole. RecordingError when it is no HAR of eris."""
    try:
        document = json.loads(har.read_bytes())
        entries = document["log"]["entries"]
        return Recording([_exchange(number, entry) for number, entry in enumerate(entries)])
    except OSError as error:
        raise RecordingError(f"cannot read {har}: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise RecordingError(f"{har} is not a traffic.har of eris certify: {type(error).__name__} {error}") from None


def read_keys(path: Path) -> list[bytes]:
    """The PEM blocks of report-keys.pem; none when the run ordered no report."""
    if not path.is_file():
        return []
    return [block + _PEM_END for block in path.read_bytes().split(_PEM_END) if block.strip()]


def _exchange(number: int, entry: dict[str, Any]) -> RecordedExchange:
    request, response = entry["request"], entry["response"]
    return RecordedExchange(
        number=number,
        direction=str(entry.get("_eris_direction", OUTBOUND)),
        test=str(entry.get("_eris_test", "")),
        method=str(request["method"]),
        url=str(request["url"]),
        request_headers=[(h["name"], h["value"]) for h in request.get("headers", [])],
        request_body=_body(request.get("postData")),
        status=int(response["status"]),
        response_headers=[(h["name"], h["value"]) for h in response.get("headers", [])],
        response_body=_body(response.get("content")),
        started=datetime.fromisoformat(entry["startedDateTime"]).timestamp(),
        seconds=float(entry.get("time", 0)) / 1000,
    )


def _body(part: dict[str, Any] | None) -> bytes:
    if not part or "text" not in part:
        return b""
    text = str(part["text"])
    if part.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("a body is not base64 as its encoding says") from None
    return text.encode("utf-8", "surrogateescape")


def _public_pems(private_pem: bytes) -> list[str]:
    """The public half in both forms an order may send it in (BEGIN PUBLIC KEY, BEGIN RSA PUBLIC KEY)."""
    try:
        key = serialization.load_pem_private_key(private_pem, None, unsafe_skip_rsa_key_validation=True)
    except (ValueError, TypeError):
        raise RecordingError("report-keys.pem holds a block that is no private key") from None
    forms = (serialization.PublicFormat.SubjectPublicKeyInfo, serialization.PublicFormat.PKCS1)
    return [_normal_pem(key.public_key().public_bytes(serialization.Encoding.PEM, form).decode()) for form in forms]


def _normal_pem(text: str) -> str:
    """The base64 of a PEM block, whatever its header line and wrapping (the suite sends PKCS#1 headers too)."""
    return "".join(line for line in text.strip().splitlines() if not line.startswith("-----"))
