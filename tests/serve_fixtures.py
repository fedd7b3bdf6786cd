"""Shared harness of the tests of `eris serve` (tests/reference_impl/test_serve_*.py): a real aiohttp server of the
reference implementation on 127.0.0.1, run by its own event loop in a background thread, read with
httpx; the contract data, the validator and the schemas the answers are checked against; and small
helpers that pick identifiers from the seed data set."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from aiohttp import web
from aiohttp.test_utils import TestServer

from profiles import load_contract
from profiles.structure import SchemaStore
from profiles.validator import RESOURCE, Validator
from reference_impl.app import ServerSettings, create_app
from reference_impl.seed import OWN_ORGANIZATION_NIP, seed_resources

CONTRACT = load_contract()
VALIDATOR = Validator(CONTRACT)
SCHEMAS = SchemaStore()
SEED = seed_resources(CONTRACT)

VALUES = CONTRACT.installation.values
VOCAB = VALUES["vocab_url"]
NS_URL = VALUES["ns_url"]
NIP_SYSTEM = VALUES["nip_system"]
REGON_SYSTEM = VALUES["regon_system"]
EMPLOYER_NIP = f"{NIP_SYSTEM}|{OWN_ORGANIZATION_NIP}"
PROBLEM_JSON = "application/problem+json"
ALL = {"count": "1000"}
"""Query parameters of a read that wants every item (the seed has fewer than 1000 of each type)."""


def ns(key: str) -> str:
    """The installation namespace (system URI) of `key`, e.g. ns("contractor")."""
    return CONTRACT.installation_namespace_key(key)


def profile_url(name: str) -> str:
    return CONTRACT.profiles[name].url


def seed_of(resource_type: str) -> list[dict[str, Any]]:
    return [r for r in SEED if r["resourceType"] == resource_type]


def seed_by_id(resource_id: str) -> dict[str, Any]:
    return next(r for r in SEED if r.get("id") == resource_id)


def identifier_value(resource: dict[str, Any], system: str) -> str:
    return next(i["value"] for i in resource.get("identifier", []) if i.get("system") == system)


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


def errors_of(document: Any, resource_type: str, context: str = RESOURCE) -> list[str]:
    """The validator's errors of `document` as text (empty when it passes)."""
    return [
        f"{issue.location or '/'}: {issue.message}"
        for issue in VALIDATOR.validate(document, resource_type=resource_type, context=context)
        if issue.is_error
    ]


def schema_errors(name: str, instance: Any) -> list[str]:
    return [error.message for error in SCHEMAS.validator(name).iter_errors(instance)]


def assert_problem(response: httpx.Response, status: int | tuple[int, ...], parameter: str | None = None) -> dict:
    """An error answer: the status (one of them), Problem Details by content type and by schema, and,
    when given, the parameter it names (in `parameter` and in the `detail` text)."""
    expected = status if isinstance(status, tuple) else (status,)
    assert response.status_code in expected, (response.status_code, response.text[:500])
    assert response.headers["content-type"].split(";")[0].strip() == PROBLEM_JSON, response.headers
    body = response.json()
    assert schema_errors("ProblemDetails", body) == []
    assert body["status"] == response.status_code
    assert "resourceType" not in body and "items" not in body
    if parameter is not None:
        assert body.get("parameter") == parameter, body
        assert parameter in body["detail"], body
    return body


def assert_envelope(response: httpx.Response, resource_type: str | None) -> list[dict[str, Any]]:
    """A read answer: 200, the envelope {items, nextToken} by schema, every item clean by the
    validator as a served `resource_type` (None: items checked by the caller)."""
    assert response.status_code == 200, (response.status_code, response.text[:500])
    assert response.headers["content-type"].split(";")[0].strip() == "application/json"
    body = response.json()
    assert schema_errors("ReadEnvelope", body) == []
    assert set(body) == {"items", "nextToken"}
    assert body["nextToken"] is None
    if resource_type is not None:
        for item in body["items"]:
            assert item.get("resourceType", resource_type) == resource_type
            assert errors_of(item, resource_type) == [], item.get("id")
    return body["items"]


class RunningServer:
    """The reference implementation on a free port of 127.0.0.1, served by an event loop of its own in
    a daemon thread, so that tests stay synchronous and read it with httpx. `stop()` closes the
    application (its store and outbox worker) and the loop."""

    def __init__(self, settings: ServerSettings | None = None, *, app: web.Application | None = None) -> None:
        self.app = app if app is not None else create_app(settings)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="eris-test-server", daemon=True)
        self._thread.start()
        self._server = TestServer(self.app, host="127.0.0.1")
        try:
            self.call(self._server.start_server())
        except BaseException:
            self._stop_loop()
            raise
        self.url = str(self._server.make_url("")).rstrip("/")
        self.client = httpx.Client(base_url=self.url, timeout=10)

    def call(self, coroutine: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        self.client.close()
        try:
            self.call(self._server.close())
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    def count(self, path: str = "/v1/parties", **params: str) -> int:
        response = self.client.get(path, params={**params, **ALL})
        assert response.status_code == 200, response.text
        return len(response.json()["items"])


def seeded_settings(**options: Any) -> ServerSettings:
    """Settings of a server with the reference data set and, unless asked for, no rate limit."""
    options.setdefault("seed", seed_resources)
    options.setdefault("rate_per_second", 0)
    return ServerSettings(**options)


@contextmanager
def running(settings: ServerSettings | None = None) -> Iterator[RunningServer]:
    server = RunningServer(settings if settings is not None else seeded_settings())
    try:
        yield server
    finally:
        server.stop()


def contractor_body(name: str = "Nowa Firma S.A.", *, by: str = "category", **extra: Any) -> dict[str, Any]:
    """A Contractor write body recognised by its category (`by="category"`) or by meta.profile only."""
    body: dict[str, Any] = {
        "resourceType": "Party",
        "identifier": [{"system": ns("contractor")}],
        "name": {"coding": [{"system": f"{VOCAB}/party-name", "code": "finance", "display": name}]},
    }
    if by == "category":
        body["category"] = [{"coding": [{"system": f"{VOCAB}/party-kind", "code": "contractor"}]}]
    else:
        body["meta"] = {"profile": [profile_url("Contractor")]}
    body.update(extra)
    return body


def dumps(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False)
