"""The application factory of the reference implementation: routes, middlewares, background work.

Extension point: `ServerSettings.extensions`, each called as `extend(app, settings)` once create_app has built the
application, before it starts (the self-test's faults and variants, conformance.deviations, are such). An extension
reaches the service through these seams only:

- aiohttp's own: a middleware (appended: innermost, after authentication and the rate limit; inserted first:
  outermost, seeing their answers too), a route, a startup step (appended to `app.cleanup_ctx`: it runs once the
  service exists);
- the collaborators kept under the application's keys, read, and replaced or wrapped by a startup step where named
  here: SERVICE (`queries`, `operations`, `identifier_reads`, `store.search_bodies` which every list read goes
  through; `load` adds data), OUTBOX_WORKER (`outbox.record_notification`, which queues every Notification),
  REPORT_WORKER (`build_artifact`, `delivery_target`), REPORTS (`seal`, `random_bytes`, `queue.add` which queues
  every accepted order), APPLICATION_KEYS;
- the handler hooks of the writes (reference_impl.writes.WRITE_HOOKS): what a write stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from profiles import Contract, load_contract
from profiles.installation import INSTALLATION_OID_ARC
from profiles.validator import Validator
from reference_impl import reads, writes
from reference_impl.answer_cache import AnswerCache
from reference_impl.auth import AuthPolicy, auth_middleware
from reference_impl.identifier_reads import IdentifierReads, identifier_read_types
from reference_impl.notifications import build_notification
from reference_impl.outbox import Backoff, Outbox, OutboxWorker, create_schema, outbox_context
from reference_impl.problems import PROBLEM_JSON, problem
from reference_impl.ratelimit import RateLimiter, rate_limit_middleware, refusal_limit_middleware
from reference_impl.report_orders import REPORTS, ReportDesk, data_for, order_report
from reference_impl.report_queue import ReportQueue
from reference_impl.report_worker import (
    DEFAULT_ATTEMPT_TIMEOUT,
    DEFAULT_DELIVERY_DEADLINE,
    DEFAULT_MAX_DELIVERIES,
    ReportWorker,
    report_worker_context,
)
from reference_impl.search import READ_PATHS, QueryBuilder, load_operations
from reference_impl.seed import installation_resources
from reference_impl.state import SERVICE, Service
from reference_impl.store import Store
from reference_impl.tokens import ApplicationKeys, TokenVerifier
from reports.delivery import DEFAULT_DENIED, HttpPolicy, networks

log = logging.getLogger("eris.serve")
OUTBOX_WORKER = web.AppKey("outbox_worker", OutboxWorker)
REPORT_WORKER = web.AppKey("report_worker", ReportWorker)
APPLICATION_KEYS = web.AppKey("application_keys", ApplicationKeys)
MAX_BODY_BYTES = 8 * 1024 * 1024
ANSWER_CACHE_BYTES = 16 * 1024 * 1024
"""About 10,000 answers of one Party each."""


@dataclass
class ServerSettings:
    """Everything `eris serve` can set. Defaults serve the default installation from memory."""

    db: str = ":memory:"
    config: str | None = None
    seed: Callable[[Contract], list[dict[str, Any]]] | None = None
    """The data an empty database starts with; None: only what every installation publishes (its naming systems
    and value sets, reference_impl.seed.installation_resources)."""
    notify_urls: list[str] = field(default_factory=list)
    max_body_bytes: int = MAX_BODY_BYTES
    application_keys: ApplicationKeys | None = None
    """The key pair whose private half signs the tokens this server accepts (`eris token` mints them);
    None: a fresh pair for this run only."""
    trusted_keys: dict[str, RSAPublicKey] = field(default_factory=dict)
    """More public keys whose tokens are accepted, by key id (other applications)."""
    token_on_every_endpoint: bool = False
    """The contract demands a token on POST /v1/reports only; True demands one everywhere."""
    rate_per_second: float = 200.0
    """The gateway rate limit per client (token subject, else address); 0 turns it off."""
    rate_burst: int = 400
    order_rate_per_second: float = 20.0
    """Report orders per client beside the rate limit (each starts a generation and an encryption, so a gateway
    keeps them below reads); in force with the rate limit. A burst of orders meets it on any machine: the 429 and
    its Retry-After are then always shown, where the general limit is out of reach of a slow client."""
    order_burst: int = 100
    source_change_every: float = 0.0
    """Seconds between simulated changes of seed data in the source system (each one notified); 0: none."""
    local_root: str | None = None
    """The folder `local` report deliveries go below; None: orders naming `local` are refused."""
    spool_dir: str | None = None
    """Where artifacts wait for delivery; None: beside a database file, or a temporary folder for :memory:."""
    report_products: int = 250
    """Size of the simulated product catalogue (product-level report rows = products x 8 cost elements)."""
    report_backoff: Backoff | None = None
    """Delays between delivery attempts; None: 1 s doubling to 60 s."""
    report_delivery_deadline: float = DEFAULT_DELIVERY_DEADLINE
    """Seconds after generation during which an unconfirmed delivery is retried."""
    report_attempt_timeout: float = DEFAULT_ATTEMPT_TIMEOUT
    """Seconds one delivery attempt may take, connection to confirmation (a trickling receiver is cut off)."""
    report_max_deliveries: int = DEFAULT_MAX_DELIVERIES
    """Deliveries under way at once, each order on its own."""
    delivery_allowed: tuple[str, ...] = ()
    """CIDR blocks http deliveries may go to; empty: every address not denied."""
    delivery_denied: tuple[str, ...] = DEFAULT_DENIED
    """CIDR blocks http deliveries never go to (default: link-local and cloud metadata addresses)."""
    answer_cache_bytes: int = ANSWER_CACHE_BYTES
    """Memory for answers of identifier reads kept until the next write (reference_impl.identifier_reads); 0: none."""
    random_bytes: Callable[[int], bytes] = os.urandom
    """The source of report session keys (injectable to test the 500 of a failing source)."""
    extensions: tuple[Extension, ...] = ()
    """Changes made to the application before it starts, in order, through the seams of this module's docstring."""


