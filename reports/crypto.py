"""The hybrid encryption of report artifacts (Interface Specification, POST /v1/reports; the sizes
are the contract's Limits, profiles/limits.json):

- a fresh session key per order: a random AES-256 key then a random nonce, the session key;
- the artifact: the report data encrypted with AES-256-GCM, then the GCM tag, nothing else;
- the session key sealed with RSA-OAEP, SHA-256 for the hash and for MGF1, no label.

Both directions stream: memory stays at one chunk whatever the size of the report. Decrypted data
is not authentic until the tag has been checked, so `decrypt_artifact` writes it to a temporary
file that becomes the output only after the check.
"""

from __future__ import annotations

import glob
import io
import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from profiles.limits import LIMITS

__all__ = [
    "CHUNK_SIZE",
    "KEY_BYTES",
    "NONCE_BYTES",
    "SESSION_KEY_BYTES",
    "TAG_BYTES",
    "ArtifactEncryptor",
    "ArtifactRejected",
    "SessionKey",
    "decrypt_artifact",
    "decrypt_stream",
    "min_rsa_bits_for_session_key",
    "oaep",
    "open_session_key",
    "seal_session_key",
]

KEY_BYTES = LIMITS.aes_key_bytes
NONCE_BYTES = LIMITS.nonce_bytes
SESSION_KEY_BYTES = LIMITS.session_key_bytes
TAG_BYTES = LIMITS.tag_bytes
CHUNK_SIZE = 1 << 20
"""Bytes encrypted per call: large enough that the per-call cost vanishes, small enough to stay in cache."""


class ArtifactRejected(Exception):
    """An artifact or a sealed session key that cannot be opened: altered, truncated, or of another order."""


def oaep() -> padding.OAEP:
    """The contract's padding: OAEP with SHA-256 for the hash and for MGF1, no label."""
    return padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def min_rsa_bits_for_session_key() -> int:
    """The smallest RSA modulus that can seal the session key with OAEP SHA-256 (k >= its bytes + 2*32 + 2)."""
    return (SESSION_KEY_BYTES + 2 * hashes.SHA256.digest_size + 2) * 8


@dataclass(frozen=True, repr=False)
class SessionKey:
    """The session key of one order: AES key then nonce."""

    key: bytes
    nonce: bytes

    def __post_init__(self) -> None:
        if len(self.key) != KEY_BYTES or len(self.nonce) != NONCE_BYTES:
            raise ValueError(f"a session key is a {KEY_BYTES}-byte key and a {NONCE_BYTES}-byte nonce")

    def __repr__(self) -> str:  # never print a secret into a log
        return "SessionKey(<secret>)"

    @classmethod
    def generate(cls, random_bytes: Callable[[int], bytes] = os.urandom) -> SessionKey:
        material = random_bytes(SESSION_KEY_BYTES)
        if not isinstance(material, bytes) or len(material) != SESSION_KEY_BYTES:
            raise RuntimeError(f"the random source did not give {SESSION_KEY_BYTES} bytes for the session key")
        return cls.from_bytes(material)

    @classmethod
    def from_bytes(cls, data: bytes) -> SessionKey:
        if len(data) != SESSION_KEY_BYTES:
            raise ArtifactRejected(f"a session key has {SESSION_KEY_BYTES} bytes, not {len(data)}")
        return cls(bytes(data[:KEY_BYTES]), bytes(data[KEY_BYTES:]))

    def to_bytes(self) -> bytes:
        return self.key + self.nonce


def seal_session_key(public_key: rsa.RSAPublicKey, session: SessionKey) -> bytes:
    """RSA-OAEP(SHA-256, MGF1-SHA-256, no label) of the session-key bytes."""
    return public_key.encrypt(session.to_bytes(), oaep())


def open_session_key(private_key: rsa.RSAPrivateKey, sealed: bytes) -> SessionKey:
    """The session key sealed for `private_key`'s public half; ArtifactRejected when it is not."""
    try:
        opened = private_key.decrypt(sealed, oaep())
    except ValueError:
        raise ArtifactRejected(
            "the session key cannot be opened with this private key (RSA-OAEP SHA-256): "
            "it was sealed for another key, or it is damaged"
        ) from None
    return SessionKey.from_bytes(opened)


