"""The application factory of the reference implementation: routes, middlewares, background work."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from conformance.validator import Validator
from profiles import Contract, load_contract
from reference_impl import reads, writes
from reference_impl.problems import problem
from reference_impl.search import READ_PATHS, QueryBuilder, load_operations
from reference_impl.state import SERVICE, Service
from reference_impl.store import Store

log = logging.getLogger("eris.serve")
MAX_BODY_BYTES = 8 * 1024 * 1024


@dataclass
class ServerSettings:
    """Everything `eris serve` can set. Defaults serve the default installation from memory."""

    db: str = ":memory:"
    config: str | None = None
    seed: Callable[[Contract], list[dict[str, Any]]] | None = None
    notify_urls: list[str] = field(default_factory=list)
    max_body_bytes: int = MAX_BODY_BYTES


@web.middleware
async def problem_details(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Every error answer is Problem Details; an unexpected exception is a 500 without a traceback."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None
        detail = {
            404: f"no such resource: {request.path} (resources are addressed by query parameters, not by id)",
            405: f"{request.method} is not an operation of {request.path}",
            413: "the request body is too large",
        }.get(error.status, error.reason)
        return problem(error.status, detail, headers=headers)
    except Exception:
        log.exception("unexpected failure of %s %s", request.method, request.path)
        return problem(500, "the service failed to answer this request")


def _routes(app: web.Application) -> None:
    for path in READ_PATHS:
        app.router.add_get(path, reads.list_resources)
    app.router.add_get("/v1/value-sets", reads.value_sets)
    app.router.add_get("/v1/fixed-asset-documents/$document-content", reads.document_content)
    app.router.add_post("/v1/parties", writes.create_party)
    app.router.add_patch("/v1/parties", writes.update_party)
    app.router.add_post("/v1/fixed-asset-documents", writes.create_fixed_asset_document)
    app.router.add_patch("/v1/fixed-asset-documents", writes.update_fixed_asset_document)
    app.router.add_post("/v1/document-references", writes.create_document_reference)
    app.router.add_patch("/v1/document-references", writes.update_document_reference)


def create_app(settings: ServerSettings | None = None, *, contract: Contract | None = None) -> web.Application:
    """The application; its store opens on startup and closes on cleanup."""
    settings = settings or ServerSettings()
    contract = contract or load_contract(settings.config)
    app = web.Application(middlewares=[problem_details], client_max_size=settings.max_body_bytes)
    _routes(app)

    async def service_context(app: web.Application) -> AsyncIterator[None]:
        store = Store(settings.db)
        validator = Validator(contract)
        service = Service(contract, validator, store, QueryBuilder(contract, store), load_operations())
        if settings.seed is not None and store.is_empty():
            service.load(settings.seed(contract))
        app[SERVICE] = service
        yield
        store.close()

    app.cleanup_ctx.append(service_context)
    return app
