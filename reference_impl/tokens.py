"""Bearer tokens of the reference implementation: RS256 JWTs signed by an application key, minted and verified.

The contract fixes only this much (Authentication part): POST /v1/reports requires
`Authorization: Bearer <token>`, the token is an OAuth 2.0 access token signed with the application's
private key, a missing or invalid token gives 401, and a caller without the exploitation right for the
retrospective report gets 403. How tokens are obtained, their scopes and the authentication of other
endpoints are "not shown"; this module makes these choices, each a documented setting or constant:

- Token format: a JWS in compact serialisation, header `{"alg": "RS256", "typ": "JWT", "kid": ...}`,
  claims `sub`, `iat`, `nbf`, `exp`, `iss` ("eris") and `rights`. RS256 is RSASSA-PKCS1-v1_5 with
  SHA-256 (RFC 7518 section 3.3). The algorithm is pinned: a token whose header names anything else,
  `none` and `HS256` included, is refused before any key is touched, so a public key can never be
  misused as an HMAC secret.
- The right: the claim `rights` is an array of strings; the report right is `"retrospective-report"`
  (`REPORT_RIGHT`). A token without the claim is valid and holds no rights.
- Key ids: `kid` is the RFC 7638 JWK thumbprint of the public key (`key_id_of`), so the minting side and
  the verifying side agree without configuring names. A token without `kid` is tried against every
  configured key. Key-locating header parameters (`jku`, `jwk`, `x5u`, `x5c`) are ignored: keys come
  from configuration only.
- Clock skew: `exp` and `nbf` are checked with `LEEWAY_SECONDS` (30 s) of tolerance.
- `iss` is written but not checked: the configured public keys are the trust anchor.
- Which endpoints demand a token: `reference_impl.auth.AuthPolicy`; by default only POST /v1/reports.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from aiohttp import web
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

__all__ = [
    "ALGORITHM",
    "CLAIMS_KEY",
    "ISSUER",
    "LEEWAY_SECONDS",
    "MAX_TOKEN_LENGTH",
    "REALM",
    "REPORT_RIGHT",
    "RIGHTS_CLAIM",
    "ApplicationKeys",
    "Claims",
    "InvalidToken",
    "TokenVerifier",
    "key_id_of",
    "mint_token",
    "public_keys_from_pem_files",
]

ALGORITHM = "RS256"
ISSUER = "eris"
RIGHTS_CLAIM = "rights"
REPORT_RIGHT = "retrospective-report"
LEEWAY_SECONDS = 30.0
# Far above any token we mint (about 700 characters); bounds the work spent on a hostile header.
MAX_TOKEN_LENGTH = 8192
MIN_KEY_BITS = 2048
REALM = "eris"


class InvalidToken(Exception):
    """A token that must not be trusted; `reason` is one sentence fit for a 401 `detail`.

    Reasons are fixed texts: they never repeat any part of the token.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Claims:
    """What the server believes about the caller once a token has been verified."""

    subject: str
    rights: frozenset[str]
    expires_at: float

    def has_right(self, name: str) -> bool:
        return name in self.rights


CLAIMS_KEY: web.RequestKey[Claims] = web.RequestKey("claims", Claims)


# --- base64url and JSON --------------------------------------------------------------------------

_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def _b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(part: str) -> bytes:
    # The standard decoder skips characters outside the alphabet; JWS allows none, nor padding.
    if not _BASE64URL.fullmatch(part) or len(part) % 4 == 1:
        raise InvalidToken("malformed token: a part is not base64url without padding")
    try:
        data = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        raise InvalidToken("malformed token: a part is not base64url without padding") from None
    if _b64url_encode(data) != part:
        raise InvalidToken("malformed token: a part is not canonical base64url")
    return data


