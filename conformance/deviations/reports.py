"""Faults of POST /v1/reports (the order, its errors), of the encryption and of the delivery; and a conformant
variant of the delivery."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import hdrs, web
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    add_outer_middleware,
    json_of,
    on_startup,
    path_is,
    replace_delivery_targets,
    rewrite_json_answer,
    rewrite_json_body,
)
from reference_impl.app import REPORT_WORKER
from reference_impl.problems import PROBLEM_JSON, problem
from reference_impl.ratelimit import RateLimiter
from reference_impl.report_orders import REPORTS
from reports.artifact import ArtifactFigures
from reports.crypto import NONCE_BYTES, TAG_BYTES, SessionKey
from reports.delivery import DeliveryTarget
from reports.generate import ReportData, ReportRequest

is_report_order = path_is("POST", "/v1/reports")
KNOWN_REPORT = "cost-calculation"
DAY_SECONDS = 86400.0


# -- the order --------------------------------------------------------------------------------------------------


@deviation(
    "missing-report-id-defaults",
    f"an order without reportId (and without groupId) is taken as an order of {KNOWN_REPORT} (202, not 404)",
    breaks="ERIS-REPORT-006",
)
def missing_report_id_defaults(app: web.Application, settings: Any) -> None:
    def default(order: dict[str, Any], request: web.Request) -> dict[str, Any]:
        if "reportId" not in order and "groupId" not in order:
            order["reportId"] = KNOWN_REPORT
        return order

    rewrite_json_body(app, is_report_order, default)


@deviation(
    "group-id-chooses-report",
    "an order with groupId instead of reportId orders the report groupId names (202, not 404)",
    breaks="ERIS-REPORT-006",
)
def group_id_chooses_report(app: web.Application, settings: Any) -> None:
    def group_as_report(order: dict[str, Any], request: web.Request) -> dict[str, Any]:
        if "reportId" not in order and isinstance(order.get("groupId"), str):
            order["reportId"] = order["groupId"]
        return order

    rewrite_json_body(app, is_report_order, group_as_report)


async def _order_of(request: web.Request) -> dict[str, Any]:
    """The JSON object body of the request (read by the handler already), or {} when it is none."""
    body = await json_of(request)
    return body if isinstance(body, dict) else {}


def _replace_answer(
    app: web.Application, replace: Callable[[web.Response, dict[str, Any]], web.StreamResponse | None]
) -> None:
    """Answers of POST /v1/reports are `replace(answer, order)` when that gives one (order: the JSON body)."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as error:
            response = error
        if not is_report_order(request) or not isinstance(response, web.Response):
            return response
        return replace(response, await _order_of(request)) or response

    add_middleware(app, middleware)


@deviation(
    "unknown-report-id-400",
    "an order naming a reportId the installation does not know is answered 400 (a malformed order), not 404",
    breaks="ERIS-REPORT-007",
)
def unknown_report_id_400(app: web.Application, settings: Any) -> None:
    def as_malformed(answer: web.Response, order: dict[str, Any]) -> web.Response | None:
        report_id = order.get("reportId")
        if answer.status != 404 or not isinstance(report_id, str):
            return None
        return problem(400, f"reportId {report_id!r} is not a valid report", parameter="reportId")

    _replace_answer(app, as_malformed)


