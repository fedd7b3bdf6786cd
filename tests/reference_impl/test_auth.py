"""RS256 bearer tokens of the reference implementation: minting, verifying, the middleware."""

import asyncio
import base64
import hashlib
import hmac
import json
import shutil
import subprocess
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from reference_impl.auth import AuthPolicy, auth_middleware, claims_of, require_right
from reference_impl.problems import PROBLEM_JSON, STATUS_TYPES, TITLES
from reference_impl.tokens import (
    LEEWAY_SECONDS,
    REPORT_RIGHT,
    ApplicationKeys,
    Claims,
    InvalidToken,
    TokenVerifier,
    key_id_of,
    mint_token,
    public_keys_from_pem_files,
)

NOW = 1_800_000_000.0


@pytest.fixture(scope="module")
def keys():
    return ApplicationKeys.generate()


@pytest.fixture(scope="module")
def other_keys():
    return ApplicationKeys.generate()


@pytest.fixture(scope="module")
def verifier(keys):
    return TokenVerifier({keys.key_id: keys.public_key}, clock=lambda: NOW)


def _token(keys, *, rights=(REPORT_RIGHT,), now=NOW, **options):
    options.setdefault("key_id", keys.key_id)
    return mint_token(keys.private_key, subject="integrator-1", rights=rights, now=now, **options)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(header: dict, claims: dict) -> str:
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"


def _claims(**overrides):
    claims = {"sub": "integrator-1", "iat": int(NOW), "nbf": int(NOW), "exp": int(NOW) + 3600}
    claims.update(overrides)
    return claims


def _rejection(verifier, token) -> str:
    with pytest.raises(InvalidToken) as raised:
        verifier.verify(token)
    return raised.value.reason


# --- minting and verifying ------------------------------------------------------------------------


def test_minted_token_verifies_to_its_claims(keys, verifier):
    claims = verifier.verify(_token(keys))
    assert claims == Claims(subject="integrator-1", rights=frozenset({REPORT_RIGHT}), expires_at=NOW + 3600)
    assert claims.has_right(REPORT_RIGHT)
    assert not claims.has_right("other")


