"""The bearer-token middleware: which requests it lets through, and its 401 and 403 problems."""

import asyncio
import hashlib
import hmac
import json
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from auth_tokens import b64url, claims_payload, minted_token, unsigned_token
from cryptography.hazmat.primitives import serialization

from reference_impl.auth import AuthPolicy, auth_middleware, claims_of, require_right
from reference_impl.problems import PROBLEM_JSON, STATUS_TYPES, TITLES
from reference_impl.tokens import REPORT_RIGHT, TokenVerifier


async def _whoami(request: web.Request) -> web.Response:
    claims = claims_of(request)
    return web.json_response({"subject": None if claims is None else claims.subject})


async def _order_report(request: web.Request) -> web.Response:
    claims = require_right(request, REPORT_RIGHT)
    return web.json_response({"subject": claims.subject}, status=202)


def _app(verifier, policy=None) -> web.Application:
    app = web.Application(middlewares=[auth_middleware(verifier, policy)])
    app.router.add_post("/v1/reports", _order_report)
    app.router.add_get("/v1/parties", _whoami)
    return app


def _exchange(app, method, path, authorization=None):
    async def run():
        headers = {} if authorization is None else {"Authorization": authorization}
        async with (
            TestClient(TestServer(app, host="127.0.0.1")) as client,
            client.request(method, path, headers=headers, json={}) as response,
        ):
            return response.status, response.headers.copy(), await response.json(content_type=None)

    return asyncio.run(run())


@pytest.fixture(scope="module")
def live_verifier(keys):
    return TokenVerifier({keys.key_id: keys.public_key})


def _live_token(keys, **options):
    return minted_token(keys, now=time.time(), **options)


def test_valid_token_with_the_right_is_accepted(keys, live_verifier):
    status, _, body = _exchange(_app(live_verifier), "POST", "/v1/reports", f"Bearer {_live_token(keys)}")
    assert (status, body) == (202, {"subject": "integrator-1"})


def test_bearer_scheme_is_case_insensitive(keys, live_verifier):
    status, _, _ = _exchange(_app(live_verifier), "POST", "/v1/reports", f"bearer {_live_token(keys)}")
    assert status == 202


def _assert_problem(status, headers, body, expected_status):
    assert status == expected_status
    assert headers["Content-Type"].startswith(PROBLEM_JSON)
    assert body["type"] == STATUS_TYPES[expected_status]
    assert body["title"] == TITLES[expected_status]
    assert body["status"] == expected_status
    return body["detail"]


def _unauthorized(keys, live_verifier, authorization) -> str:
    status, headers, body = _exchange(_app(live_verifier), "POST", "/v1/reports", authorization)
    detail = _assert_problem(status, headers, body, 401)
    assert headers["WWW-Authenticate"].startswith("Bearer")
    if authorization is not None:
        for part in authorization.split(" ")[-1].split("."):
            if len(part) >= 8:  # a token part, not the scheme or an empty signature
                assert part not in detail
                assert part not in headers["WWW-Authenticate"]
    return detail


def test_missing_authorization_gives_401(keys, live_verifier):
    assert "no Authorization header" in _unauthorized(keys, live_verifier, None)


def test_basic_scheme_gives_401(keys, live_verifier):
    assert "Bearer scheme" in _unauthorized(keys, live_verifier, "Basic aW50ZWdyYXRvcjpzZWNyZXQ=")


def test_bearer_without_token_gives_401(keys, live_verifier):
    assert "Bearer scheme" in _unauthorized(keys, live_verifier, "Bearer ")


def test_expired_token_gives_401(keys, live_verifier):
    token = minted_token(keys, lifetime_seconds=60, now=time.time() - 3600)
    assert _unauthorized(keys, live_verifier, f"Bearer {token}").endswith("the token has expired")


def test_not_yet_valid_token_gives_401(keys, live_verifier):
    token = minted_token(keys, now=time.time() + 3600)
    assert _unauthorized(keys, live_verifier, f"Bearer {token}").endswith("not valid yet (nbf)")