@deviation(
    "month-rolls-over",
    "a Month outside 1..12 is read leniently, as a calendar would (13: January of the next Year; 0: December "
    "of the previous one), and the order is accepted",
    breaks="ERIS-REPORT-008",
)
def month_rolls_over(app: web.Application, settings: Any) -> None:
    def lenient(order: dict[str, Any], request: web.Request) -> dict[str, Any]:
        parameters = order.get("parameters")
        if not isinstance(parameters, dict):
            return order
        try:
            year, month = int(parameters["Year"]), int(parameters["Month"])
        except (KeyError, TypeError, ValueError):
            return order
        if not 1 <= month <= 12:
            parameters["Year"], parameters["Month"] = str(year + (month - 1) // 12), str((month - 1) % 12 + 1)
        return order

    rewrite_json_body(app, is_report_order, lenient)


# -- the 400 ----------------------------------------------------------------------------------------------------


@deviation(
    "missing-public-key-500",
    "an order without publicKeyPem fails inside the service: 500 instead of the 400 of the Errors part",
    breaks="ERIS-ERR-001",
)
def missing_public_key_500(app: web.Application, settings: Any) -> None:
    def as_failure(answer: web.Response, order: dict[str, Any]) -> web.Response | None:
        if answer.status != 400 or not order or "publicKeyPem" in order:
            return None
        return problem(500, "the cryptographic function is unavailable: no key to seal the session key with")

    _replace_answer(app, as_failure)


@deviation(
    "order-400-not-problem-details",
    'the 400 answers of POST /v1/reports are plain application/json {"error", "message"}, not Problem Details',
    breaks="ERIS-ERR-001",
)
def order_400_not_problem_details(app: web.Application, settings: Any) -> None:
    def plain(answer: web.Response, order: dict[str, Any]) -> web.Response | None:
        if answer.status != 400 or answer.content_type != PROBLEM_JSON or answer.text is None:
            return None
        detail = json.loads(answer.text).get("detail", "")
        return web.json_response({"error": "bad_request", "message": detail}, status=400)

    _replace_answer(app, plain)


@deviation(
    "order-400-type-about-blank",
    'the 400 Problem Details of POST /v1/reports have type "about:blank", not the reference URI of status 400',
    breaks="ERIS-ERR-001",
)
def order_400_type_about_blank(app: web.Application, settings: Any) -> None:
    def about_blank(body: Any, request: web.Request, status: int) -> Any:
        if status == 400 and isinstance(body, dict):
            body["type"] = "about:blank"
        return body

    rewrite_json_answer(app, is_report_order, about_blank)


# -- the session key --------------------------------------------------------------------------------------------


def _replace_sealing(app: web.Application, seal: Callable[[RSAPublicKey, SessionKey], bytes]) -> None:
    def replace(app: web.Application) -> None:
        app[REPORTS].seal = seal

    on_startup(app, replace)


@deviation(
    "session-key-sealed-sha1",
    "the session key is sealed with RSA-OAEP using SHA-1 (hash and MGF1), not SHA-256",
    breaks="ERIS-CRYPT-003",
)
def session_key_sealed_sha1(app: web.Application, settings: Any) -> None:
    sha1 = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None)
    _replace_sealing(app, lambda public_key, session: public_key.encrypt(session.to_bytes(), sha1))


@deviation(
    "session-key-mgf1-sha1",
    "the session key is sealed with RSA-OAEP SHA-256 but MGF1 with SHA-1 (the default of many Java providers)",
    breaks="ERIS-CRYPT-005",
)
def session_key_mgf1_sha1(app: web.Application, settings: Any) -> None:
    mixed = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA256(), label=None)
    _replace_sealing(app, lambda public_key, session: public_key.encrypt(session.to_bytes(), mixed))


@deviation(
    "session-key-48-bytes",
    "the sealed session key is 48 bytes: the AES key and the nonce, then a 4-byte key version",
    breaks="ERIS-CRYPT-001",
)
def session_key_48_bytes(app: web.Application, settings: Any) -> None:
    oaep = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    version = (1).to_bytes(4, "big")
    _replace_sealing(app, lambda public_key, session: public_key.encrypt(session.to_bytes() + version, oaep))


@deviation(
    "session-key-reused",
    "every order gets the same AES key and nonce: the key source was drawn once, at startup",
    breaks="ERIS-CRYPT-001",
)
def session_key_reused(app: web.Application, settings: Any) -> None:
    drawn_once: dict[int, bytes] = {}

    def replace(app: web.Application) -> None:
        draw = app[REPORTS].random_bytes
        app[REPORTS].random_bytes = lambda size: drawn_once.setdefault(size, draw(size))

    on_startup(app, replace)


# -- the artifact -----------------------------------------------------------------------------------------------

Builder = Callable[..., ArtifactFigures]


def _replace_building(app: web.Application, build: Callable[[Builder], Builder]) -> None:
    """The worker writes artifacts with `build(the worker's own builder)`."""

    def replace(app: web.Application) -> None:
        worker = app[REPORT_WORKER]
        worker.build_artifact = build(worker.build_artifact)

    on_startup(app, replace)


