"""The helpers of the report conformance tests (conformance/suite/support/reports.py and compression.py): every
compression they claim to detect is detected, the readers accept what the contract leaves open and refuse what is not
a report, the explanations name the defect, the 400 check accepts exactly the standard URIs, and the
minted tokens are what they claim to be."""

from __future__ import annotations

import base64
import bz2
import gzip
import io
import json
import lzma
import os
import zipfile
import zlib

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from conformance.suite.support.compression import decompressions
from conformance.suite.support.reports import (
    ACCEPTED_400_TYPES,
    assert_problem_details_400,
    decode_base64,
    explain_artifact,
    explain_sealed_key,
    looks_plain,
    open_artifact,
    read_report,
)
from conformance.suite.support.tokens import forged_tokens, mint_rs256

CSV = b"company,year,month,amount\n" + b"7251801126,2026,10,12.50\n7251801126,2026,10,3.00\n" * 40


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _parquet() -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]}), sink)
    return sink.getvalue()


def _arrow(codec: str, data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, codec) as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


def _snappy_framed(data: bytes) -> bytes:
    raw = pa.Codec("snappy").compress(data, asbytes=True)
    chunk = b"\x00\x00\x00\x00" + raw  # the CRC is not checked by the reader
    return b"\xff\x06\x00\x00sNaPpY" + b"\x00" + len(chunk).to_bytes(3, "little") + chunk


def _zip(data: bytes) -> bytes:
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("report.csv", data)
    return sink.getvalue()


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


COMPRESSORS = {
    "gzip": gzip.compress,
    "zstd": lambda d: _arrow("zstd", d),
    "zlib": zlib.compress,
    "bzip2": bz2.compress,
    "xz": lambda d: lzma.compress(d, format=lzma.FORMAT_XZ),
    "lz4 frame": lambda d: _arrow("lz4", d),
    "snappy framed": _snappy_framed,
    "zip (one file)": _zip,
    "lzma (alone)": lambda d: lzma.compress(d, format=lzma.FORMAT_ALONE),
    "raw deflate": _raw_deflate,
    "brotli": lambda d: _arrow("brotli", d),
}


@pytest.mark.parametrize("algorithm", COMPRESSORS)
@pytest.mark.parametrize("format_", ["csv", "parquet"])
def test_every_listed_compression_is_detected_and_opened(algorithm: str, format_: str) -> None:
    plain = CSV if format_ == "csv" else _parquet()
    compressed = COMPRESSORS[algorithm](plain)
    assert not looks_plain(compressed, format_)
    opened = [found for found in decompressions(compressed) if found.data == plain]
    assert opened and opened[0].algorithm == algorithm
    assert read_report(opened[0].data, format_).rows > 0


@pytest.mark.parametrize("format_", ["csv", "parquet"])
def test_a_plain_report_is_not_taken_for_compressed_data(format_: str) -> None:
    plain = CSV if format_ == "csv" else _parquet()
    assert looks_plain(plain, format_)
    for found in decompressions(plain):
        with pytest.raises(ValueError):
            read_report(found.data, format_)


def test_random_bytes_open_with_no_algorithm_into_a_report() -> None:
    noise = os.urandom(4096)
    for found in decompressions(noise):
        for format_ in ("csv", "parquet"):
            with pytest.raises(ValueError):
                read_report(found.data, format_)


@pytest.mark.parametrize(
    ("data", "rows", "columns"),
    [
        (CSV, 80, 4),
        (b"\xef\xbb\xbfa;b;c\n1;2;3\n4;5;6\n", 2, 3),  # a BOM, semicolons
        ("nazwa\tkwota\nZa\u017c\u00f3\u0142\u0107\t1\n".encode("cp1250"), 1, 2),  # tabs, an 8-bit encoding
        (b'a,b\n"x, with a comma","y\nover two lines"\n', 1, 2),
        (b"a,b\n", 0, 2),
    ],
    ids=["comma", "bom-semicolon", "cp1250-tab", "quoted", "header-only"],
)
def test_csv_reports_of_any_dialect_are_read(data: bytes, rows: int, columns: int) -> None:
    found = read_report(data, "csv")
    assert (found.rows, found.columns) == (rows, columns)


