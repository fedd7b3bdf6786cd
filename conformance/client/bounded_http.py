"""An HTTP client whose every answer is bounded in time and in size, whatever the target sends.

httpx bounds each network read, not an answer: a target that sends a byte a second keeps a request alive as long
as it likes, and an answer of gigabytes (or a small gzip answer that inflates to gigabytes) is read whole into
memory. `BoundedClient` is an httpx.Client that

- gives every request one deadline, `request_timeout` seconds from its start, for connecting, sending, the head
  and the body together: each network operation may wait only for the time left (`_BoundedBackend`), so an answer
  that trickles is cut at the deadline (`AnswerTooSlow`);
- reads the body itself, decompressing gzip and deflate in pieces of at most `_PIECE` bytes and counting the bytes
  after decompression, and stops at `max_answer_size` (`AnswerTooLarge`): memory holds the limit, never more.

Both errors are httpx errors (a timeout, a request error), carrying what arrived before the cut for the record.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

from conformance.configuration.settings import DEFAULT_MAX_ANSWER_SIZE, DEFAULT_REQUEST_TIMEOUT

__all__ = [
    "AnswerTooLarge",
    "AnswerTooSlow",
    "BoundedClient",
    "SuiteCouldNotSend",
    "error_text",
    "size_text",
]

KEPT = 64 * 1024
"""Bytes of a cut answer kept for the record (conformance.client.traffic.BODY_LIMIT)."""
_PIECE = 256 * 1024
"""Decompressed bytes made by one step: a gzip bomb inflates in pieces this size, each counted before the next."""
_ENCODINGS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the client asks for: the encodings it decompresses in bounded pieces. Others are read as they come."""


def size_text(size: int) -> str:
    """A size in the unit a person reads: 32 MiB, 1.5 GiB, 512 KiB, 100 bytes."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.4g} {unit}"
    return f"{size} bytes"


class SuiteCouldNotSend(Exception):
    """The suite's own HTTP client (httpx, or schemathesis making the request) failed before the target could
    answer: what it blocks is not exercised, and never the target's failure."""


class AnswerTooLarge(httpx.RequestError):
    """The answer's body, decompressed, passed the size limit: reading stopped there."""

    def __init__(self, message: str, *, request: httpx.Request, response: httpx.Response, received: bytes) -> None:
        super().__init__(message, request=request)
        self.response = response
        """Status and headers of the answer (its body is not read)."""
        self.received = received
        """The first KEPT bytes of the body, decompressed."""


class AnswerTooSlow(httpx.TimeoutException):
    """No complete answer within the request timeout (connecting, sending, the head and the body together)."""

    def __init__(
        self, message: str, *, request: httpx.Request, response: httpx.Response | None, received: bytes
    ) -> None:
        super().__init__(message, request=request)
        self.response = response
        """Status and headers, when the head arrived in time; None when it did not."""
        self.received = received
        """The first KEPT bytes of the body that arrived, decompressed."""