def _then_rewrite_file(change: Callable[[bytes, SessionKey], bytes]) -> Callable[[Builder], Builder]:
    def wrap(build: Builder) -> Builder:
        def build_then_change(
            path: Path, request: ReportRequest, data: ReportData, session: SessionKey, *, compression: bool
        ) -> ArtifactFigures:
            figures = build(path, request, data, session, compression=compression)
            path.write_bytes(change(path.read_bytes(), session))
            return figures

        return build_then_change

    return wrap


@deviation(
    "artifact-nonce-prepended",
    "the artifact is the 12-byte nonce, then the ciphertext and the tag",
    breaks="ERIS-CRYPT-004",
)
def artifact_nonce_prepended(app: web.Application, settings: Any) -> None:
    _replace_building(app, _then_rewrite_file(lambda artifact, session: session.nonce + artifact))


@deviation(
    "artifact-tag-dropped",
    "the artifact is the ciphertext alone: the 16-byte GCM tag is not written after it",
    breaks="ERIS-CRYPT-002",
)
def artifact_tag_dropped(app: web.Application, settings: Any) -> None:
    _replace_building(app, _then_rewrite_file(lambda artifact, session: artifact[:-TAG_BYTES]))


@deviation(
    "artifact-under-another-nonce",
    "the artifact is encrypted with the sealed AES key but a nonce of its own, not the sealed nonce",
    breaks="ERIS-CRYPT-006",
)
def artifact_under_another_nonce(app: web.Application, settings: Any) -> None:
    def wrap(build: Builder) -> Builder:
        def build_with_own_nonce(
            path: Path, request: ReportRequest, data: ReportData, session: SessionKey, *, compression: bool
        ) -> ArtifactFigures:
            own = SessionKey(session.key, os.urandom(NONCE_BYTES))
            return build(path, request, data, own, compression=compression)

        return build_with_own_nonce

    _replace_building(app, wrap)


# -- what is queued: runAt, compression, format -------------------------------------------------------------------


