"""How report.html shows one HTTP exchange: the request and the answer as text, bodies cut to a readable length
(JSON indented), the run's bearer token left out, and a curl line that repeats the request."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

from conformance.client.bodies import RecordedBody, recorded_body
from conformance.client.traffic import Exchange

__all__ = ["BODY_CHARACTERS", "ExchangeView", "exchange_view"]

BODY_CHARACTERS = 4000
"""Characters of a body shown; the whole recorded body is in traffic.har."""


@dataclass(frozen=True)
class ExchangeView:
    title: str
    request: str
    """The request line and its headers."""
    request_body: str | None
    response: str
    """The status and the response's headers."""
    response_body: str | None
    curl: str | None
    """A curl line repeating it (None for what the target sent to the receiver)."""
    har_entry: int | None
    open: bool


def exchange_view(exchange: Exchange, *, open_: bool, har_entry: int | None) -> ExchangeView:
    """One exchange as the page shows it; `open_` for the one shown unfolded, `har_entry` its index in traffic.har."""
    arrow = "→" if exchange.direction == "outbound" else "← (to the receiver)"
    request = recorded_body(exchange.request_body, exchange.request_body_size, exchange.request_headers)
    response = recorded_body(exchange.response_body, exchange.response_body_size, exchange.response_headers)
    return ExchangeView(
        title=f"{arrow} {exchange.method} {exchange.url} — {exchange.status}",
        request=f"{exchange.method} {exchange.url}\n{_header_lines(exchange.request_headers)}",
        request_body=_shown(request) if request.size else None,
        response=f"{exchange.status}\n{_header_lines(exchange.response_headers)}",
        response_body=_shown(response) if response.size else None,
        curl=exchange.curl(token_from_environment=True) if exchange.direction == "outbound" else None,
        har_entry=har_entry,
        open=open_,
    )


def _header_lines(headers: dict[str, str]) -> str:
    return "\n".join(f"{name}: {_shown_header(name, value)}" for name, value in headers.items()) or "(no headers)"


def _shown_header(name: str, value: str) -> str:
    """A report is passed around (a CI artifact): the run's bearer token is not printed in it, as in its curl lines."""
    if name.lower() == "authorization" and value.startswith("Bearer "):
        return "Bearer $ERIS_TOKEN (the run's token, not shown)"
    return value


def _shown(body: RecordedBody) -> str:
    """Text bodies as text (JSON indented), cut at BODY_CHARACTERS; others by size and content type."""
    if not body.data:
        return f"({body.size} bytes, not recorded)"
    if body.text is None:
        return f"({body.size} bytes of {body.mime_type or 'unknown type'}, not text: see traffic.har)"
    text = body.text
    if "json" in body.mime_type and not body.truncated:
        with contextlib.suppress(ValueError):  # not JSON after all: shown as it came
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    if len(text) > BODY_CHARACTERS:
        return text[:BODY_CHARACTERS] + f"\n… ({len(text) - BODY_CHARACTERS} more characters in traffic.har)"
    if body.truncated:
        return text + f"\n… (the record kept {len(body.data)} of {body.size} bytes)"
    return text
