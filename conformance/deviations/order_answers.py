"""Faults of write bodies the contract fixes and of the answers of POST /v1/reports: a field the contract makes
optional demanded, one it makes required not, a default turned over, a status code of the Errors part swapped
for another, an execution id or a public key reused, a notification naming what cannot be read."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    add_outer_middleware,
    json_of,
    on_startup,
    path_is,
    rewrite_json_answer,
    rewrite_json_body,
    rewrite_notifications,
)
from reference_impl.problems import problem
from reference_impl.report_orders import REPORTS as REPORT_DESK

is_report_order = path_is("POST", "/v1/reports")
DOCUMENTS = "/v1/document-references"


def _refuse_bodies(app: web.Application, method: str, path: str, refused: Any, detail: str) -> None:
    """`method path` with a JSON object body for which `refused(body)` holds answers 400 `detail`."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if path_is(method, path)(request):
            body = await json_of(request)
            if isinstance(body, dict) and refused(body):
                return problem(400, detail)
        return await handler(request)

    add_middleware(app, middleware)


def _reanswer_orders(app: web.Application, change: Any, *, outermost: bool = False) -> None:
    """Answers of POST /v1/reports become `change(request, answer)` when that gives one. `outermost`: seen
    after authentication (whose 401 and 403 only the outermost middleware sees)."""

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as error:
            response = error
        return (change(request, response) or response) if is_report_order(request) else response

    (add_outer_middleware if outermost else add_middleware)(app, middleware)


# -- write bodies ------------------------------------------------------------------------------------------


@deviation(
    "warehouse-patch-refuses-type",
    "PATCH /v1/document-references refuses a body carrying type (400: only the status may be sent), though the "
    "contract's body has identifier, status and type",
    breaks="ERIS-DOC-W-001",
)
def warehouse_patch_refuses_type(app: web.Application, settings: Any) -> None:
    _refuse_bodies(app, "PATCH", DOCUMENTS, lambda body: "type" in body, "type cannot be changed: send status only")


@deviation(
    "hr-inbox-post-demands-identifier-value",
    "POST /v1/document-references refuses an HR inbox document whose identifier has no value (the contract: "
    "system recommended, value optional)",
    breaks="ERIS-DOC-W-002",
)
def hr_inbox_post_demands_identifier_value(app: web.Application, settings: Any) -> None:
    def without_value(body: dict[str, Any]) -> bool:
        named = [i for i in body.get("identifier") or [] if isinstance(i, dict)]
        return any("value" not in identifier for identifier in named)

    _refuse_bodies(app, "POST", DOCUMENTS, without_value, "identifier.value is required")


@deviation(
    "post-party-demands-owner",
    "POST /v1/parties refuses a Contractor without owner (400), though the contract makes owner optional",
    breaks="ERIS-PARTY-012",
)
def post_party_demands_owner(app: web.Application, settings: Any) -> None:
    _refuse_bodies(app, "POST", "/v1/parties", lambda body: not body.get("owner"), "owner is required")


# -- the order ---------------------------------------------------------------------------------------------


@deviation(
    "rsa-public-key-header-refused",
    "an order whose publicKeyPem is a PKCS#1 key (BEGIN RSA PUBLIC KEY) is refused with 400; only BEGIN PUBLIC "
    "KEY is read",
    breaks="ERIS-REPORT-002",
)
def rsa_public_key_header_refused(app: web.Application, settings: Any) -> None:
    def pkcs1(body: dict[str, Any]) -> bool:
        return "BEGIN RSA PUBLIC KEY" in str(body.get("publicKeyPem"))

    _refuse_bodies(app, "POST", "/v1/reports", pkcs1, "publicKeyPem must be a SubjectPublicKeyInfo key")


@deviation(
    "storage-connection-string-optional",
    "an order without storage.connectionString is accepted (202) and delivered nowhere; the contract requires both "
    "type and connectionString",
    breaks="ERIS-REPORT-005",
)
def storage_connection_string_optional(app: web.Application, settings: Any) -> None:
    def nowhere(order: dict[str, Any], request: web.Request) -> dict[str, Any]:
        storage = order.get("storage")
        if isinstance(storage, dict) and "connectionString" not in storage:
            storage |= {"type": "http", "connectionString": "http://127.0.0.1:9/eris-nowhere"}
        return order

    rewrite_json_body(app, is_report_order, nowhere)


@deviation(
    "compression-default-true",
    "an order that leaves compression out is compressed (the contract: compression defaults to false)",
    breaks="ERIS-REPORT-009",
)
def compression_default_true(app: web.Application, settings: Any) -> None:
    def compressed(order: dict[str, Any], request: web.Request) -> dict[str, Any]:
        order.setdefault("compression", True)
        return order

    rewrite_json_body(app, is_report_order, compressed)


@deviation(
    "session-key-base64url",
    "encryptedSessionKey is given in base64url without padding (- and _), not base64",
    breaks="ERIS-REPORT-010",
)
def session_key_base64url(app: web.Application, settings: Any) -> None:
    def url_safe(body: Any, request: web.Request, status: int) -> Any:
        if status == 202 and isinstance(body, dict) and isinstance(body.get("encryptedSessionKey"), str):
            key = body["encryptedSessionKey"].replace("+", "-").replace("/", "_").rstrip("=")
            if "-" not in key and "_" not in key:
                key = key[:-1] + "_"  # every key differs from base64, not only those holding + or /
            body["encryptedSessionKey"] = key
        return body

    rewrite_json_answer(app, is_report_order, url_safe)


