"""A small pool of RSA keys for report orders, made once per process.

RSA key generation takes from a fraction of a second (2048 bits) to several seconds (4096 bits),
far too slow for each example, and an order does not need a fresh key to be valid. So one key per
size is generated on first use and kept; examples draw among them and the two PEM forms the
contract accepts. A 2048-bit key is below the recommended 4096 bits: the validator warns, and the
order stays valid.
"""

from __future__ import annotations

import datetime
from functools import cache

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from hypothesis import strategies as st

from profiles.limits import LIMITS

KEY_SIZES = (2048, LIMITS.recommended_rsa_bits)
"""One key below the recommended size (a warning) and one at it."""

PUBLIC_FORMATS = (serialization.PublicFormat.SubjectPublicKeyInfo, serialization.PublicFormat.PKCS1)
"""`BEGIN PUBLIC KEY` and `BEGIN RSA PUBLIC KEY`, the two headers the contract accepts."""


@cache
def private_key(bits: int) -> rsa.RSAPrivateKey:
    """The pool's key of `bits` bits, generated on first use."""
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def public_key_pem(bits: int, form: serialization.PublicFormat = PUBLIC_FORMATS[0]) -> str:
    return private_key(bits).public_key().public_bytes(serialization.Encoding.PEM, form).decode("ascii")


def public_key_pems(sizes: tuple[int, ...] = KEY_SIZES) -> st.SearchStrategy[str]:
    """A public key of the pool as PEM, of any of `sizes` and either header."""
    return st.sampled_from([(bits, form) for bits in sizes for form in PUBLIC_FORMATS]).map(
        lambda choice: public_key_pem(*choice)
    )


def private_key_pem(bits: int = KEY_SIZES[0]) -> str:
    """The PKCS#8 PEM of a pool key: what must never travel in publicKeyPem."""
    return (
        private_key(bits)
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        .decode("ascii")
    )


@cache
def certificate_pem(bits: int = KEY_SIZES[0]) -> str:
    """A real self-signed X.509 certificate over a pool key (`-----BEGIN CERTIFICATE-----`)."""
    key = private_key(bits)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "eris strategies test integrator")])
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=3650))
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")
