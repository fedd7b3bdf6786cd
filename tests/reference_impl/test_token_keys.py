"""The application's RSA keys: the key id, making and loading the key files, and refusing keys too small."""

import base64

import pytest
from auth_tokens import NOW, minted_token
from cryptography.hazmat.primitives.asymmetric import rsa

from reference_impl.tokens import ApplicationKeys, TokenVerifier, key_id_of, mint_token, public_keys_from_pem_files


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
    token = minted_token(keys)
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
