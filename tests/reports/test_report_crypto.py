"""The hybrid encryption of report artifacts, checked against paths that share none of its code:
the one-shot AESGCM of `cryptography`, RSA decryption called directly, and `openssl pkeyutl`."""

from __future__ import annotations

import base64
import gzip
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given
from hypothesis import strategies as st

from reports.compression import GzipWriter, gunzip_chunks
from reports.crypto import (
    SESSION_KEY_BYTES,
    TAG_BYTES,
    ArtifactEncryptor,
    ArtifactRejected,
    SessionKey,
    decrypt_artifact,
    decrypt_stream,
    min_rsa_bits_for_session_key,
    open_session_key,
    seal_session_key,
)

OPENSSL = shutil.which("openssl")


@pytest.fixture(scope="module")
def private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=4096)


def _encrypt(plaintext: bytes, session: SessionKey, write_sizes: list[int], chunk_size: int) -> bytes:
    sink = io.BytesIO()
    encryptor = ArtifactEncryptor(sink, session, chunk_size=chunk_size)
    position = 0
    for size in write_sizes:
        encryptor.write(plaintext[position : position + size])
        position += size
    encryptor.write(plaintext[position:])
    encryptor.close()
    return sink.getvalue()


@given(
    plaintext=st.binary(max_size=5000),
    write_sizes=st.lists(st.integers(min_value=0, max_value=700), max_size=12),
    chunk_size=st.sampled_from([1, 16, 17, 64, 1000, 1 << 20]),
)
def test_the_streamed_artifact_is_exactly_the_one_shot_aes_gcm_ciphertext_then_tag(plaintext, write_sizes, chunk_size):
    session = SessionKey.generate()
    artifact = _encrypt(plaintext, session, write_sizes, chunk_size)
    assert artifact == AESGCM(session.key).encrypt(session.nonce, plaintext, None)
    assert len(artifact) == len(plaintext) + TAG_BYTES


def test_each_session_key_is_fresh_and_44_bytes():
    keys = {SessionKey.generate().to_bytes() for _ in range(50)}
    assert len(keys) == 50
    assert all(len(k) == SESSION_KEY_BYTES for k in keys)
    assert "secret" in repr(SessionKey.generate())


def test_a_failing_random_source_is_an_error_not_a_weak_key():
    with pytest.raises(RuntimeError):
        SessionKey.generate(lambda n: b"\x00" * (n - 1))


def test_the_sealed_session_key_opens_with_rsa_oaep_sha256_called_directly(private_key):
    session = SessionKey.generate()
    sealed = seal_session_key(private_key.public_key(), session)
    oaep_sha256 = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    opened = private_key.decrypt(sealed, oaep_sha256)
    assert opened == session.key + session.nonce
    assert open_session_key(private_key, sealed) == session


def test_a_session_key_sealed_with_sha1_oaep_is_rejected(private_key):
    session = SessionKey.generate()
    sha1 = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None)
    sealed = private_key.public_key().encrypt(session.to_bytes(), sha1)
    with pytest.raises(ArtifactRejected, match="cannot be opened"):
        open_session_key(private_key, sealed)


def test_a_sealed_value_of_the_wrong_length_is_rejected(private_key):
    oaep_sha256 = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    sealed = private_key.public_key().encrypt(os.urandom(32), oaep_sha256)
    with pytest.raises(ArtifactRejected, match="44 bytes"):
        open_session_key(private_key, sealed)


def test_the_smallest_rsa_key_that_can_seal_the_session_key():
    assert min_rsa_bits_for_session_key() == 880  # 44 + 2 * 32 + 2 bytes
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    seal_session_key(small.public_key(), SessionKey.generate())  # 1024 bits is enough
    with pytest.raises(ValueError):
        small.public_key().encrypt(b"\x00" * 63, padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), None))


@pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed")
def test_openssl_pkeyutl_opens_our_sealed_key_and_we_open_its(private_key, tmp_path):
    key_file = tmp_path / "private.pem"
    key_file.write_bytes(
        private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    public_file = tmp_path / "public.pem"
    public_file.write_bytes(
        private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    oaep_options = [
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
        "-pkeyopt",
        "rsa_mgf1_md:sha256",
    ]
    session = SessionKey.generate()
    (tmp_path / "sealed.bin").write_bytes(seal_session_key(private_key.public_key(), session))
    opened = subprocess.run(
        [OPENSSL, "pkeyutl", "-decrypt", "-inkey", str(key_file), "-in", str(tmp_path / "sealed.bin"), *oaep_options],
        capture_output=True,
        check=True,
    ).stdout
    assert opened == session.to_bytes()

    (tmp_path / "session.bin").write_bytes(session.to_bytes())
    sealed_by_openssl = subprocess.run(
        [
            OPENSSL,
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            str(public_file),
            "-in",
            str(tmp_path / "session.bin"),
            *oaep_options,
        ],
        capture_output=True,
        check=True,
    ).stdout
    assert open_session_key(private_key, sealed_by_openssl) == session


def _artifact_file(tmp_path: Path, plaintext: bytes, session: SessionKey) -> Path:
    path = tmp_path / "report.enc"
    path.write_bytes(_encrypt(plaintext, session, [], 1 << 20))
    return path


def test_decrypt_artifact_writes_the_plaintext(tmp_path):
    session = SessionKey.generate()
    plaintext = os.urandom(3 * 1024 * 1024 + 5)
    out = tmp_path / "report.parquet"
    assert decrypt_artifact(_artifact_file(tmp_path, plaintext, session), session, out) == len(plaintext)
    assert out.read_bytes() == plaintext


PLAINTEXT = b"company_tax_no,year,month\n7251801126,2026,10\n" * 40


@given(bit=st.integers(min_value=0, max_value=(len(PLAINTEXT) + TAG_BYTES) * 8 - 1))
def test_a_flipped_bit_anywhere_is_rejected(bit):
    session = SessionKey(b"k" * 32, b"n" * 12)
    artifact = bytearray(_encrypt(PLAINTEXT, session, [], 64))
    artifact[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(ArtifactRejected, match="tag does not match"):
        b"".join(decrypt_stream(io.BytesIO(bytes(artifact)), session, chunk_size=50))


@pytest.mark.parametrize("cut", [1, 4, 15, 16])
def test_a_truncated_tag_is_rejected(cut):
    session = SessionKey.generate()
    artifact = _encrypt(PLAINTEXT, session, [], 64)[:-cut]
    with pytest.raises(ArtifactRejected):
        b"".join(decrypt_stream(io.BytesIO(artifact), session))


def test_an_artifact_with_the_nonce_prepended_is_rejected():
    session = SessionKey.generate()
    artifact = session.nonce + _encrypt(PLAINTEXT, session, [], 64)
    with pytest.raises(ArtifactRejected, match="tag does not match"):
        b"".join(decrypt_stream(io.BytesIO(artifact), session))


def test_an_artifact_with_a_byte_appended_is_rejected():
    session = SessionKey.generate()
    with pytest.raises(ArtifactRejected):
        b"".join(decrypt_stream(io.BytesIO(_encrypt(PLAINTEXT, session, [], 64) + b"\x00"), session))


def test_an_artifact_shorter_than_a_tag_is_rejected_as_too_short():
    with pytest.raises(ArtifactRejected, match="too short"):
        b"".join(decrypt_stream(io.BytesIO(b"\x01" * 15), SessionKey.generate()))


def test_another_orders_session_key_is_rejected():
    artifact = _encrypt(PLAINTEXT, SessionKey.generate(), [], 64)
    with pytest.raises(ArtifactRejected):
        b"".join(decrypt_stream(io.BytesIO(artifact), SessionKey.generate()))


def test_a_rejected_artifact_leaves_no_output_and_no_partial_file(tmp_path):
    session = SessionKey.generate()
    path = _artifact_file(tmp_path, os.urandom(100_000), session)
    data = bytearray(path.read_bytes())
    data[50_000] ^= 0x80
    path.write_bytes(bytes(data))
    out = tmp_path / "out" / "report.csv"
    out.parent.mkdir()
    with pytest.raises(ArtifactRejected):
        decrypt_artifact(path, session, out)
    assert list(out.parent.iterdir()) == []


def _gzip_then_encrypt(plaintext: bytes, session: SessionKey) -> bytes:
    sink = io.BytesIO()
    writer = GzipWriter(ArtifactEncryptor(sink, session, chunk_size=4096))
    for start in range(0, len(plaintext), 1000):
        writer.write(plaintext[start : start + 1000])
    writer.close()
    return sink.getvalue()


def test_compression_is_gzip_before_encryption(tmp_path):
    session = SessionKey.generate()
    plaintext = PLAINTEXT * 500
    artifact = _gzip_then_encrypt(plaintext, session)
    assert len(artifact) < len(plaintext) // 10
    decrypted = AESGCM(session.key).decrypt(session.nonce, artifact, None)
    assert gzip.decompress(decrypted) == plaintext  # an independent gzip reader
    path = tmp_path / "report.enc"
    path.write_bytes(artifact)
    decrypt_artifact(path, session, tmp_path / "report.csv", transform=gunzip_chunks)
    assert (tmp_path / "report.csv").read_bytes() == plaintext


def test_a_tampered_compressed_artifact_is_reported_as_tampered_not_as_bad_gzip(tmp_path):
    session = SessionKey.generate()
    artifact = bytearray(_gzip_then_encrypt(PLAINTEXT * 50, session))
    artifact[12] ^= 0xFF
    path = tmp_path / "report.enc"
    path.write_bytes(bytes(artifact))
    with pytest.raises(ArtifactRejected):
        decrypt_artifact(path, session, tmp_path / "report.csv", transform=gunzip_chunks)


def test_decompressing_data_that_is_not_gzip_says_so(tmp_path):
    session = SessionKey.generate()
    path = _artifact_file(tmp_path, PLAINTEXT, session)
    with pytest.raises(ValueError, match="not gzip"):
        decrypt_artifact(path, session, tmp_path / "report.csv", transform=gunzip_chunks)
    assert not (tmp_path / "report.csv").exists()


def test_sealed_key_travels_as_base64(private_key):
    session = SessionKey.generate()
    text = base64.b64encode(seal_session_key(private_key.public_key(), session)).decode()
    assert open_session_key(private_key, base64.b64decode(text, validate=True)) == session
