"""One judge of an HTTP exchange with a service of the contract, for the suite's property phase, `eris validate` of a
HAR file and `eris proxy`: the request (its query against the operation, its body as the write the operation takes)
and the answer (its status among the operation's answers, its media type, its body: the envelope and each item as a
served resource, the resource a write answers, the 202 and the Problem Details of a report order). Only what the
contract fixes is judged; every finding is the client's or the server's, located by a JSON Pointer into the part of
the exchange it is about, with the requirement it enforces where one applies."""

from __future__ import annotations

from conformance.exchange_judge.bodies import read_body
from conformance.exchange_judge.exchange import (
    CLIENT,
    CODES,
    SERVER,
    ExchangeFinding,
    HttpExchange,
    Part,
    Side,
    headers_of,
)
from conformance.exchange_judge.judge import ExchangeJudge
from conformance.exchange_judge.response import ACCEPTED_400_TYPES

__all__ = [
    "ACCEPTED_400_TYPES",
    "CLIENT",
    "CODES",
    "SERVER",
    "ExchangeFinding",
    "ExchangeJudge",
    "HttpExchange",
    "Part",
    "Side",
    "headers_of",
    "read_body",
]
