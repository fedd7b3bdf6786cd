"""What the bearer-token tests share: the fixed clock NOW and builders of minted, unsigned and hand-made tokens."""

import base64
import json

from reference_impl.tokens import REPORT_RIGHT, mint_token

NOW = 1_800_000_000.0


def minted_token(keys, *, rights=(REPORT_RIGHT,), now=NOW, **options):
    options.setdefault("key_id", keys.key_id)
    return mint_token(keys.private_key, subject="integrator-1", rights=rights, now=now, **options)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned_token(header: dict, claims: dict) -> str:
    return f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"


def claims_payload(**overrides):
    claims = {"sub": "integrator-1", "iat": int(NOW), "nbf": int(NOW), "exp": int(NOW) + 3600}
    claims.update(overrides)
    return claims
