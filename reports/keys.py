"""The integrator's RSA key pair for one report order (the contract: a new pair for each order)."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from profiles.limits import LIMITS

__all__ = ["KEY_BITS", "generate_key_pair", "load_private_key", "public_key_pem", "write_key_pair"]

KEY_BITS = LIMITS.recommended_rsa_bits


def generate_key_pair(bits: int = KEY_BITS) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def public_key_pem(private_key: rsa.RSAPrivateKey) -> str:
    """The public half as the order's `publicKeyPem` (SubjectPublicKeyInfo: BEGIN PUBLIC KEY)."""
    return (
        private_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def write_key_pair(private_key: rsa.RSAPrivateKey, private_path: Path, public_path: Path) -> None:
    """Write both halves; never over an existing file (it may be the only key of an order in flight).
    The private key is readable by its owner only."""
    for path in (private_path, public_path):
        if path.exists():
            raise FileExistsError(f"{path} exists; a key pair is made for one order, choose another name")
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    handle = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "wb") as out:
        out.write(pem)
    public_path.write_text(public_key_pem(private_key), encoding="ascii")


def load_private_key(path: Path) -> rsa.RSAPrivateKey:
    """An RSA private key from a PEM file (PKCS#8 or PKCS#1, unencrypted); ValueError naming the file."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path} is not an unencrypted PEM private key: {error}") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{path} holds a {type(key).__name__.removeprefix('_')} key, not an RSA key")
    return key
