"""What the report conformance tests need besides the target: the contract's decryption steps written
with `cryptography`'s primitives (never the kit's own report code, so that the kit cannot agree with
itself), explanations of an artifact or a sealed key that does not open, detection of the compression
(its algorithm is not shown), readers of the two formats that assume no column layout, the check of
the 400 Problem Details, and a tiny RS256 JWT minter for tokens the target must refuse.

Nothing here imports the reference implementation: the suite runs against any implementation.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from conformance.exchange_judge import ACCEPTED_400_TYPES
from conformance.suite.support.compression import decompressions
from profiles.limits import LIMITS

__all__ = [
    "ACCEPTED_400_TYPES",
    "KEY_BYTES",
    "NONCE_BYTES",
    "SESSION_KEY_BYTES",
    "TAG_BYTES",
    "ReportFile",
    "assert_problem_details_400",
    "decode_base64",
    "explain_artifact",
    "explain_sealed_key",
    "looks_plain",
    "open_artifact",
    "open_session_key",
    "read_report",
    "utc_text",
]

# The contract's sizes are data (its Limits), not the kit's report code: taking them from there cannot make
# the kit agree with itself.
KEY_BYTES = LIMITS.aes_key_bytes
NONCE_BYTES = LIMITS.nonce_bytes
SESSION_KEY_BYTES = LIMITS.session_key_bytes
TAG_BYTES = LIMITS.tag_bytes

PROBLEM_JSON = "application/problem+json"


def utc_text(moment: datetime) -> str:
    """ISO 8601 in UTC with a Z, whole seconds: the runAt form of the contract's examples."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- Problem Details -------------------------------------------------------------------------------------


def assert_problem_details_400(response: httpx.Response, what: str) -> dict[str, Any]:
    """A 400 of POST /v1/reports in the Problem Details format (RFC 9457: media type
    application/problem+json, a JSON object) whose `type` is the standard reference URI of status 400,
    and whose `status`, when present, is 400."""
    assert response.status_code == 400, (
        f"{what}: POST /v1/reports answered {response.status_code}, not 400: {response.text[:300]!r}"
    )
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    assert media_type == PROBLEM_JSON, (
        f"{what}: the 400 is not Problem Details: Content-Type is {media_type or 'missing'!r}, not {PROBLEM_JSON}"
    )
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"{what}: the 400 Problem Details body is not JSON: {response.text[:300]!r}") from None
    assert isinstance(body, dict), f"{what}: the 400 Problem Details body is not a JSON object: {body!r:.300}"
    problem_type = body.get("type")
    normalised = re.sub(r"^http://", "https://", problem_type) if isinstance(problem_type, str) else problem_type
    assert normalised in ACCEPTED_400_TYPES, (
        f"{what}: the 400 Problem Details `type` is {problem_type!r}, not the standard reference URI of status 400 "
        "(for example https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1)"
    )
    if "status" in body:
        assert body["status"] == 400, f"{what}: the Problem Details `status` is {body['status']!r}, not 400"
    return body


# --- base64 and the session key ----------------------------------------------------------------------------

_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def decode_base64(text: Any) -> bytes:
    """Standard base64 (RFC 4648 section 4); missing padding is tolerated, other alphabets and line
    breaks are not. ValueError saying why."""
    if not isinstance(text, str):
        raise ValueError(f"not a string but {type(text).__name__}")
    if not text or not _BASE64.fullmatch(text) or len(text.rstrip("=")) % 4 == 1:
        raise ValueError(f"not standard base64: {text[:60]!r}")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error as error:
        raise ValueError(f"not standard base64 ({error})") from None


def _oaep(algorithm: hashes.HashAlgorithm, mgf: hashes.HashAlgorithm | None = None) -> padding.OAEP:
    return padding.OAEP(mgf=padding.MGF1(mgf or algorithm), algorithm=algorithm, label=None)


def open_session_key(private_key: rsa.RSAPrivateKey, sealed: bytes) -> bytes:
    """The contract's step 2: RSA-OAEP, SHA-256 for the hash and for MGF1, no label. ValueError when it
    does not open."""
    return private_key.decrypt(sealed, _oaep(hashes.SHA256()))


def explain_sealed_key(private_key: rsa.RSAPrivateKey, sealed: bytes) -> str:
    """Why a sealed session key does not open with OAEP SHA-256: which other padding opens it, if any."""
    modulus_bytes = (private_key.key_size + 7) // 8
    if len(sealed) != modulus_bytes:
        return (
            f"it has {len(sealed)} bytes, but an RSA ciphertext for the order's {private_key.key_size}-bit key has "
            f"{modulus_bytes}: it was not sealed with the key of publicKeyPem"
        )
    attempts = [
        ("RSA-OAEP with SHA-1 (hash and MGF1)", _oaep(hashes.SHA1())),
        ("RSA-OAEP with SHA-256 hash but MGF1-SHA-1", _oaep(hashes.SHA256(), hashes.SHA1())),
        ("RSA-OAEP with SHA-1 hash but MGF1-SHA-256", _oaep(hashes.SHA1(), hashes.SHA256())),
        ("RSA-OAEP with SHA-512", _oaep(hashes.SHA512())),
        ("RSA PKCS#1 v1.5", padding.PKCS1v15()),
    ]
    for name, scheme in attempts:
        try:
            opened = private_key.decrypt(sealed, scheme)
        except ValueError:
            continue
        # PKCS#1 v1.5 decryption rejects implicitly (a bad ciphertext gives random bytes of random length),
        # so only an opening into the bytes of a session key counts.
        if len(opened) == SESSION_KEY_BYTES:
            return f"it opens with {name} instead of RSA-OAEP with SHA-256 for the hash and MGF1"
    return "no common RSA padding opens it with the order's key: it was sealed for another key, or is damaged"