def test_minted_token_has_the_documented_header_and_claims(keys):
    header_part, payload_part, _ = _token(keys, lifetime_seconds=60).split(".")
    pad = lambda part: part + "=" * (-len(part) % 4)  # noqa: E731
    header = json.loads(base64.urlsafe_b64decode(pad(header_part)))
    payload = json.loads(base64.urlsafe_b64decode(pad(payload_part)))
    assert header == {"alg": "RS256", "typ": "JWT", "kid": keys.key_id}
    assert payload == {
        "iss": "eris",
        "sub": "integrator-1",
        "iat": int(NOW),
        "nbf": int(NOW),
        "exp": int(NOW) + 60,
        "rights": [REPORT_RIGHT],
    }


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_signature_is_rsassa_pkcs1_v1_5_sha256_as_openssl_checks_it(keys, tmp_path):
    header_part, payload_part, signature_part = _token(keys).split(".")
    (tmp_path / "input").write_bytes(f"{header_part}.{payload_part}".encode())
    (tmp_path / "signature").write_bytes(base64.urlsafe_b64decode(signature_part + "=" * (-len(signature_part) % 4)))
    (tmp_path / "key.pem").write_bytes(
        keys.public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    result = subprocess.run(
        ["openssl", "dgst", "-sha256", "-verify", "key.pem", "-signature", "signature", "input"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Verified OK" in result.stdout


def test_token_without_kid_is_tried_against_every_key(keys, other_keys):
    verifier = TokenVerifier({other_keys.key_id: other_keys.public_key, keys.key_id: keys.public_key})
    assert verifier.verify(_token(keys, key_id=None), now=NOW).subject == "integrator-1"


def test_token_without_rights_claim_holds_no_rights(keys, verifier):
    token = _token(keys, rights=())
    assert verifier.verify(token).rights == frozenset()


def test_expired_token_is_rejected(keys, verifier):
    token = _token(keys, lifetime_seconds=60, now=NOW - 60 - LEEWAY_SECONDS)
    assert _rejection(verifier, token) == "the token has expired"


def test_expiry_tolerates_the_documented_leeway(keys, verifier):
    token = _token(keys, lifetime_seconds=60, now=NOW - 60 - LEEWAY_SECONDS + 1)
    assert verifier.verify(token).subject == "integrator-1"


def test_not_yet_valid_token_is_rejected(keys, verifier):
    token = _token(keys, now=NOW + LEEWAY_SECONDS + 1)
    assert _rejection(verifier, token) == "the token is not valid yet (nbf)"


def test_token_signed_by_another_key_is_rejected(keys, other_keys, verifier):
    assert "key id" in _rejection(verifier, _token(other_keys))
    assert "signature" in _rejection(verifier, _token(other_keys, key_id=keys.key_id))
    assert "signature" in _rejection(verifier, _token(other_keys, key_id=None))


def test_tampered_payload_is_rejected(keys, verifier):
    header_part, _, signature_part = _token(keys, rights=()).split(".")
    forged = _b64(json.dumps(_claims(rights=[REPORT_RIGHT])).encode())
    assert "signature" in _rejection(verifier, f"{header_part}.{forged}.{signature_part}")


def test_tampered_signature_is_rejected(keys, verifier):
    header_part, payload_part, signature_part = _token(keys).split(".")
    signature = bytearray(base64.urlsafe_b64decode(signature_part + "=" * (-len(signature_part) % 4)))
    signature[-1] ^= 0x01
    assert "signature" in _rejection(verifier, f"{header_part}.{payload_part}.{_b64(bytes(signature))}")


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "", None])
def test_unsigned_token_is_rejected(alg, verifier):
    token = _unsigned({"alg": alg, "typ": "JWT"}, _claims(rights=[REPORT_RIGHT])) + "."
    assert _rejection(verifier, token) == "the token algorithm is not RS256"


def test_hs256_token_keyed_with_the_public_key_is_rejected(keys, verifier):
    # The classic confusion: a verifier that lets the header choose the algorithm would take the
    # (public) RSA key as an HMAC secret and accept this forgery.
    public_pem = keys.public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = _unsigned({"alg": "HS256", "typ": "JWT", "kid": keys.key_id}, _claims(rights=[REPORT_RIGHT]))
    signature = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    assert _rejection(verifier, f"{signing_input}.{_b64(signature)}") == "the token algorithm is not RS256"


@pytest.mark.parametrize("alg", ["RS384", "RS512", "PS256", "ES256", "rs256", "RS256 ", ["RS256"]])
def test_any_other_algorithm_is_rejected(alg, keys, verifier):
    _, payload_part, signature_part = _token(keys).split(".")
    header = _b64(json.dumps({"alg": alg, "typ": "JWT", "kid": keys.key_id}).encode())
    assert _rejection(verifier, f"{header}.{payload_part}.{signature_part}") == "the token algorithm is not RS256"


@pytest.mark.parametrize(
    "token",
    [
        "",
        "garbage",
        "a.b",
        "a.b.c.d",
        "!!!.???.***",
        "eyJhbGciOiJSUzI1NiJ9.e30=.c2ln",  # padding is not allowed
        _b64(b"not json") + "." + _b64(b"{}") + "." + _b64(b"sig"),
        _b64(b"[1, 2]") + "." + _b64(b"{}") + "." + _b64(b"sig"),
        _b64(b"[" * 3000 + b"]" * 3000) + "." + _b64(b"{}") + "." + _b64(b"sig"),
        "x" * 10_000,
    ],
    ids=[
        "empty",
        "one-part",
        "two-parts",
        "four-parts",
        "not-base64url",
        "padded",
        "header-not-json",
        "header-not-object",
        "header-deeply-nested",
        "too-long",
    ],
)
def test_malformed_token_is_rejected(token, verifier):
    assert _rejection(verifier, token).startswith("malformed token")


def _signed(keys, header: dict, payload: bytes) -> str:
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(payload)}"
    signature = keys.private_key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"not json", "malformed token: the payload is not JSON"),
        (b'{"exp": NaN, "sub": "a"}', "malformed token: the payload is not JSON"),
        (b'"a string"', "malformed token: the payload is not a JSON object"),
        (json.dumps({"exp": NOW + 60}).encode(), "the token has no subject (sub) claim"),
        (json.dumps({"sub": "", "exp": NOW + 60}).encode(), "the token has no subject (sub) claim"),
        (json.dumps({"sub": "a"}).encode(), "the token has no expiry (exp) claim"),
        (json.dumps({"sub": "a", "exp": "tomorrow"}).encode(), "the exp claim is not a number of seconds"),
        (json.dumps({"sub": "a", "exp": True}).encode(), "the exp claim is not a number of seconds"),
        (
            json.dumps({"sub": "a", "exp": NOW + 60, "rights": "all"}).encode(),
            "the rights claim is not an array of strings",
        ),
    ],
)
def test_signed_token_with_bad_claims_is_rejected(payload, reason, keys, verifier):
    assert _rejection(verifier, _signed(keys, {"alg": "RS256", "kid": keys.key_id}, payload)) == reason


