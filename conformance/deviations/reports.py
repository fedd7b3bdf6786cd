"""Faults of POST /v1/reports (the order, its errors) and of the encryption (the session key, the artifact). What is
queued and how it is delivered are report_runs.py's."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    json_of,
    on_startup,
    path_is,
    rewrite_json_answer,
    rewrite_json_body,
)
from reference_impl.app import REPORT_WORKER
from reference_impl.problems import PROBLEM_JSON, problem
from reference_impl.report_orders import REPORTS
from reports.artifact import ArtifactFigures
from reports.crypto import NONCE_BYTES, TAG_BYTES, SessionKey
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
