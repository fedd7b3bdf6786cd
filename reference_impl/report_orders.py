"""POST /v1/reports: accept a report order, answer 202 at once, leave the rest to the worker.

The answers follow the contract's Errors part, checked in this order: 401 (no valid token, the
auth middleware) and 403 (no retrospective-report right); 400 for a body that is not a JSON
object; 404 when reportId is missing (also when only groupId is given) or names no report this
installation produces ("report type not found"); 400 for every other fault of the order (a
missing publicKeyPem, a Month outside 1..12, a storage the service cannot use...) listing the
validator's issues; 500 when the session key cannot be made or sealed. 429 comes from the gateway
rate limit before any of these.
"""

from __future__ import annotations

import base64
import dataclasses
import ipaddress
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from profiles.limits import LIMITS
from profiles.report_rules import parse_datetime, unchosen_report
from reference_impl.auth import require_right
from reference_impl.problems import problem
from reference_impl.report_data import report_data
from reference_impl.report_queue import OrderRow, ReportQueue
from reference_impl.report_worker import ReportWorker
from reference_impl.state import Service
from reference_impl.writes import Rejected, json_body, rejections_answered
from reports.crypto import SessionKey, min_rsa_bits_for_session_key, seal_session_key
from reports.delivery import StorageRefused, delivery_target
from reports.generate import ReportData

__all__ = ["REPORTS", "ReportDesk", "order_report"]

log = logging.getLogger(__name__)


@dataclass
class ReportDesk:
    """What the report handler and worker share on the application."""

    queue: ReportQueue
    worker: ReportWorker
    local_root: Path | None
    random_bytes: Callable[[int], bytes] = os.urandom
    """The source of session keys; injectable so that a failing source can be tested (the 500)."""
    seal: Callable[[RSAPublicKey, SessionKey], bytes] = seal_session_key
    """How the session key is sealed for the order's key; injectable like `random_bytes`, so that a failing
    cryptographic provider (the 500) can be tested."""


REPORTS = web.AppKey("reports", ReportDesk)


def data_for(service: Service, product_count: int) -> Callable[[OrderRow], ReportData]:
    """The report data of an order, read when it runs: a company gone since the order gets an empty report."""

    def read(order: OrderRow) -> ReportData:
        tax_no = order.parameters["CompanyTaxNo"]
        year, month = int(order.parameters["Year"]), int(order.parameters["Month"])
        found = report_data(service, tax_no, year, month, product_count)
        return found or ReportData(company_tax_no=tax_no, company_name="", cost_centers=(), product_count=0)

    return read


def _own_address(request: web.Request) -> tuple[str, int]:
    """The address and port this request reached the service at; a loopback or unspecified listening address
    stands for every loopback address."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if not sockname:
        return ("loopback", 0)
    address, port = sockname[0], sockname[1]
    listening = ipaddress.ip_address(address.split("%", 1)[0])
    return ("loopback", port) if listening.is_loopback or listening.is_unspecified else (str(listening), port)


@rejections_answered
async def order_report(request: web.Request, service: Service) -> web.Response:
    require_right(request)
    desk = request.app[REPORTS]
    order = await json_body(request, wrong_media_type=400)  # "Content-Type: application/json (required)"
    _check_report_id(service, order)
    errors = [i for i in service.validator.iter_issues(order, resource_type="ReportOrder") if i.is_error]
    if errors:
        faults = "; ".join(f"{i.message} (at {i.location or '/'})" for i in errors)
        raise Rejected(problem(400, f"the report order is malformed: {faults}", issues=[i.to_dict() for i in errors]))
    public_key = _public_key(order["publicKeyPem"])
    _check_company(service, desk, order)
    policy = desk.worker.http_policy
    if (own := _own_address(request)) not in policy.own:  # an order must not make the service call itself
        policy = desk.worker.http_policy = dataclasses.replace(policy, own=policy.own | {own})
    try:
        delivery_target(
            order["storage"]["type"],
            order["storage"]["connectionString"],
            local_root=desk.local_root,
            http_policy=policy,
        )
    except StorageRefused as refused:
        detail = str(refused) if "storage." in str(refused) else f"storage.connectionString: {refused}"
        raise Rejected(problem(400, detail, parameter="storage.connectionString")) from None
    try:
        session = SessionKey.generate(desk.random_bytes)
        sealed = desk.seal(public_key, session)
    except Exception:
        log.exception("the session key of a report order could not be made or sealed")
        raise Rejected(
            problem(500, "the cryptographic function is unavailable: the AES session key could not be generated")
        ) from None
    execution_id = str(uuid.uuid4())
    run_at = parse_datetime(order["runAt"]).timestamp()
    desk.queue.add(execution_id=execution_id, order=order, run_at=run_at, session_key=session)
    desk.worker.wake()
    return web.json_response(
        {"executionId": execution_id, "encryptedSessionKey": base64.b64encode(sealed).decode("ascii")}, status=202
    )


def _check_report_id(service: Service, order: dict[str, Any]) -> None:
    # this installation produces every report of the contract, so the validator's rule decides the 404
    unchosen = unchosen_report(order, service.contract.operations)
    if unchosen is not None:
        raise Rejected(problem(404, f"report type not found: {unchosen.message}"))


def _public_key(pem: str) -> RSAPublicKey:
    key = load_pem_public_key(pem.strip().encode("ascii"))  # the validator has read it already
    assert isinstance(key, RSAPublicKey)
    if key.key_size < min_rsa_bits_for_session_key():
        raise Rejected(
            problem(
                400,
                f"publicKeyPem is an RSA key of {key.key_size} bits: too small to seal the "
                f"{LIMITS.session_key_bytes}-byte session key with RSA-OAEP SHA-256 (at least "
                f"{min_rsa_bits_for_session_key()} bits; {LIMITS.recommended_rsa_bits} are recommended)",
                parameter="publicKeyPem",
            )
        )
    return key


def _check_company(service: Service, desk: ReportDesk, order: dict[str, Any]) -> None:
    parameters = order["parameters"]
    tax_no = parameters["CompanyTaxNo"]
    if not 1 <= int(parameters["Year"]) <= 9999:
        raise Rejected(
            problem(
                400,
                f"parameters.Year {parameters['Year']!r} is outside the years of the calendar (1 to 9999)",
                parameter="parameters.Year",
            )
        )
    if report_data(service, tax_no, int(parameters["Year"]), int(parameters["Month"]), 0) is None:
        raise Rejected(
            problem(
                400,
                f"parameters.CompanyTaxNo {tax_no!r} is not the tax number of a company of this installation",
                parameter="parameters.CompanyTaxNo",
            )
        )