def error_text(error: BaseException) -> str:
    """A transport error in one line: the bounds' own errors in the words of the run's options, others by type."""
    text = " ".join(str(error).split())
    if isinstance(error, AnswerTooLarge | AnswerTooSlow):
        return text  # says what happened in the words of the run's options
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _Deadlines(threading.local):
    """The deadline of the request the current thread is sending (monotonic seconds), None outside one."""

    at: float | None = None

    def bounded(self, timeout: float | None, error: type[Exception]) -> float | None:
        """`timeout` cut to the time left; `error` when none is left."""
        if self.at is None:
            return timeout
        left = self.at - time.monotonic()
        if left <= 0:
            raise error("the request timeout passed")
        return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream, deadlines: _Deadlines) -> None:
        self._stream = stream
        self._deadlines = deadlines

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadlines.bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._deadlines.bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        bounded = self._deadlines.bounded(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, bounded), self._deadlines)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    """httpcore's network backend, each operation waiting at most for the time left to the request's deadline."""

    def __init__(self, backend: httpcore.NetworkBackend, deadlines: _Deadlines) -> None:
        self._backend = backend
        self._deadlines = deadlines

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = self._deadlines.bounded(timeout, httpcore.ConnectTimeout)
        stream = self._backend.connect_tcp(host, port, bounded, local_address, socket_options)
        return _BoundedStream(stream, self._deadlines)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        bounded = self._deadlines.bounded(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._backend.connect_unix_socket(path, bounded, socket_options), self._deadlines)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _bound_network(transport: Any, deadlines: _Deadlines) -> None:
    """Put the deadline under httpcore's pool of `transport` (httpx's own transport, proxies included). httpx has
    no public way in; where the pool is not found the body's reads are still bounded by the deadline, the head's
    by each read's timeout only."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None and not isinstance(backend, _BoundedBackend):
        pool._network_backend = _BoundedBackend(backend, deadlines)  # type: ignore[union-attr]


class _Inflater:
    """One content coding undone in pieces of at most _PIECE bytes (httpx inflates a whole read at once)."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._object = zlib.decompressobj(_ENCODINGS[coding])
        self._first = True

    def run(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            yield from self._feed(chunk)
        try:
            tail = self._object.flush()
        except zlib.error as error:
            raise httpx.DecodingError(f"{self.coding}: {error}") from None
        if tail:
            yield tail

    def _feed(self, data: bytes) -> Iterator[bytes]:
        while not self._object.eof:
            try:
                out = self._object.decompress(data, _PIECE)
            except zlib.error as error:
                if self._first and self.coding == "deflate":  # a raw deflate stream, without the zlib header
                    self._first = False
                    self._object = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise httpx.DecodingError(f"{self.coding}: {error}") from None
            self._first = False
            data = self._object.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < _PIECE:
                return


def _decoded(raw: Iterable[bytes], codings: list[str]) -> Iterator[bytes]:
    """The body decompressed: the codings of Content-Encoding undone last first; others passed through, as httpx
    does."""
    chunks: Iterable[bytes] = raw
    for coding in reversed(codings):
        if coding in _ENCODINGS:
            chunks = _Inflater(coding).run(chunks)
    return iter(chunks)


class _Body:
    """The pieces of an answer as they come, joined once at the end: no buffer grown by copies, and nothing left
    held by the error raised when reading stops (its traceback keeps the reading frame alive)."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> None:
        self._pieces.append(piece)
        self.size += len(piece)

    def whole(self) -> bytes:
        whole = b"".join(self._pieces)
        self._pieces = []
        return whole

    def emptied(self) -> bytes:
        """The first KEPT bytes, the rest let go."""
        kept = bytearray()
        for piece in self._pieces:
            kept += piece[: KEPT - len(kept)]
            if len(kept) >= KEPT:
                break
        self._pieces, self.size = [], 0
        return bytes(kept)


class BoundedClient(httpx.Client):
    """An httpx.Client whose every answer is read whole within `request_timeout` seconds and `max_answer_size`
    bytes after decompression (AnswerTooSlow, AnswerTooLarge). `send` always reads the answer: `stream=True` is
    not offered."""

    def __init__(
        self,
        *,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE,
        **options: Any,
    ) -> None:
        options.setdefault("timeout", request_timeout)
        headers = httpx.Headers(options.pop("headers", None))
        headers.setdefault("Accept-Encoding", ACCEPTED_ENCODINGS)
        super().__init__(headers=headers, **options)
        self.request_timeout = request_timeout
        self.max_answer_size = max_answer_size
        self._deadlines = _Deadlines()
        for transport in (self._transport, *self._mounts.values()):
            _bound_network(transport, self._deadlines)

    def send(
        self,
        request: httpx.Request,
        *,
        stream: bool = False,
        auth: Any = httpx.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx.USE_CLIENT_DEFAULT,
    ) -> httpx.Response:
        deadline = time.monotonic() + self.request_timeout
        outer, self._deadlines.at = self._deadlines.at, deadline
        try:
            try:
                response = super().send(request, stream=True, auth=auth, follow_redirects=follow_redirects)
            except httpx.TimeoutException as error:
                if time.monotonic() < deadline:
                    raise  # a timeout of one read, as configured: not the deadline's
                raise self._too_slow(request, None, b"") from error
            self._read(response, deadline)
            return response
        finally:
            self._deadlines.at = outer

    def _read(self, response: httpx.Response, deadline: float) -> None:
        codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
        body = _Body()
        try:
            for piece in _decoded(response.iter_raw(), codings):
                if body.size + len(piece) > self.max_answer_size:
                    break
                body.add(piece)
                if time.monotonic() > deadline:
                    raise self._too_slow(response.request, response, body.emptied())
            else:
                response._content = body.whole()  # what httpx's read() sets: the answer reads as a whole from here
                return
        except httpx.TimeoutException as error:
            if isinstance(error, AnswerTooSlow) or time.monotonic() < deadline:
                raise
            raise self._too_slow(response.request, response, body.emptied()) from error
        finally:
            response.close()
        raise AnswerTooLarge(
            f"the answer passed {size_text(self.max_answer_size)} (--max-answer-size)"
            + (f" once decompressed ({', '.join(codings)})" if codings else "")
            + ": reading stopped there",
            request=response.request,
            response=response,
            received=body.emptied(),
        )

    def _too_slow(self, request: httpx.Request, response: httpx.Response | None, received: bytes) -> AnswerTooSlow:
        what = "no answer" if response is None else f"the answer ({response.status_code}) was not complete"
        return AnswerTooSlow(
            f"{what} within {self.request_timeout:g} s (--request-timeout)",
            request=request,
            response=response,
            received=received,
        )
