"""Samba's smbd with a private configuration: one writable share, one user, on a free loopback port."""

from __future__ import annotations

import getpass
import secrets
import subprocess
from pathlib import Path

from conformance.stores.process import StoreProcess, StoreUnavailable, find_executable, free_port

__all__ = ["Samba", "smbd_executable"]

INSTALL_HINT = "Samba is not installed: run .ci/install-stores, or `apt-get install samba`, or set ERIS_SMBD"
SHARE = "reports"


def _config(folder: str, host: str, port: int) -> str:
    return f"""[global]
server role = standalone server
smb ports = {port}
interfaces = {host}
bind interfaces only = yes
disable netbios = yes
server min protocol = SMB2_10
server signing = mandatory
pid directory = {folder}/run
lock directory = {folder}/lock
state directory = {folder}/state
cache directory = {folder}/cache
private dir = {folder}/private
ncalrpc dir = {folder}/ncalrpc
binddns dir = {folder}/binddns
log file = {folder}/log.%m
passdb backend = tdbsam:{folder}/private/passdb.tdb
load printers = no
printcap name = /dev/null
disable spoolss = yes
usershare path =

[{SHARE}]
path = {folder}/share
read only = no
"""


class Samba:
    """`with Samba() as store:` the share `store.share` at `store.host`:`store.port`, for `store.username` with
    `store.password`; `stop()` and `start()` again keep the port and the files (for outage tests)."""

    share = SHARE

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.username = getpass.getuser()  # smbd maps a share user to an account of the system
        self.password = secrets.token_urlsafe(12)
        self._process = StoreProcess("samba", self.host, self.port)
        self._configured = False

    @property
    def pid(self) -> int | None:
        return self._process.pid

    @property
    def folder(self) -> Path:
        """The share's folder on this machine."""
        return self._process.folder / "share"

    def url(self, folder: str = "") -> str:
        """eris' smb connectionString for a folder of the share."""
        return f"smb://{self.username}:{self.password}@{self.host}:{self.port}/{self.share}/{folder}".rstrip("/")

    def start(self) -> Samba:
        smbd = smbd_executable()
        if smbd is None:
            raise StoreUnavailable(INSTALL_HINT)
        config = self._process.folder / "smb.conf"
        if not self._configured:
            root = self._process.folder
            for name in ("run", "lock", "state", "cache", "private", "ncalrpc", "binddns", "share"):
                (root / name).mkdir(exist_ok=True)
            config.write_text(_config(str(root), self.host, self.port))
            self._add_user(smbd, str(config))
            self._configured = True
        self._process.run([smbd, "--foreground", "--debug-stdout", "--no-process-group", "-s", str(config)])
        return self

    def _add_user(self, smbd: str, config: str) -> None:
        pdbedit = find_executable("pdbedit", "ERIS_PDBEDIT", _sbin("pdbedit"), _bin_beside(smbd, "pdbedit"))
        if pdbedit is None:
            raise StoreUnavailable(INSTALL_HINT + " (pdbedit not found)")
        added = subprocess.run(
            [pdbedit, "-s", config, "-a", "-u", self.username, "-t"],
            input=f"{self.password}\n{self.password}\n",
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if added.returncode != 0:
            raise StoreUnavailable(f"pdbedit could not add the user {self.username}: {added.stderr.strip()[-400:]}")

    def stop(self) -> None:
        self._process.halt()

    def close(self) -> None:
        self._process.close()

    def __enter__(self) -> Samba:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def smbd_executable() -> str | None:
    return find_executable("smbd", "ERIS_SMBD", _sbin("smbd"))


def _sbin(name: str) -> Path:
    return Path("/usr/sbin") / name


def _bin_beside(executable: str, name: str) -> Path:
    return Path(executable).parent / name
