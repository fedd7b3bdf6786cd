"""`traffic.har`: every exchange of every test of a certification run as an HTTP Archive (HAR 1.2), the
target's deliveries and notifications to the suite's receiver included, so that a vendor can replay or
inspect in any HAR viewer why a check failed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from conformance.client.bodies import RecordedBody, recorded_body
from conformance.client.har_entry import har_entry_of
from conformance.client.traffic import Exchange

if TYPE_CHECKING:
    from conformance.certification.judgement import Certification

__all__ = ["entry_numbers", "har_entries", "har_entry", "har_log", "to_har"]


def _in_order(certification: Certification) -> list[tuple[int, int, Exchange]]:
    """(test's position in outcomes, exchange's position in the test, exchange), in the order the exchanges
    started: the order of the HAR entries."""
    found = [
        (test_position, position, Exchange.from_dict(data))
        for test_position, test in enumerate(certification.outcomes)
        for position, data in enumerate(test.exchanges)
    ]
    found.sort(key=lambda item: item[2].started)
    return found


def entry_numbers(certification: Certification) -> dict[tuple[int, int], int]:
    """(test's position in outcomes, exchange's position in the test) -> index of its entry in traffic.har's
    log.entries, so that the report can point at the full record of an exchange it shows cut."""
    return {(test_position, position): n for n, (test_position, position, _) in enumerate(_in_order(certification))}


def to_har(certification: Certification) -> dict[str, Any]:
    """The HAR document: entries in the order the exchanges started."""
    return {"log": {**har_log(certification), "entries": list(har_entries(certification))}}


def har_log(certification: Certification) -> dict[str, Any]:
    """The members of the HAR log but its entries."""
    return {
        "version": "1.2",
        "creator": {"name": "eris", "version": certification.version},
        "comment": f"eris certification of {certification.base_url}: {certification.verdict}",
    }


def har_entries(certification: Certification) -> Iterator[dict[str, Any]]:
    """The HAR entries one at a time, in the order the exchanges started: a file can be written entry by entry,
    never holding them all (thousands of exchanges of up to 64 KiB each)."""
    outcomes = certification.outcomes
    for test_position, _, exchange in _in_order(certification):
        yield har_entry(exchange, outcomes[test_position].nodeid)


def har_entry(exchange: Exchange, nodeid: str) -> dict[str, Any]:
    """One HAR entry. `comment` and the custom `_eris_test`/`_eris_direction` fields say which test it
    belongs to and whether the suite sent it (outbound) or the target sent it to the receiver (inbound)."""
    request_body = recorded_body(exchange.request_body, exchange.request_body_size, exchange.request_headers)
    response_body = recorded_body(exchange.response_body, exchange.response_body_size, exchange.response_headers)
    sent = exchange.request_body_size > 0 or request_body.data
    entry = har_entry_of(
        method=exchange.method,
        url=exchange.url,
        request_headers=exchange.request_headers.items(),
        query=parse_qsl(urlsplit(exchange.url).query, True),
        request_body_size=exchange.request_body_size,
        post_data={"mimeType": request_body.mime_type or "application/octet-stream", **_body(request_body)}
        if sent
        else None,
        status=exchange.status,
        response_headers=exchange.response_headers.items(),
        content={
            "size": exchange.response_body_size,
            "mimeType": response_body.mime_type or "application/octet-stream",
            **_body(response_body),
        },
        response_body_size=exchange.response_body_size,
        started=exchange.started,
        seconds=exchange.duration,
    )
    entry["comment"] = f"{exchange.direction} exchange of {nodeid}"
    entry["_eris_test"] = nodeid
    entry["_eris_direction"] = exchange.direction
    return entry


def _body(body: RecordedBody) -> dict[str, Any]:
    """`text` as text when the body is text, else base64 with `encoding`; a cut body says so in `comment`."""
    found: dict[str, Any] = (
        {"text": body.text} if body.text is not None else {"text": body.base64, "encoding": "base64"}
    )
    if body.truncated:
        kept = len(body.data)
        found["comment"] = f"first {kept} of {body.size} bytes kept" if kept else f"{body.size} bytes, not recorded"
    return found