class ArtifactEncryptor(io.RawIOBase):
    """A write-only binary stream that encrypts what is written into `destination`; `close()` writes
    the tag. A large write is encrypted straight from the caller's buffer (in pieces of at most
    `chunk_size`); small writes are gathered first, so that the cost per call stays negligible.
    Output goes through one reused buffer: a report of any size costs one chunk of memory."""

    def __init__(self, destination: BinaryIO, session: SessionKey, *, chunk_size: int = CHUNK_SIZE) -> None:
        super().__init__()
        self._destination = destination
        self._encryptor = Cipher(algorithms.AES(session.key), modes.GCM(session.nonce)).encryptor()
        self._chunk_size = chunk_size
        self._direct_from = max(1, chunk_size // 16)
        self._pending = bytearray(chunk_size)
        self._filled = 0
        self._out = bytearray(chunk_size + 15)  # update_into needs room for a block more than it is given
        self.plaintext_bytes = 0
        self.artifact_bytes = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        if self.closed:
            raise ValueError("write to a closed artifact")
        view = memoryview(data).cast("B")
        size = len(view)
        self.plaintext_bytes += size
        if size >= self._direct_from:
            self._flush_pending()
            for start in range(0, size, self._chunk_size):
                self._encrypt(view[start : start + self._chunk_size])
            return size
        while view:
            taken = min(len(view), self._chunk_size - self._filled)
            self._pending[self._filled : self._filled + taken] = view[:taken]
            self._filled += taken
            view = view[taken:]
            if self._filled == self._chunk_size:
                self._flush_pending()
        return size

    def _flush_pending(self) -> None:
        if self._filled:
            self._encrypt(memoryview(self._pending)[: self._filled])
            self._filled = 0

    def _encrypt(self, chunk: bytes | bytearray | memoryview) -> None:
        written = self._encryptor.update_into(chunk, self._out)
        self._destination.write(memoryview(self._out)[:written])
        self.artifact_bytes += written

    def close(self) -> None:
        """Encrypt what is pending, then write the tag. The destination stays open."""
        if self.closed:
            return
        try:
            self._flush_pending()
            tail = self._encryptor.finalize()  # GCM is a stream mode: nothing is held back
            tag = self._encryptor.tag
            self._destination.write(tail + tag)
            self.artifact_bytes += len(tail) + len(tag)
        finally:
            super().close()


def decrypt_stream(source: BinaryIO, session: SessionKey, *, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """Yield the plaintext of an artifact read from `source` chunk by chunk. The last TAG_BYTES are
    the tag, checked when the source is exhausted: ArtifactRejected is raised then (after the last
    chunk) if it does not match, so a consumer must not trust what it got until the iterator ends."""
    decryptor = Cipher(algorithms.AES(session.key), modes.GCM(session.nonce)).decryptor()
    held = b""  # the last TAG_BYTES read so far: the tag, if nothing follows
    total = 0
    while chunk := source.read(chunk_size):
        total += len(chunk)
        data = held + chunk
        held = data[-TAG_BYTES:]
        body = data[:-TAG_BYTES]
        if body:
            yield decryptor.update(body)
    if total < TAG_BYTES:
        raise ArtifactRejected(f"the artifact has {total} bytes: too short to hold the {TAG_BYTES}-byte GCM tag")
    try:
        tail = decryptor.finalize_with_tag(held)
    except InvalidTag:
        raise ArtifactRejected(
            "the artifact's AES-256-GCM tag does not match: the artifact was altered or truncated, "
            "or the session key belongs to another order"
        ) from None
    if tail:
        yield tail


def decrypt_artifact(
    artifact: str | os.PathLike[str],
    session: SessionKey,
    output: str | os.PathLike[str],
    *,
    transform: Callable[[Iterator[bytes]], Iterator[bytes]] | None = None,
) -> int:
    """Decrypt the artifact file into `output`, which appears only when the tag matched (it is
    written to a temporary file beside it first). `transform` is applied to the plaintext chunks
    (decompression). Returns the bytes written."""
    target = Path(output)
    remove_abandoned_parts(target)
    # a stop signal whose handler raises (eris decrypt exits on SIGTERM) waits until the cleanup below is in place:
    # raised between the file's creation and the `try`, it left the file behind
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=".part", dir=target.parent or "."
        )
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        raise
    written = 0
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        with open(artifact, "rb") as source, os.fdopen(handle, "wb") as sink:
            chunks = decrypt_stream(source, session)
            try:
                for piece in transform(chunks) if transform else chunks:
                    sink.write(piece)
                    written += len(piece)
            except ValueError:
                # a transform that fails on altered data must not hide that the data were altered
                for _ in chunks:
                    pass
                raise
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return written


_STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def remove_abandoned_parts(target: Path) -> list[Path]:
    """Remove the temporary files of earlier decryptions into `target` whose process is gone (killed before it
    could clean up): they hold plaintext whose tag was never verified. Those of a decryption still running are
    left alone. Returns what was removed."""
    folder = target.parent if str(target.parent) else Path(".")
    removed = []
    for part in folder.glob(f".{glob.escape(target.name)}.*.part"):
        pid = part.name[len(target.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            part.unlink(missing_ok=True)
            removed.append(part)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