@pytest.mark.parametrize(
    ("data", "format_"),
    [(b"a,b\n1,2,3\n", "csv"), (b"", "csv"), (b"PAR1 not really PAR1", "parquet"), (CSV, "parquet")],
    ids=["ragged", "empty", "fake-parquet", "csv-as-parquet"],
)
def test_what_is_not_a_report_is_refused(data: bytes, format_: str) -> None:
    with pytest.raises(ValueError):
        read_report(data, format_)


def _session() -> bytes:
    return os.urandom(44)


def test_an_artifact_of_the_contract_opens_and_a_broken_one_is_explained() -> None:
    session = _session()
    key, nonce = session[:32], session[32:]
    sealed = AESGCM(key).encrypt(nonce, CSV, None)  # ciphertext then tag
    assert open_artifact(session, sealed) == CSV
    assert "nonce before the ciphertext" in explain_artifact(session, nonce + sealed)
    assert "tag is missing" in explain_artifact(session, sealed[:-16])
    assert "tag before the ciphertext" in explain_artifact(session, sealed[-16:] + sealed[:-16])
    assert "not its GCM tag" in explain_artifact(session, AESGCM(key).encrypt(nonce, CSV, b"aad"))
    assert "no layout opens" in explain_artifact(session, AESGCM(os.urandom(32)).encrypt(nonce, CSV, None))


def test_a_sealed_key_of_another_padding_is_explained(key: rsa.RSAPrivateKey) -> None:
    public = key.public_key()
    sha1 = public.encrypt(b"k" * 44, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None))
    assert "SHA-1 (hash and MGF1)" in explain_sealed_key(key, sha1)
    assert "PKCS#1 v1.5" in explain_sealed_key(key, public.encrypt(b"k" * 44, padding.PKCS1v15()))
    assert "another key" in explain_sealed_key(key, os.urandom(256))
    assert "bytes" in explain_sealed_key(key, os.urandom(512))


@pytest.mark.parametrize(
    ("text", "valid"),
    [("AAEC", True), ("AAE", True), ("AA==", True), ("AA-_", False), ("AAEC\nAAEC", False), ("", False), (7, False)],
)
def test_base64_is_standard_padding_aside(text: object, valid: bool) -> None:
    if valid:
        assert decode_base64(text)
    else:
        with pytest.raises(ValueError):
            decode_base64(text)


def _problem(type_: object, status: int = 400, media: str = "application/problem+json") -> httpx.Response:
    body = json.dumps({"type": type_, "title": "Bad Request", "status": status}).encode()
    return httpx.Response(400, content=body, headers={"Content-Type": media})


def test_the_400_check_takes_the_standard_uris_and_nothing_else() -> None:
    for accepted in ACCEPTED_400_TYPES:
        assert_problem_details_400(_problem(accepted), "x")
    assert_problem_details_400(_problem("http://tools.ietf.org/html/rfc7231#section-6.5.1"), "x")
    for refused in ("about:blank", "https://tools.ietf.org/html/rfc9110#section-15.5.5", None, "x"):
        with pytest.raises(AssertionError):
            assert_problem_details_400(_problem(refused), "x")
    with pytest.raises(AssertionError):
        assert_problem_details_400(_problem(sorted(ACCEPTED_400_TYPES)[0], media="application/json"), "x")
    with pytest.raises(AssertionError):
        assert_problem_details_400(_problem(sorted(ACCEPTED_400_TYPES)[0], status=422), "x")


def _segment(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_forged_tokens_copy_the_valid_token_and_break_only_its_signature(key: rsa.RSAPrivateKey) -> None:
    valid = mint_rs256(key, {"typ": "JWT", "kid": "k1"}, {"sub": "integrator", "rights": ["retrospective-report"]})
    forged = forged_tokens(valid, 0.0)
    assert set(forged) == {"unknown-key", "unsigned", "altered-signature", "not-a-token"}
    for name in ("unknown-key", "unsigned", "altered-signature"):
        header, claims, _ = forged[name].split(".")
        assert _segment(claims) == _segment(valid.split(".")[1])
        assert _segment(header)["kid"] == "k1"
    assert _segment(forged["unsigned"].split(".")[0])["alg"] == "none" and forged["unsigned"].endswith(".")
    assert (
        forged["altered-signature"] != valid
        and forged["altered-signature"].rsplit(".", 1)[0] == valid.rsplit(".", 1)[0]
    )
    signing_input, signature = valid.rsplit(".", 1)
    raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    key.public_key().verify(raw, signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())  # RS256 indeed
    assert set(forged_tokens("opaque-token", 0.0)) == {"unknown-key", "unsigned", "not-a-token"}
