"""Minting and verifying RS256 bearer tokens: the claims, the signature, and every token that is refused."""

import base64
import hashlib
import hmac
import json
import shutil
import subprocess

import pytest
from auth_tokens import NOW, b64url, claims_payload, minted_token, unsigned_token
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from reference_impl.tokens import LEEWAY_SECONDS, REPORT_RIGHT, Claims, InvalidToken, TokenVerifier


@pytest.fixture(scope="module")
def verifier(keys):
    return TokenVerifier({keys.key_id: keys.public_key}, clock=lambda: NOW)


def _rejection(verifier, token) -> str:
    with pytest.raises(InvalidToken) as raised:
        verifier.verify(token)
    return raised.value.reason


def test_minted_token_verifies_to_its_claims(keys, verifier):
    claims = verifier.verify(minted_token(keys))
    assert claims == Claims(subject="integrator-1", rights=frozenset({REPORT_RIGHT}), expires_at=NOW + 3600)
    assert claims.has_right(REPORT_RIGHT)
    assert not claims.has_right("other")


def test_minted_token_has_the_documented_header_and_claims(keys):
    header_part, payload_part, _ = minted_token(keys, lifetime_seconds=60).split(".")
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
    header_part, payload_part, signature_part = minted_token(keys).split(".")
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
    assert verifier.verify(minted_token(keys, key_id=None), now=NOW).subject == "integrator-1"


def test_token_without_rights_claim_holds_no_rights(keys, verifier):
    token = minted_token(keys, rights=())
    assert verifier.verify(token).rights == frozenset()


def test_expired_token_is_rejected(keys, verifier):
    token = minted_token(keys, lifetime_seconds=60, now=NOW - 60 - LEEWAY_SECONDS)
    assert _rejection(verifier, token) == "the token has expired"


def test_expiry_tolerates_the_documented_leeway(keys, verifier):
    token = minted_token(keys, lifetime_seconds=60, now=NOW - 60 - LEEWAY_SECONDS + 1)
    assert verifier.verify(token).subject == "integrator-1"


def test_not_yet_valid_token_is_rejected(keys, verifier):
    token = minted_token(keys, now=NOW + LEEWAY_SECONDS + 1)
    assert _rejection(verifier, token) == "the token is not valid yet (nbf)"


def test_token_signed_by_another_key_is_rejected(keys, other_keys, verifier):
    assert "key id" in _rejection(verifier, minted_token(other_keys))
    assert "signature" in _rejection(verifier, minted_token(other_keys, key_id=keys.key_id))
    assert "signature" in _rejection(verifier, minted_token(other_keys, key_id=None))


def test_tampered_payload_is_rejected(keys, verifier):
    header_part, _, signature_part = minted_token(keys, rights=()).split(".")
    forged = b64url(json.dumps(claims_payload(rights=[REPORT_RIGHT])).encode())
    assert "signature" in _rejection(verifier, f"{header_part}.{forged}.{signature_part}")


def test_tampered_signature_is_rejected(keys, verifier):
    header_part, payload_part, signature_part = minted_token(keys).split(".")
    signature = bytearray(base64.urlsafe_b64decode(signature_part + "=" * (-len(signature_part) % 4)))
    signature[-1] ^= 0x01
    assert "signature" in _rejection(verifier, f"{header_part}.{payload_part}.{b64url(bytes(signature))}")


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "", None])
def test_unsigned_token_is_rejected(alg, verifier):
    token = unsigned_token({"alg": alg, "typ": "JWT"}, claims_payload(rights=[REPORT_RIGHT])) + "."
    assert _rejection(verifier, token) == "the token algorithm is not RS256"


def test_hs256_token_keyed_with_the_public_key_is_rejected(keys, verifier):
    # The classic confusion: a verifier that lets the header choose the algorithm would take the
    # (public) RSA key as an HMAC secret and accept this forgery.
    public_pem = keys.public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = unsigned_token(
        {"alg": "HS256", "typ": "JWT", "kid": keys.key_id}, claims_payload(rights=[REPORT_RIGHT])
    )
    signature = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    assert _rejection(verifier, f"{signing_input}.{b64url(signature)}") == "the token algorithm is not RS256"


@pytest.mark.parametrize("alg", ["RS384", "RS512", "PS256", "ES256", "rs256", "RS256 ", ["RS256"]])
def test_any_other_algorithm_is_rejected(alg, keys, verifier):
    _, payload_part, signature_part = minted_token(keys).split(".")
    header = b64url(json.dumps({"alg": alg, "typ": "JWT", "kid": keys.key_id}).encode())
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
        b64url(b"not json") + "." + b64url(b"{}") + "." + b64url(b"sig"),
        b64url(b"[1, 2]") + "." + b64url(b"{}") + "." + b64url(b"sig"),
        b64url(b"[" * 3000 + b"]" * 3000) + "." + b64url(b"{}") + "." + b64url(b"sig"),
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
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(payload)}"
    signature = keys.private_key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{b64url(signature)}"


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
    token = _signed(keys, {"alg": "RS256", "crit": ["exp"]}, json.dumps(claims_payload()).encode())
    assert "critical" in _rejection(verifier, token)


def test_rejection_reasons_never_repeat_the_token(keys, other_keys, verifier):
    token = minted_token(other_keys)
    for part in token.split("."):
        assert part not in _rejection(verifier, token)
