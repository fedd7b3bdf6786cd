"""Faults of authentication on POST /v1/reports: a token not demanded, not verified, or its right not checked."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from aiohttp import hdrs, web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_middleware,
    add_outer_middleware,
    path_is,
)
from reference_impl.app import APPLICATION_KEYS
from reference_impl.tokens import CLAIMS_KEY, REPORT_RIGHT, RIGHTS_CLAIM, mint_token

is_report_order = path_is("POST", "/v1/reports")


# -- authentication -------------------------------------------------------------------------------------------


def _bearer_token(request: web.Request) -> str | None:
    scheme, _, credentials = request.headers.get(hdrs.AUTHORIZATION, "").strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" and credentials.strip() else None


def _jwt_header_and_claims(token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        header, claims = (json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))) for part in parts[:2])
    except (ValueError, binascii.Error):
        return None
    return (header, claims) if isinstance(header, dict) and isinstance(claims, dict) else None


Mint = Callable[[str, list[str]], str]
"""mint(subject, rights): a token signed with the server's own application key."""


def _lend_tokens(app: web.Application, token_for: Callable[[web.Request, str | None, Mint], str | None]) -> None:
    """Requests reach authentication carrying `token_for(request, their bearer token, mint)` instead, when it
    gives one: minted with the server's own key, authentication accepts what the fault lets through."""
    keys = app[APPLICATION_KEYS]

    def mint(subject: str, rights: list[str]) -> str:
        return mint_token(keys.private_key, subject=subject, rights=rights, key_id=keys.key_id)

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        lent = token_for(request, _bearer_token(request), mint)
        if lent is not None:
            headers = request.headers.copy()
            headers[hdrs.AUTHORIZATION] = f"Bearer {lent}"
            request = request.clone(headers=headers)
        return await handler(request)

    add_outer_middleware(app, middleware)


def _reminted(algorithms: set[str]) -> Callable[[web.Request, str | None, Mint], str | None]:
    """The token's own subject and rights signed by the server, when its header names one of `algorithms`."""

    def remint(request: web.Request, token: str | None, mint: Mint) -> str | None:
        parts = _jwt_header_and_claims(token) if token else None
        if parts is None:
            return None
        header, claims = parts
        subject, rights = claims.get("sub"), claims.get(RIGHTS_CLAIM, [])
        if header.get("alg") not in algorithms or not isinstance(subject, str) or not subject:
            return None
        if not isinstance(rights, list) or not all(isinstance(right, str) for right in rights):
            return None
        return mint(subject, rights)

    return remint


@deviation(
    "reports-token-not-required",
    "POST /v1/reports without an Authorization header is served as a caller holding the report right",
    breaks="ERIS-AUTH-001",
)
def reports_token_not_required(app: web.Application, settings: Any) -> None:
    def anonymous(request: web.Request, token: str | None, mint: Mint) -> str | None:
        if is_report_order(request) and hdrs.AUTHORIZATION not in request.headers:
            return mint("anonymous", [REPORT_RIGHT])
        return None

    _lend_tokens(app, anonymous)


@deviation(
    "token-signature-not-verified",
    "an RS256 Bearer token is trusted without verifying its signature (any key, any altered signature)",
    breaks="ERIS-AUTH-002",
)
def token_signature_not_verified(app: web.Application, settings: Any) -> None:
    _lend_tokens(app, _reminted({"RS256"}))


@deviation(
    "token-alg-none-accepted",
    'an unsigned Bearer token (header alg "none") is trusted as if it were signed',
    breaks="ERIS-AUTH-002",
)
def token_alg_none_accepted(app: web.Application, settings: Any) -> None:
    _lend_tokens(app, _reminted({"none", "None", "NONE"}))


@deviation(
    "report-right-not-checked",
    "any valid token may order reports: the retrospective-report right is not required (202, not 403)",
    breaks="ERIS-AUTH-003",
)
def report_right_not_checked(app: web.Application, settings: Any) -> None:
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        claims = request.get(CLAIMS_KEY)
        if is_report_order(request) and claims is not None:
            request[CLAIMS_KEY] = dataclasses.replace(claims, rights=claims.rights | {REPORT_RIGHT})
        return await handler(request)

    add_middleware(app, middleware)
