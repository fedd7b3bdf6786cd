"""The judge: an exchange's operation found among the contract's, then its request and its answer judged."""

from __future__ import annotations

from functools import cache

from conformance.catalogue.operations import operation_requirement
from conformance.exchange_judge.exchange import CLIENT, ExchangeFinding, HttpExchange, finding
from conformance.exchange_judge.request import request_findings
from conformance.exchange_judge.response import response_findings
from profiles.openapi_index import Operation, openapi_document, operations
from profiles.validator import Validator

__all__ = ["ExchangeJudge"]


class ExchangeJudge:
    """Judges exchanges against one validator (the installation's). An exchange outside the contract is said once
    for its path (once for a method the contract does not give a path of its own), as information."""

    def __init__(self, validator: Validator | None = None) -> None:
        self.validator = validator or Validator()
        self._outside: set[str] = set()

    def judge(self, exchange: HttpExchange) -> list[ExchangeFinding]:
        """Every finding of the exchange, the client's first."""
        operation = operation_of(exchange.method, exchange.path)
        if operation is None:
            return self._outside_the_contract(exchange)
        requirement = operation_requirement(operation.method, operation.path)
        body_type = request_body_type(operation.method, operation.path)
        return [
            *request_findings(exchange, operation, body_type, self.validator, requirement),
            *response_findings(exchange, operation, self.validator, requirement),
        ]

    def _outside_the_contract(self, exchange: HttpExchange) -> list[ExchangeFinding]:
        paths = _paths()
        key = exchange.label if exchange.path in paths else exchange.path
        if key in self._outside:
            return []
        self._outside.add(key)
        if exchange.path in paths:
            message = f"{exchange.label}: the contract has no {exchange.method.upper()} on {exchange.path}; not judged"
        else:
            message = f"{exchange.path} is not a path of the contract; its exchanges are not judged"
        return [finding(CLIENT, "exchange", "path-outside-contract", message, None)]


def operation_of(method: str, path: str) -> Operation | None:
    return _operations().get((method.upper(), path))


@cache
def _operations() -> dict[tuple[str, str], Operation]:
    return {(found.method, found.path): found for found in operations()}


@cache
def _paths() -> frozenset[str]:
    return frozenset(path for _, path in _operations())


@cache
def request_body_type(method: str, path: str) -> str | None:
    """The schema of the operation's request body (Party, DocumentReference, FixedAssetDocument, ReportOrder)."""
    spec = openapi_document()["paths"][path][method.lower()]
    for content in spec.get("requestBody", {}).get("content", {}).values():
        reference = content.get("schema", {}).get("$ref")
        if isinstance(reference, str):
            return reference.rsplit("/", 1)[-1]
    return None
