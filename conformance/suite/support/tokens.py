"""Tokens the target must refuse on POST /v1/reports: forged from the configured one, each in its own way."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

__all__ = ["forged_tokens", "mint_rs256"]


# --- tokens the target must refuse ----------------------------------------------------------------------


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _json_part(value: dict[str, Any]) -> str:
    return _b64url(json.dumps(value, separators=(",", ":")).encode())


def mint_rs256(private_key: rsa.RSAPrivateKey, header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A compact JWS: RS256 (RSASSA-PKCS1-v1_5 with SHA-256) of base64url(header).base64url(claims)."""
    signing_input = f"{_json_part({**header, 'alg': 'RS256'})}.{_json_part(claims)}"
    signature = private_key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64url(signature)}"


def _jwt_parts(token: str | None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Header and claims of a JWT, or None when the token is not one (tokens may be opaque)."""
    parts = (token or "").split(".")
    if len(parts) != 3:
        return None
    try:
        decoded = [json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))) for part in parts[:2]]
    except (ValueError, binascii.Error):
        return None
    header, claims = decoded
    return (header, claims) if isinstance(header, dict) and isinstance(claims, dict) else None


def forged_tokens(valid_token: str | None, now: float) -> dict[str, str]:
    """Tokens that no implementation may accept, by name:

    - `unknown-key`: the valid token's very header and claims (its `kid` and its rights included) when
      it is a JWT, else claims of the usual form, signed RS256 by a key generated here;
    - `unsigned`: the same header (with `alg` none) and claims without a signature;
    - `altered-signature`: the valid token with one byte of its signature changed (JWT only);
    - `not-a-token`: text that is no token at all.
    """
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    parts = _jwt_parts(valid_token)
    if parts is None:
        header: dict[str, Any] = {"typ": "JWT"}
        claims: dict[str, Any] = {"iss": "eris-conformance", "sub": "intruder", "iat": int(now), "exp": int(now) + 600}
    else:
        header, claims = parts
    tokens = {
        "unknown-key": mint_rs256(stranger, header, claims),
        "unsigned": f"{_json_part({**header, 'alg': 'none'})}.{_json_part(claims)}.",
        "not-a-token": "eris-conformance-not-a-token",
    }
    if parts is not None and valid_token is not None:
        signing_input, _, signature = valid_token.rpartition(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
        if raw:
            raw[len(raw) // 2] ^= 0x01
            tokens["altered-signature"] = f"{signing_input}.{_b64url(bytes(raw))}"
    return tokens
