"""Fresh RSA key pairs for the suite's report orders (the contract: a new pair for each order), generated a few
ahead by a process of its own.

An RSA-4096 key costs a quarter of a second of CPU and `cryptography` holds the GIL while it makes one: a run places
a dozen orders, and the suite stood still for seconds, the embedded target and the receiver (threads of the same
process) with it. A child interpreter makes them on another core while the tests go on; each key is handed out
once. The child imports nothing but `cryptography`, and when it cannot run, keys are made here as before.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from typing import IO

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from reports.keys import KEY_BITS, generate_key_pair

__all__ = ["KeyPairs"]

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
    """`take()` a fresh private key; `close()` stops the child. The child starts on `start()` or the first `take()`,
    so a run that orders nothing starts nothing."""

    def __init__(self, bits: int = KEY_BITS, ahead: int = AHEAD) -> None:
        self.bits = bits
        self.ahead = ahead
        self._process: subprocess.Popen[bytes] | None = None
        self._started = False

    def start(self) -> None:
        """Have the first keys made now (once)."""
        if not self._started:
            self._started = True
            self._start()

    def take(self) -> rsa.RSAPrivateKey:
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