def test_token_of_another_key_gives_401(keys, other_keys, live_verifier):
    token = minted_token(other_keys, now=time.time(), key_id=keys.key_id)
    assert "signature does not verify" in _unauthorized(keys, live_verifier, f"Bearer {token}")


def test_tampered_payload_gives_401(keys, live_verifier):
    header_part, _, signature_part = _live_token(keys, rights=()).split(".")
    forged = b64url(json.dumps(claims_payload(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)).encode())
    detail = _unauthorized(keys, live_verifier, f"Bearer {header_part}.{forged}.{signature_part}")
    assert "signature does not verify" in detail


def test_tampered_signature_gives_401(keys, live_verifier):
    header_part, payload_part, signature_part = _live_token(keys).split(".")
    tampered = ("A" if signature_part[0] != "A" else "B") + signature_part[1:]
    detail = _unauthorized(keys, live_verifier, f"Bearer {header_part}.{payload_part}.{tampered}")
    assert "signature does not verify" in detail


def test_alg_none_gives_401(keys, live_verifier):
    token = unsigned_token({"alg": "none"}, claims_payload(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)) + "."
    assert "algorithm is not RS256" in _unauthorized(keys, live_verifier, f"Bearer {token}")


def test_hs256_keyed_with_the_public_key_gives_401(keys, live_verifier):
    public_pem = keys.public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = unsigned_token(
        {"alg": "HS256", "kid": keys.key_id}, claims_payload(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)
    )
    token = f"{signing_input}.{b64url(hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest())}"
    assert "algorithm is not RS256" in _unauthorized(keys, live_verifier, f"Bearer {token}")


def test_garbage_token_gives_401(keys, live_verifier):
    assert "malformed token" in _unauthorized(keys, live_verifier, "Bearer garbage")


def test_token_without_the_report_right_gives_403(keys, live_verifier):
    token = _live_token(keys, rights=("something-else",))
    status, headers, body = _exchange(_app(live_verifier), "POST", "/v1/reports", f"Bearer {token}")
    assert REPORT_RIGHT in _assert_problem(status, headers, body, 403)
    assert 'error="insufficient_scope"' in headers["WWW-Authenticate"]


def test_require_right_without_claims_gives_401(live_verifier):
    status, headers, body = _exchange(_app(live_verifier, AuthPolicy(protected=frozenset())), "POST", "/v1/reports")
    _assert_problem(status, headers, body, 401)


def test_unprotected_endpoint_needs_no_token(live_verifier):
    status, _, body = _exchange(_app(live_verifier), "GET", "/v1/parties")
    assert (status, body) == (200, {"subject": None})


def test_unprotected_endpoint_reads_a_valid_token_and_ignores_an_invalid_one(keys, other_keys, live_verifier):
    status, _, body = _exchange(_app(live_verifier), "GET", "/v1/parties", f"Bearer {_live_token(keys)}")
    assert (status, body) == (200, {"subject": "integrator-1"})
    for authorization in ("Bearer garbage", f"Bearer {_live_token(other_keys)}", "Basic x"):
        status, _, body = _exchange(_app(live_verifier), "GET", "/v1/parties", authorization)
        assert (status, body) == (200, {"subject": None})


def test_all_endpoints_policy_demands_a_token_everywhere(keys, live_verifier):
    policy = AuthPolicy(all_endpoints=True)
    status, headers, body = _exchange(_app(live_verifier, policy), "GET", "/v1/parties")
    _assert_problem(status, headers, body, 401)
    status, _, body = _exchange(_app(live_verifier, policy), "GET", "/v1/parties", f"Bearer {_live_token(keys)}")
    assert (status, body) == (200, {"subject": "integrator-1"})


def test_policy_protects_listed_pairs_only():
    policy = AuthPolicy(protected=frozenset({("POST", "/v1/reports"), ("GET", "/v1/parties")}))
    assert policy.demands_token("POST", "/v1/reports")
    assert policy.demands_token("HEAD", "/v1/parties")
    assert not policy.demands_token("GET", "/v1/reports")
    assert not AuthPolicy().demands_token("GET", "/v1/parties")
