"""One store server process: started in a session of its own, waited for until its port answers, stopped by its id
(never by name), its folder removed."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from conformance.client.ports import free_port

__all__ = ["StoreProcess", "StoreUnavailable", "free_port", "port_answers"]


class StoreUnavailable(RuntimeError):
    """A store server cannot be started here; the message says what is missing and how to get it."""


def port_answers(host: str, port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


class StoreProcess:
    """A server command run until stop(); its output goes to `log` in its own temporary folder."""

    def __init__(self, name: str, host: str, port: int) -> None:
        self.name, self.host, self.port = name, host, port
        self.folder = Path(tempfile.mkdtemp(prefix=f"eris-{name}-"))
        self.log = self.folder / f"{name}.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def run(self, command: list[str], *, startup_timeout: float = 30.0) -> None:
        """Start the command and wait until the port answers; StoreUnavailable with the log's end if it does not."""
        if self.running:
            return
        with self.log.open("ab") as log:
            try:
                self._process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )
            except OSError as error:
                raise StoreUnavailable(f"{self.name} cannot be started ({command[0]}): {error.strerror}") from None
        deadline = time.monotonic() + startup_timeout
        while not port_answers(self.host, self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.halt()
                tail = self.log.read_text(errors="replace")[-800:].strip()
                raise StoreUnavailable(f"{self.name} did not answer on {self.host}:{self.port}: {tail or 'no output'}")
            time.sleep(0.05)

    def halt(self, timeout: float = 10.0) -> None:
        """Stop the process (SIGTERM, then SIGKILL) and wait for it; the folder stays (a restart keeps the data)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        self.halt()
        shutil.rmtree(self.folder, ignore_errors=True)


def find_executable(name: str, env: str, *candidates: Path) -> str | None:
    """The executable `name`: the path in $`env`, else on PATH, else the first candidate that exists.
    StoreUnavailable when $`env` names something that is not an executable (a typo must not pass unseen)."""
    if os.environ.get(env):
        given = os.environ[env]
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise StoreUnavailable(f"${env} names {given}, which is not an executable file")
        return given
    found = shutil.which(name)
    if found:
        return found
    return next((str(path) for path in candidates if os.access(path, os.X_OK)), None)
