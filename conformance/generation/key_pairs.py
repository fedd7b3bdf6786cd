"""Fresh RSA key pairs for the suite's report orders (the contract: a new pair for each order), generated a few
ahead by a process of its own.

An RSA-4096 key costs a quarter of a second of CPU and `cryptography` holds the GIL while it makes one: a run places
a dozen orders, and the suite stood still for seconds, the embedded target and the receiver (threads of the same
process) with it. A child interpreter makes them on another core while the tests go on; each key is handed out
once. The child imports nothing but `cryptography`, and when it cannot run, keys are made here as before.

Whoever runs many certifications on one machine (the self-test, the project's own tests) makes a stock of keys once
(`write_stock`) and names it in ERIS_KEY_STOCK: each run then takes its first keys from the stock, each once, before
it makes any. Making them was about a quarter of the CPU of the self-test (11 keys a full certification, half a
second each here). A run of pytest-xdist workers gives each worker keys of its own.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import IO

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from reports.keys import KEY_BITS, generate_key_pair

__all__ = ["STOCK_VARIABLE", "KeyPairs", "stocked_keys", "use_stock", "write_stock"]

STOCK_VARIABLE = "ERIS_KEY_STOCK"
"""The environment variable naming a file of PEM private keys (write_stock) that runs take their first keys from."""

AHEAD = 4
"""Keys kept ready beyond those taken: what a burst of orders takes before the child catches up (the suite's five
end-to-end orders come one after another), and at most what a run wastes."""
_END = b"-----END PRIVATE KEY-----\n"
_STOP_TIMEOUT = 5.0
# Each line of stdin asks for that many more keys; each key goes out as one PKCS#8 PEM block.
_CHILD = """
import sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

bits = int(sys.argv[1])
for line in sys.stdin:
    for _ in range(int(line)):
        key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        sys.stdout.buffer.write(pem)
        sys.stdout.buffer.flush()
"""


class KeyPairs:
    """`take()` a fresh private key: the blocks of `stock` first (PEM, each taken once), then keys of the child;
    `close()` stops the child. The child starts on `start()` or the first `take()` the stock cannot serve, so a
    run that orders nothing starts nothing."""

    def __init__(self, bits: int = KEY_BITS, ahead: int = AHEAD, stock: Iterable[bytes] = ()) -> None:
        self.bits = bits
        self.ahead = ahead
        self._stock = deque(stock)
        self._process: subprocess.Popen[bytes] | None = None
        self._started = False

    def start(self) -> None:
        """Have the first keys made now (once), unless the stock has some."""
        if not self._started and not self._stock:
            self._started = True
            self._start()

    def take(self) -> rsa.RSAPrivateKey:
        key = self._take()
        _record_handed(key)
        return key

    def _take(self) -> rsa.RSAPrivateKey:
        while self._stock:
            stocked = serialization.load_pem_private_key(
                self._stock.popleft(), None, unsafe_skip_rsa_key_validation=True
            )
            if isinstance(stocked, rsa.RSAPrivateKey) and stocked.key_size == self.bits:
                return stocked
        self.start()
        process = self._process
        if process is not None:
            assert process.stdin is not None and process.stdout is not None
            pem = _read_key(process.stdout)
            if pem is not None and self._ask(1):
                # made by our own child from a fresh generation: the costly consistency check of loading (as long
                # as a generation) proves nothing here
                key = serialization.load_pem_private_key(pem, None, unsafe_skip_rsa_key_validation=True)
                assert isinstance(key, rsa.RSAPrivateKey)
                return key
            self.close()
        return generate_key_pair(self.bits)

    def _start(self) -> None:
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(self.bits)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            self._process = None
            return
        if not self._ask(self.ahead):
            self.close()

    def _ask(self, count: int) -> bool:
        process = self._process
        if process is None or process.stdin is None:
            return False
        try:
            process.stdin.write(f"{count}\n".encode())
            process.stdin.flush()
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Stop the child, by its own id: the keys it may still be making are wanted by no one."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _record_handed(key: rsa.RSAPrivateKey) -> None:
    """Where ERIS_KEY_RECORD names a folder (eris certify, conformance/verification/recording.py), the key goes there
    too: it opens the run's recorded deliveries when `eris verify` re-checks them."""
    folder = os.environ.get("ERIS_KEY_RECORD")
    if folder:
        with open(Path(folder) / f"handed-{os.getpid()}.pem", "ab") as out:
            out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, _NO_PASSWORD))


_NO_PASSWORD = serialization.NoEncryption()


def _read_key(stream: IO[bytes]) -> bytes | None:
    """The next PEM block, None when the child has ended."""
    lines = []
    while True:
        line = stream.readline()
        if not line:
            return None
        lines.append(line)
        if line == _END:
            return b"".join(lines)


KEYS_A_CERTIFICATION_TAKES = 16
"""A full certification orders with 11 fresh keys; beyond its stock, a run makes its own."""


def use_stock(count: int = KEYS_A_CERTIFICATION_TAKES) -> None:
    """Have the runs this process starts from now on (and their processes) take their keys from a stock of `count`
    in the temporary folder, made once per user and machine; nothing when ERIS_KEY_STOCK names one already."""
    if STOCK_VARIABLE not in os.environ:
        path = Path(tempfile.gettempdir()) / f"eris-order-keys-{os.getuid()}.pem"
        os.environ[STOCK_VARIABLE] = str(write_stock(path, count))


def stocked_keys(part: int = 0, parts: int = 1) -> list[bytes]:
    """The PEM blocks of the stock that ERIS_KEY_STOCK names, every `parts`-th from the `part`-th (a worker's share);
    none when it names nothing or an unreadable file."""
    path = os.environ.get(STOCK_VARIABLE)
    if not path:
        return []
    try:
        text = Path(path).read_bytes()
    except OSError:
        return []
    blocks = [block + _END for block in text.split(_END) if block.strip()]
    return blocks[part::parts]


def write_stock(path: Path, count: int, bits: int = KEY_BITS) -> Path:
    """A stock of `count` fresh private keys at `path`, made on every core; an existing stock of that many keys is
    kept. Written whole or not at all (a stock may be read by runs that start meanwhile)."""
    if path.is_file() and path.read_bytes().count(_END) >= count:
        return path
    with ProcessPoolExecutor(min(count, os.cpu_count() or 1)) as pool:
        blocks = list(pool.map(_private_pem, [bits] * count))
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(handle, "wb") as out:
        out.write(b"".join(blocks))
    os.replace(partial, path)
    return path


def _private_pem(bits: int) -> bytes:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