def test_critical_header_parameters_are_rejected(keys, verifier):
    token = _signed(keys, {"alg": "RS256", "crit": ["exp"]}, json.dumps(_claims()).encode())
    assert "critical" in _rejection(verifier, token)


def test_rejection_reasons_never_repeat_the_token(keys, other_keys, verifier):
    token = _token(other_keys)
    for part in token.split("."):
        assert part not in _rejection(verifier, token)


# --- keys -----------------------------------------------------------------------------------------


def test_key_id_is_the_rfc7638_thumbprint():
    # RFC 7638 section 3.1: the example RSA key and its SHA-256 thumbprint.
    n = (
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknj"
        "hMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQ"
        "vRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
    )
    modulus = int.from_bytes(base64.urlsafe_b64decode(n + "=" * (-len(n) % 4)), "big")
    public_key = rsa.RSAPublicNumbers(65537, modulus).public_key()
    assert key_id_of(public_key) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def test_load_or_create_generates_once_then_loads(tmp_path):
    created = ApplicationKeys.load_or_create(tmp_path / "keys")
    private_key, public_key = ApplicationKeys.load_or_create(tmp_path / "keys")
    assert private_key.private_numbers() == created.private_key.private_numbers()
    assert public_key.public_numbers() == created.public_key.public_numbers()
    assert private_key.key_size == 2048
    assert (tmp_path / "keys" / ApplicationKeys.PRIVATE_FILE).stat().st_mode & 0o777 == 0o600


def test_public_key_file_configures_a_verifier(tmp_path):
    keys = ApplicationKeys.load_or_create(tmp_path)
    public_keys = public_keys_from_pem_files([tmp_path / ApplicationKeys.PUBLIC_FILE])
    assert list(public_keys) == [keys.key_id]
    token = _token(keys)
    assert TokenVerifier(public_keys).verify(token, now=NOW).subject == "integrator-1"


def test_public_keys_from_pem_files_refuses_what_is_not_an_rsa_public_key(tmp_path):
    (tmp_path / "nonsense.pem").write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    with pytest.raises(ValueError, match=r"nonsense\.pem"):
        public_keys_from_pem_files([tmp_path / "nonsense.pem"])


def test_small_keys_are_refused():
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(ValueError, match="2048"):
        mint_token(small, subject="a", rights=())
    with pytest.raises(ValueError, match="2048"):
        TokenVerifier({"k": small.public_key()})


# --- the middleware -------------------------------------------------------------------------------


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
    return _token(keys, now=time.time(), **options)


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
    token = _token(keys, lifetime_seconds=60, now=time.time() - 3600)
    assert _unauthorized(keys, live_verifier, f"Bearer {token}").endswith("the token has expired")


def test_not_yet_valid_token_gives_401(keys, live_verifier):
    token = _token(keys, now=time.time() + 3600)
    assert _unauthorized(keys, live_verifier, f"Bearer {token}").endswith("not valid yet (nbf)")


def test_token_of_another_key_gives_401(keys, other_keys, live_verifier):
    token = _token(other_keys, now=time.time(), key_id=keys.key_id)
    assert "signature does not verify" in _unauthorized(keys, live_verifier, f"Bearer {token}")


def test_tampered_payload_gives_401(keys, live_verifier):
    header_part, _, signature_part = _live_token(keys, rights=()).split(".")
    forged = _b64(json.dumps(_claims(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)).encode())
    detail = _unauthorized(keys, live_verifier, f"Bearer {header_part}.{forged}.{signature_part}")
    assert "signature does not verify" in detail


def test_tampered_signature_gives_401(keys, live_verifier):
    header_part, payload_part, signature_part = _live_token(keys).split(".")
    tampered = ("A" if signature_part[0] != "A" else "B") + signature_part[1:]
    detail = _unauthorized(keys, live_verifier, f"Bearer {header_part}.{payload_part}.{tampered}")
    assert "signature does not verify" in detail


def test_alg_none_gives_401(keys, live_verifier):
    token = _unsigned({"alg": "none"}, _claims(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)) + "."
    assert "algorithm is not RS256" in _unauthorized(keys, live_verifier, f"Bearer {token}")


def test_hs256_keyed_with_the_public_key_gives_401(keys, live_verifier):
    public_pem = keys.public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = _unsigned(
        {"alg": "HS256", "kid": keys.key_id}, _claims(rights=[REPORT_RIGHT], exp=int(time.time()) + 60)
    )
    token = f"{signing_input}.{_b64(hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest())}"
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
