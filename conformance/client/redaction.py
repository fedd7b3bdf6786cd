"""Secrets kept out of every record of a run: a bearer token keeps what anyone holding it could read (a JWT's
header and claims), never what makes it a credential (its signature)."""

from __future__ import annotations

__all__ = ["REDACTED", "SECRET_NAMES", "redacted_headers", "redacted_token"]

REDACTED = "redacted"
SECRET_NAMES = ("token", "password", "secret", "account_key", "connection_string", "connectionstring")
"""Parts of a name (of a header or a description entry, lower case) whose value is a secret."""


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