@deviation(
    "execution-id-reused",
    "every order's executionId is the same (the report id), so it neither tells orders apart nor keys a delivery",
    breaks="ERIS-REPORT-014",
)
def execution_id_reused(app: web.Application, settings: Any) -> None:
    def same(body: Any, request: web.Request, status: int) -> Any:
        if status == 202 and isinstance(body, dict) and "executionId" in body:
            body["executionId"] = "cost-calculation"
        return body

    rewrite_json_answer(app, is_report_order, same)


@deviation(
    "order-not-sent-as-json-415",
    "an order sent without Content-Type application/json is answered 415, a status the Errors part does not list "
    "for POST /v1/reports",
    breaks="ERIS-ERR-300",
)
def order_not_sent_as_json_415(app: web.Application, settings: Any) -> None:
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request) and not request.content_type.endswith("json"):
            return problem(415, f"the order must be application/json, not {request.content_type!r}")
        return await handler(request)

    add_middleware(app, middleware)


@deviation(
    "missing-year-500",
    "an order without parameters.Year fails inside the service: 500 (a client's fault blamed on the service)",
    breaks="ERIS-ERR-308",
)
def missing_year_500(app: web.Application, settings: Any) -> None:
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request):
            order = await json_of(request)
            parameters = order.get("parameters") if isinstance(order, dict) else None
            if isinstance(parameters, dict) and "Year" not in parameters:
                return problem(500, "KeyError: 'Year'")
        return await handler(request)

    add_middleware(app, middleware)


@deviation(
    "order-accepted-200",
    "a valid order is answered 200 with executionId and encryptedSessionKey, not 202",
    breaks="ERIS-ERR-301",
)
def order_accepted_200(app: web.Application, settings: Any) -> None:
    def as_200(request: web.Request, response: web.StreamResponse) -> web.StreamResponse | None:
        if isinstance(response, web.Response) and response.status == 202:
            return web.Response(body=response.body, status=200, content_type="application/json")
        return None

    _reanswer_orders(app, as_200)


@deviation(
    "invalid-token-403",
    "an invalid Bearer token (bad signature, expired, malformed) on POST /v1/reports is answered 403, not 401; "
    "a missing one still gets 401",
    breaks="ERIS-ERR-303",
)
def invalid_token_403(app: web.Application, settings: Any) -> None:
    def as_403(request: web.Request, response: web.StreamResponse) -> web.StreamResponse | None:
        if response.status == 401 and request.headers.get("Authorization"):
            return problem(403, "the token is not accepted")
        return None

    _reanswer_orders(app, as_403, outermost=True)


@deviation(
    "missing-right-401",
    "a valid token without the retrospective-report right is answered 401, not 403",
    breaks="ERIS-ERR-304",
)
def missing_right_401(app: web.Application, settings: Any) -> None:
    def as_401(request: web.Request, response: web.StreamResponse) -> web.StreamResponse | None:
        if response.status == 403:
            return problem(401, "not authorised for reports", headers={"WWW-Authenticate": "Bearer"})
        return None

    _reanswer_orders(app, as_401, outermost=True)


@deviation(
    "unchosen-report-422",
    "an order that chooses no known report (reportId missing, only groupId, or unknown) is answered 422, not 404",
    breaks="ERIS-ERR-305",
)
def unchosen_report_422(app: web.Application, settings: Any) -> None:
    def as_422(request: web.Request, response: web.StreamResponse) -> web.StreamResponse | None:
        return problem(422, "the order chooses no report") if response.status == 404 else None

    _reanswer_orders(app, as_422)


@deviation(
    "first-public-key-cached",
    "the session key of every order is sealed with the public key of the first order received (cached), not "
    "with the key of its own order",
    breaks="ERIS-CRYPT-007",
)
def first_public_key_cached(app: web.Application, settings: Any) -> None:
    def replace(app: web.Application) -> None:
        desk = app[REPORT_DESK]
        seal = desk.seal
        first: list[Any] = []

        def with_the_first_key(public_key: Any, session: Any) -> bytes:
            first[:] = first or [public_key]
            return seal(first[0], session)

        desk.seal = with_the_first_key

    on_startup(app, replace)


# -- notifications -----------------------------------------------------------------------------------------


@deviation(
    "notification-names-the-database-id",
    "a Notification names the changed resource by the store's row id in the resource's namespace, which no read "
    "by identifier finds",
    breaks="ERIS-EVT-003",
)
def notification_names_the_database_id(app: web.Application, settings: Any) -> None:
    def database_id(notification: dict[str, Any], app: web.Application) -> dict[str, Any]:
        identifier = (notification.get("reference") or {}).get("identifier")
        if isinstance(identifier, dict):
            identifier["value"] = f"row-{abs(hash(identifier.get('value'))) % 100000}"
        return notification

    rewrite_notifications(app, database_id)