# --- the artifact ------------------------------------------------------------------------------------------


def open_artifact(session: bytes, artifact: bytes) -> bytes:
    """The contract's step 4: AES-256-GCM one-shot with the key and nonce of the session key, the last
    TAG_BYTES being the tag, no associated data. InvalidTag when the tag does not match."""
    return AESGCM(session[:KEY_BYTES]).decrypt(session[KEY_BYTES:SESSION_KEY_BYTES], artifact, None)


def _a_report(data: bytes) -> bool:
    """A whole parquet or CSV file, or compressed data: what a decrypted artifact should be."""
    if looks_plain(data, "parquet") or any(True for _ in decompressions(data)):
        return True
    try:
        return looks_plain(data, "csv") and data.decode("utf-8").endswith("\n")
    except UnicodeDecodeError:
        return False


def explain_artifact(session: bytes, artifact: bytes) -> str:
    """Why an artifact does not open as ciphertext then tag: the layouts that do open, if any."""
    key, nonce = session[:KEY_BYTES], session[KEY_BYTES:SESSION_KEY_BYTES]
    aead = AESGCM(key)
    after_nonce_and_tag = NONCE_BYTES + TAG_BYTES
    layouts: list[tuple[str, Callable[[], bytes]]] = [
        (
            f"the {NONCE_BYTES}-byte nonce before the ciphertext",
            lambda: aead.decrypt(nonce, artifact[NONCE_BYTES:], None),
        ),
        (
            f"the {SESSION_KEY_BYTES}-byte session key before the ciphertext",
            lambda: aead.decrypt(nonce, artifact[SESSION_KEY_BYTES:], None),
        ),
        (
            "the tag before the ciphertext",
            lambda: aead.decrypt(nonce, artifact[TAG_BYTES:] + artifact[:TAG_BYTES], None),
        ),
        (
            "the nonce and the tag before the ciphertext",
            lambda: aead.decrypt(
                nonce, artifact[after_nonce_and_tag:] + artifact[NONCE_BYTES:after_nonce_and_tag], None
            ),
        ),
        ("the nonce after the tag", lambda: aead.decrypt(nonce, artifact[:-NONCE_BYTES], None)),
    ]
    for name, attempt in layouts:
        try:
            attempt()
        except (InvalidTag, ValueError):
            continue
        return (
            f"it opens when read as {name}: the artifact must be the ciphertext then the {TAG_BYTES}-byte tag, "
            "nothing else"
        )
    if key in artifact or nonce in artifact:
        return (
            "the artifact embeds the AES key or the nonce; it must be only the ciphertext then the "
            f"{TAG_BYTES}-byte tag"
        )
    # Without a tag, the whole artifact is ciphertext: GCM's keystream opens it (unauthenticated).
    plain = Cipher(algorithms.AES(key), modes.GCM(nonce)).decryptor().update(artifact)
    if _a_report(plain) and not _a_report(plain[:-TAG_BYTES]):
        return (
            f"the whole artifact decrypts to a report with no tag left over: the {TAG_BYTES}-byte GCM tag is "
            "missing after the ciphertext"
        )
    if _a_report(plain[:-TAG_BYTES]):
        return (
            f"the ciphertext decrypts to a report, but the last {TAG_BYTES} bytes are not its GCM tag: the tag was "
            "computed over other data (associated data, another nonce) or the artifact was altered"
        )
    return (
        "no layout opens: the data were not encrypted with AES-256-GCM under this session key and nonce, "
        "or the artifact is damaged"
    )


# --- the report file (its column layout is not shown: nothing about columns is assumed) -------------------


@dataclass(frozen=True)
class ReportFile:
    rows: int
    columns: int
    description: str


def looks_plain(data: bytes, format_: str) -> bool:
    """Whether `data` is, on its face, an uncompressed file of the format: parquet's PAR1 magic at both
    ends; for CSV, text (UTF-8, or any 8-bit encoding) without control characters other than tab, CR, LF."""
    if format_ == "parquet":
        return len(data) >= 8 and data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    sample = data[:65536]
    return bool(sample) and not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", sample)


def read_report(data: bytes, format_: str) -> ReportFile:
    """Rows and columns of a decrypted (and decompressed) report; ValueError when it is not a readable
    file of the format. CSV: the encoding and the delimiter are not shown, so UTF-8 (with or without a
    BOM) is tried, then an 8-bit reading; the delimiter is sniffed among , ; tab |. The first record is
    counted as the header; every record must have as many fields as the first."""
    if format_ == "parquet":
        if not looks_plain(data, "parquet"):
            raise ValueError(f"not a parquet file: it does not start and end with PAR1 (starts {data[:8]!r})")
        try:
            table = pq.read_table(pa.BufferReader(data))
        except Exception as error:
            raise ValueError(f"not a readable parquet file: {error}") from None
        return ReportFile(table.num_rows, table.num_columns, f"parquet, {table.num_rows} rows x {table.num_columns}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    if not looks_plain(data, "csv"):
        raise ValueError(f"not CSV text: it holds control characters (starts {data[:16]!r})")
    try:
        dialect: Any = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        records = [record for record in csv.reader(io.StringIO(text, newline=""), dialect) if record]
    except csv.Error as error:
        raise ValueError(f"not readable CSV: {error}") from None
    if not records:
        raise ValueError("an empty CSV file")
    width = len(records[0])
    ragged = [number for number, record in enumerate(records, 1) if len(record) != width]
    if ragged:
        raise ValueError(f"CSV records {ragged[:5]} do not have the {width} fields of the first record")
    return ReportFile(len(records) - 1, width, f"CSV, a header and {len(records) - 1} rows of {width} fields")