def _compact_json(value: Mapping[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_object(data: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidToken(f"malformed token: the {what} is not JSON") from None
    if not isinstance(value, dict):
        raise InvalidToken(f"malformed token: the {what} is not a JSON object")
    return value


def _numeric_date(claims: Mapping[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidToken(f"the {name} claim is not a number of seconds")
    return float(value)


# --- keys -----------------------------------------------------------------------------------------


def _require_rsa(key: object, minimum_bits: int = MIN_KEY_BITS) -> None:
    if not isinstance(key, rsa.RSAPublicKey | rsa.RSAPrivateKey):
        raise TypeError(f"an RSA key is required, not {type(key).__name__}")
    if key.key_size < minimum_bits:
        raise ValueError(f"an RSA key of at least {minimum_bits} bits is required, not {key.key_size}")


def key_id_of(public_key: rsa.RSAPublicKey) -> str:
    """The RFC 7638 JWK thumbprint (SHA-256, base64url) of an RSA public key: its `kid`."""
    numbers = public_key.public_numbers()

    def _uint(value: int) -> str:
        return _b64url_encode(value.to_bytes((value.bit_length() + 7) // 8, "big"))

    # Members in lexicographic order, no whitespace: the canonical form of RFC 7638 section 3.
    canonical = f'{{"e":"{_uint(numbers.e)}","kty":"RSA","n":"{_uint(numbers.n)}"}}'
    return _b64url_encode(hashlib.sha256(canonical.encode("ascii")).digest())


class ApplicationKeys(NamedTuple):
    """The application's RSA key pair; unpacks as `(private_key, public_key)`.

    On disk: `application-key.pem` (PKCS#8, unencrypted, mode 0600) and `application-key.pub.pem`
    (SubjectPublicKeyInfo), the latter to hand to any server that must accept the tokens.
    """

    private_key: rsa.RSAPrivateKey
    public_key: rsa.RSAPublicKey

    PRIVATE_FILE = "application-key.pem"
    PUBLIC_FILE = "application-key.pub.pem"

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_key)

    @classmethod
    def generate(cls, key_size: int = 2048) -> ApplicationKeys:
        if key_size < MIN_KEY_BITS:
            raise ValueError(f"an RSA key of at least {MIN_KEY_BITS} bits is required, not {key_size}")
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=key_size)
        return cls(private_key, private_key.public_key())

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> ApplicationKeys:
        """Read the private key of `directory`; the public key is derived from it."""
        path = Path(directory) / cls.PRIVATE_FILE
        private_key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise ValueError(f"{path}: not an RSA private key")
        _require_rsa(private_key)
        return cls(private_key, private_key.public_key())

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write both PEM files; an existing private key file is never overwritten."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        private_pem = self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        # O_EXCL: two servers starting on one directory must not end up with different keys.
        descriptor = os.open(directory / self.PRIVATE_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(private_pem)
        self._write_public(directory)

    def _write_public(self, directory: Path) -> None:
        public_pem = self.public_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        (directory / self.PUBLIC_FILE).write_bytes(public_pem)

    @classmethod
    def load_or_create(cls, directory: str | os.PathLike[str]) -> ApplicationKeys:
        """The key pair of `directory`, generated and saved on first use."""
        directory = Path(directory)
        if not (directory / cls.PRIVATE_FILE).exists():
            try:
                keys = cls.generate()
                keys.save(directory)
                return keys
            except FileExistsError:
                pass  # another process created it first: use that one
        keys = cls.load(directory)
        if not (directory / cls.PUBLIC_FILE).exists():
            keys._write_public(directory)
        return keys


def public_keys_from_pem_files(paths: Iterable[str | os.PathLike[str]]) -> dict[str, rsa.RSAPublicKey]:
    """Configured application public keys by `kid` (`key_id_of`), from PEM public keys or certificates."""
    keys: dict[str, rsa.RSAPublicKey] = {}
    for path in paths:
        data = Path(path).read_bytes()
        try:
            if b"-----BEGIN CERTIFICATE-----" in data:
                public_key = x509.load_pem_x509_certificate(data).public_key()
            else:
                public_key = serialization.load_pem_public_key(data)
            _require_rsa(public_key)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{path}: not an RSA public key of at least {MIN_KEY_BITS} bits ({error})") from None
        assert isinstance(public_key, rsa.RSAPublicKey)
        keys[key_id_of(public_key)] = public_key
    return keys


# --- minting and verifying ------------------------------------------------------------------------


def mint_token(
    private_key: rsa.RSAPrivateKey,
    *,
    subject: str,
    rights: Sequence[str],
    lifetime_seconds: int = 3600,
    key_id: str | None = None,
    now: float | None = None,
) -> str:
    """An RS256 JWT for `subject` holding `rights`, valid from `now` for `lifetime_seconds`.

    `key_id` goes into the header as `kid`; pass `ApplicationKeys.key_id` so that a server holding
    several keys picks the right one at once.
    """
    _require_rsa(private_key)
    if not subject:
        raise ValueError("subject must not be empty")
    if isinstance(rights, str) or not all(isinstance(right, str) for right in rights):
        raise TypeError("rights must be a sequence of strings")
    if lifetime_seconds <= 0:
        raise ValueError("lifetime_seconds must be positive")
    issued_at = int(time.time() if now is None else now)
    header: dict[str, Any] = {"alg": ALGORITHM, "typ": "JWT"}
    if key_id is not None:
        header["kid"] = key_id
    claims = {
        "iss": ISSUER,
        "sub": subject,
        "iat": issued_at,
        "nbf": issued_at,
        "exp": issued_at + lifetime_seconds,
        RIGHTS_CLAIM: list(rights),
    }
    signing_input = f"{_b64url_encode(_compact_json(header))}.{_b64url_encode(_compact_json(claims))}"
    signature = private_key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64url_encode(signature)}"


class TokenVerifier:
    """Verifies RS256 tokens against the configured application public keys (`kid` -> key)."""

    def __init__(
        self,
        public_keys: Mapping[str, rsa.RSAPublicKey],
        *,
        leeway_seconds: float = LEEWAY_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not public_keys:
            raise ValueError("at least one application public key is required")
        for public_key in public_keys.values():
            _require_rsa(public_key)
            if not isinstance(public_key, rsa.RSAPublicKey):
                raise TypeError("application keys must be public keys")
        self._keys = dict(public_keys)
        self._leeway = leeway_seconds
        self._clock = clock

    def verify(self, token: str, now: float | None = None) -> Claims:
        """The claims of `token`, or `InvalidToken` naming the first thing wrong with it."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
            raise InvalidToken("malformed token: not a compact JWS of acceptable length")
        parts = token.split(".")
        if len(parts) != 3:
            raise InvalidToken("malformed token: not three base64url parts separated by dots")
        header_part, payload_part, signature_part = parts
        header = _json_object(_b64url_decode(header_part), "header")
        payload_bytes = _b64url_decode(payload_part)
        signature = _b64url_decode(signature_part)

        # Pinned before any key is used: this is what defeats alg=none and the RS256/HS256 confusion.
        if header.get("alg") != ALGORITHM:
            raise InvalidToken("the token algorithm is not RS256")
        if "crit" in header:
            raise InvalidToken("the token names critical header parameters this server does not support")
        if not any(
            _signature_matches(public_key, signature, f"{header_part}.{payload_part}".encode("ascii"))
            for public_key in self._candidate_keys(header)
        ):
            raise InvalidToken("the token signature does not verify with any application key")

        return self._claims(_json_object(payload_bytes, "payload"), self._clock() if now is None else now)

    def _candidate_keys(self, header: Mapping[str, Any]) -> Iterable[rsa.RSAPublicKey]:
        if "kid" not in header:
            return self._keys.values()
        kid = header["kid"]
        if not isinstance(kid, str) or kid not in self._keys:
            raise InvalidToken("the token key id (kid) names no configured application key")
        return (self._keys[kid],)

    def _claims(self, payload: Mapping[str, Any], now: float) -> Claims:
        subject = payload.get("sub")
        if not isinstance(subject, str) or not subject:
            raise InvalidToken("the token has no subject (sub) claim")
        expires_at = _numeric_date(payload, "exp")
        if expires_at is None:
            raise InvalidToken("the token has no expiry (exp) claim")
        not_before = _numeric_date(payload, "nbf")
        if expires_at + self._leeway <= now:
            raise InvalidToken("the token has expired")
        if not_before is not None and now + self._leeway < not_before:
            raise InvalidToken("the token is not valid yet (nbf)")
        rights = payload.get(RIGHTS_CLAIM, [])
        if not isinstance(rights, list) or not all(isinstance(right, str) for right in rights):
            raise InvalidToken(f"the {RIGHTS_CLAIM} claim is not an array of strings")
        return Claims(subject=subject, rights=frozenset(rights), expires_at=expires_at)


def _signature_matches(public_key: rsa.RSAPublicKey, signature: bytes, signing_input: bytes) -> bool:
    try:
        public_key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return False
    return True
