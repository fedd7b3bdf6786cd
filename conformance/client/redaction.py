"""Secrets kept out of every record of a run: a bearer token keeps what anyone holding it could read (a JWT's
header and claims), never what makes it a credential (its signature)."""

from __future__ import annotations

import re

__all__ = ["REDACTED", "SECRET_NAMES", "redacted_connection_strings", "redacted_headers", "redacted_token"]

REDACTED = "redacted"
SECRET_NAMES = ("token", "password", "secret", "account_key", "connection_string", "connectionstring")
"""Parts of a name (of a header or a description entry, lower case) whose value is a secret."""
_STORE_SECRETS = re.compile(
    rb"(?i)(\bAccountKey=|\bSharedAccessSignature=|[?&]sig=)[^;&\"\\\s]*|(smb://[^:/@\"\s]*:)[^@/\"\s]*@"
)
"""The credentials a store's connectionString carries (an account key, a shared access signature, an smb
password): an order's body names the store it is delivered into."""


def redacted_token(token: str) -> str:
    """A JWT without its signature (`header.claims.redacted`), any other token as REDACTED. The suite still reads
    the claims where it forges tokens from them (a re-check with `eris verify` forges the same), and the value
    opens nothing."""
    head, dot, rest = token.partition(".")
    claims, second_dot, _ = rest.partition(".")
    if dot and second_dot and head and claims:
        return f"{head}.{claims}.{REDACTED}"
    return REDACTED


def redacted_headers(headers: dict[str, str]) -> dict[str, str]:
    """`headers` with the credentials of Authorization redacted: `Bearer <redacted token>`, any other scheme's
    credentials as REDACTED."""
    kept = {}
    for name, value in headers.items():
        if name.lower() == "authorization":
            scheme, _, credentials = value.partition(" ")
            value = f"{scheme} {redacted_token(credentials.strip())}" if credentials else REDACTED
        kept[name] = value
    return kept


def redacted_connection_strings(data: bytes) -> bytes:
    """`data` with the credentials of every store connection string in it replaced by REDACTED, the rest kept: the
    store and folder an order names stay readable, and a redacted text is its own redaction."""

    def replaced(found: re.Match[bytes]) -> bytes:
        if found.group(2) is not None:
            return found.group(2) + REDACTED.encode() + b"@"
        return found.group(1) + REDACTED.encode()

    return _STORE_SECRETS.sub(replaced, data)