Extension = Callable[[web.Application, ServerSettings], None]


@web.middleware
async def problem_details(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Every error answer is Problem Details; an unexpected exception is a 500 without a traceback."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400 or error.content_type == PROBLEM_JSON:
            raise  # already an answer of its own (redirects, or Problem Details raised by a handler)
        headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None
        detail = {
            404: f"no such resource: {request.path} (resources are addressed by query parameters, not by id)",
            405: f"{request.method} is not an operation of {request.path}",
            413: "the request body is too large",
        }.get(error.status, error.reason)
        return problem(error.status, detail, headers=headers)
    except ConnectionError:  # the client went away (mid-body): nothing to answer, nothing wrong here
        log.debug("%s %s: the client disconnected", request.method, request.path)
        return problem(400, "the client disconnected")
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
    app.router.add_post("/v1/reports", order_report)


def _is_an_order(request: web.Request) -> bool:
    return request.method == "POST" and request.path == "/v1/reports"


def create_app(settings: ServerSettings | None = None, *, contract: Contract | None = None) -> web.Application:
    """The application; its store opens on startup and closes on cleanup."""
    settings = settings or ServerSettings()
    contract = contract or load_contract(settings.config)
    keys = settings.application_keys or ApplicationKeys.generate()
    verifier = TokenVerifier({keys.key_id: keys.public_key, **settings.trusted_keys})
    policy = AuthPolicy(all_endpoints=settings.token_on_every_endpoint)
    middlewares = [problem_details, reads.bounded_query]
    if settings.rate_per_second > 0:
        # refusals (401) per address before authentication, so that a flood of bad tokens is limited too;
        # then every request per verified subject (or address)
        refusals = RateLimiter(settings.rate_per_second, settings.rate_burst)
        middlewares.append(refusal_limit_middleware(refusals))
    middlewares.append(auth_middleware(verifier, policy))
    if settings.rate_per_second > 0:
        middlewares.append(rate_limit_middleware(RateLimiter(settings.rate_per_second, settings.rate_burst)))
        orders = RateLimiter(settings.order_rate_per_second, settings.order_burst)
        middlewares.append(rate_limit_middleware(orders, applies=_is_an_order))
    app = web.Application(middlewares=middlewares, client_max_size=settings.max_body_bytes)
    app[APPLICATION_KEYS] = keys
    app[writes.WRITE_HOOKS] = []
    _routes(app)

    async def service_context(app: web.Application) -> AsyncIterator[None]:
        store = Store(settings.db)
        create_schema(store.db)
        validator = Validator(contract)
        operations = load_operations()
        service = Service(contract, validator, store, QueryBuilder(contract, store), operations)
        cache = AnswerCache(settings.answer_cache_bytes) if settings.answer_cache_bytes > 0 else None
        service.identifier_reads = IdentifierReads(store, identifier_read_types(operations), cache)
        if store.is_empty():  # without seed data, still what every installation publishes
            service.load(settings.seed(contract) if settings.seed is not None else installation_resources(contract))
        outbox = Outbox(store.db, settings.notify_urls)
        worker = OutboxWorker(outbox)
        service.change_listeners.append(_notifier(service, outbox, worker))
        app[SERVICE] = service
        app[OUTBOX_WORKER] = worker
        with _spool(settings) as spool:
            queue = ReportQueue(store.db, time.time)
            local_root = Path(settings.local_root) if settings.local_root else None
            reports = ReportWorker(
                queue,
                data_for(service, settings.report_products),
                spool,
                local_root=local_root,
                backoff=settings.report_backoff,
                delivery_deadline=settings.report_delivery_deadline,
                attempt_timeout=settings.report_attempt_timeout,
                max_deliveries=settings.report_max_deliveries,
                http_policy=HttpPolicy(networks(settings.delivery_denied), networks(settings.delivery_allowed)),
            )
            app[REPORT_WORKER] = reports
            app[REPORTS] = ReportDesk(queue, reports, local_root, settings.random_bytes)
            yield
        store.close()

    app.cleanup_ctx.append(service_context)
    app.cleanup_ctx.append(outbox_context(OUTBOX_WORKER))
    app.cleanup_ctx.append(report_worker_context(REPORT_WORKER))
    if settings.source_change_every > 0:
        app.cleanup_ctx.append(_source_changes(settings.source_change_every))
    for extend in settings.extensions:
        extend(app, settings)
    return app


@contextlib.contextmanager
def _spool(settings: ServerSettings) -> Iterator[Path]:
    """The artifact spool: beside a database file (it must survive a restart with it), else temporary."""
    if settings.spool_dir:
        yield Path(settings.spool_dir)
    elif settings.db != ":memory:":
        yield Path(f"{settings.db}.spool")
    else:
        folder = tempfile.mkdtemp(prefix="eris-spool-")
        try:
            yield Path(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _source_changes(every: float) -> Callable[[web.Application], AsyncIterator[None]]:
    """Simulates the source system changing seed data at run time: every `every` seconds the next
    Contractor gets a new comment, stored and notified like a change through the API."""

    async def run(app: web.Application) -> AsyncIterator[None]:
        async def change_one_after_another() -> None:
            service = app[SERVICE]
            contractor = service.contract.profiles["Contractor"].url
            turn = 0
            while True:
                await asyncio.sleep(every)
                parties = service.store.search("Party", service.queries.conditions("Party", {"profile": [contractor]}))
                if not parties:
                    continue
                party = parties[turn % len(parties)]
                turn += 1
                party["comment"] = f"changed in the source system (change {turn})"
                with service.store.transaction():
                    service.save(party, "updated")

        task = asyncio.create_task(change_one_after_another())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    return run


def _notifier(service: Service, outbox: Outbox, worker: OutboxWorker) -> Callable[[dict[str, Any], str, str], None]:
    """Records a Notification of each change in the outbox (in the change's transaction) and wakes the
    worker, which sends it once the transaction has committed."""

    def changed(resource: dict[str, Any], operation: str, date: str) -> None:
        logical = next(
            (
                i
                for i in resource.get("identifier", [])
                if isinstance(i, dict) and str(i.get("system", "")).startswith(INSTALLATION_OID_ARC) and i.get("value")
            ),
            None,
        )
        if logical is None or not outbox.subscribers:
            return
        notification = build_notification(
            service.contract,
            resource_type=resource["resourceType"],
            identifier=logical,
            operation=operation,
            date=date,
            notification_id=str(uuid.uuid4()),
            validator=service.validator,
        )
        outbox.record_notification(notification)
        worker.wake()

    return changed