def _replace_queueing(app: web.Application, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Accepted orders are queued as `change(queue.add's keyword arguments)` makes them."""

    def replace(app: web.Application) -> None:
        queue = app[REPORTS].queue
        add = queue.add

        def add_changed(**arguments: Any) -> None:
            add(**change(arguments))

        queue.add = add_changed  # type: ignore[method-assign]

    on_startup(app, replace)


@deviation(
    "run-at-ignored",
    "every order runs as soon as it is accepted: a runAt in the future is not waited for",
    breaks="ERIS-REPORT-011",
)
def run_at_ignored(app: web.Application, settings: Any) -> None:
    def now(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "run_at": app[REPORTS].queue.clock()}

    _replace_queueing(app, now)


@deviation(
    "run-at-past-deferred",
    "a runAt in the past (or now) is taken as a daily time: the order runs at its next occurrence, up to a day "
    "later, not at once",
    breaks="ERIS-REPORT-004",
)
def run_at_past_deferred(app: web.Application, settings: Any) -> None:
    def next_occurrence(arguments: dict[str, Any]) -> dict[str, Any]:
        run_at, now = arguments["run_at"], app[REPORTS].queue.clock()
        if run_at <= now:
            run_at += DAY_SECONDS * (1 + (now - run_at) // DAY_SECONDS)
        return {**arguments, "run_at": run_at}

    _replace_queueing(app, next_occurrence)


@deviation(
    "compression-ignored",
    "compression true is ignored: the report is encrypted uncompressed",
    breaks="ERIS-REPORT-012",
)
def compression_ignored(app: web.Application, settings: Any) -> None:
    def uncompressed(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "order": {**arguments["order"], "compression": False}}

    _replace_queueing(app, uncompressed)


@deviation(
    "format-ignored",
    "every report is generated as parquet, whatever format the order names",
    breaks="ERIS-REPORT-001",
)
def format_ignored(app: web.Application, settings: Any) -> None:
    def parquet(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "order": {**arguments["order"], "format": "parquet"}}

    _replace_queueing(app, parquet)


# -- delivery, the gateway ----------------------------------------------------------------------------------------


def _replace_http_targets(app: web.Application, target_for: Callable[[DeliveryTarget], DeliveryTarget]) -> None:
    replace_delivery_targets(app, target_for, ("http",))


@dataclasses.dataclass(frozen=True)
class _NowhereTarget:
    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        return None


@deviation(
    "no-http-delivery",
    "orders with http storage are generated and marked delivered, but the artifact is never POSTed",
    breaks="ERIS-REPORT-013",
)
def no_http_delivery(app: web.Application, settings: Any) -> None:
    _replace_http_targets(app, lambda target: _NowhereTarget())


def _nowhere(storage_type: str) -> Callable[[web.Application, Any], None]:
    def install(app: web.Application, settings: Any) -> None:
        replace_delivery_targets(app, lambda target: _NowhereTarget(), (storage_type,))

    return install


no_blob_delivery = deviation(
    "no-blob-delivery",
    "orders with blob storage are generated and marked delivered, but nothing is written into the container",
    breaks="ERIS-REPORT-020",
)(_nowhere("blob"))
no_smb_delivery = deviation(
    "no-smb-delivery",
    "orders with smb storage are generated and marked delivered, but nothing is written into the share",
    breaks="ERIS-REPORT-021",
)(_nowhere("smb"))
no_local_delivery = deviation(
    "no-local-delivery",
    "orders with local storage are generated and marked delivered, but nothing is written into the folder",
    breaks="ERIS-REPORT-022",
)(_nowhere("local"))


@dataclasses.dataclass(frozen=True)
class _RenamedTarget:
    inner: DeliveryTarget

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        await self.inner.deliver(artifact, execution_id=execution_id, file_name=f"report-{execution_id[:8]}.bin")


@deviation(
    "store-artifact-named-otherwise",
    "artifacts written into blob, smb and local stores are named report-<id>.bin (the contract shows no name)",
)
def store_artifact_named_otherwise(app: web.Application, settings: Any) -> None:
    replace_delivery_targets(app, _RenamedTarget, ("blob", "smb", "local"))


@deviation(
    "retry-after-missing",
    "the gateway's 429 answers carry no Retry-After header; orders beyond 100 at once (then 50 a second) from one "
    "address are refused so, whatever the load of the machine (the quota is not shown)",
    breaks="ERIS-ERR-307",
)
def retry_after_missing(app: web.Application, settings: Any) -> None:
    # the service's own quota (200 a second) is reached by the suite's burst only on an idle machine
    orders = RateLimiter(50, 100)

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request) and orders.check(request.remote or "") is not None:
            return problem(429, "the gateway rate limit is exceeded")
        response = await handler(request)
        if response.status == 429:
            response.headers.popall(hdrs.RETRY_AFTER, None)
        return response

    add_outer_middleware(app, middleware)


WINDOW_ORDERS, WINDOW_SECONDS = 100, 12.0


@deviation(
    "retry-after-missing-in-a-window",
    f"orders beyond {WINDOW_ORDERS} in a window of {WINDOW_SECONDS:g} s from one address are refused with 429 until "
    "the window ends, and no 429 carries Retry-After (the quota is not shown)",
    breaks="ERIS-ERR-307",
)
def retry_after_missing_in_a_window(app: web.Application, settings: Any) -> None:
    # a gateway counting in windows, as met in the field: a client that retries after a second or two, three
    # times, is still refused when the window is long; one that backs off longer is let through
    windows: dict[str, tuple[float, int]] = {}

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request):
            now, client = time.monotonic(), request.remote or ""
            opened, count = windows.get(client, (now, 0))
            if now - opened >= WINDOW_SECONDS:
                opened, count = now, 0
            windows[client] = (opened, count + 1)
            if count >= WINDOW_ORDERS:
                return problem(429, "the gateway rate limit is exceeded")
        response = await handler(request)
        if response.status == 429:
            response.headers.popall(hdrs.RETRY_AFTER, None)
        return response

    add_outer_middleware(app, middleware)


@dataclasses.dataclass(frozen=True)
class _TwiceTarget:
    inner: DeliveryTarget

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        for _ in range(2):
            await self.inner.deliver(artifact, execution_id=execution_id, file_name=file_name)


@deviation(
    "delivery-repeated",
    "every http delivery is POSTed twice under the same executionId (its idempotency key); retries are not shown",
)
def delivery_repeated(app: web.Application, settings: Any) -> None:
    _replace_http_targets(app, _TwiceTarget)
