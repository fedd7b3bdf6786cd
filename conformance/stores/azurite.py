"""Azurite, Microsoft's Azure Storage emulator (npm `azurite`), blob service only, on a free loopback port."""

from __future__ import annotations

import os
from pathlib import Path

from conformance.stores.process import StoreProcess, StoreUnavailable, find_executable, free_port

__all__ = ["ACCOUNT", "ACCOUNT_KEY", "Azurite", "azurite_executable"]

ACCOUNT = "devstoreaccount1"
ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
"""Azurite's published development key (documented by Microsoft; it opens nothing but an emulator)."""
INSTALL_HINT = (
    "Azurite is not installed: run .ci/install-stores, or `npm install --prefix ~/.cache/eris/azurite azurite@3.35.0`, "
    "or set ERIS_AZURITE to its azurite-blob"
)


def azurite_executable() -> str | None:
    cache = Path(os.environ.get("ERIS_STORES_DIR", Path.home() / ".cache" / "eris"))
    return find_executable("azurite-blob", "ERIS_AZURITE", cache / "azurite" / "node_modules" / ".bin" / "azurite-blob")


class Azurite:
    """`with Azurite() as store:` a blob service at `store.endpoint`; `stop()` and `start()` again keep the port and
    the data (for outage tests)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._process = StoreProcess("azurite", self.host, self.port)

    @property
    def endpoint(self) -> str:
        return f"http://{self.host}:{self.port}/{ACCOUNT}"

    @property
    def connection_string(self) -> str:
        """An azure-storage-blob connection string of the development account (UseDevelopmentStorage=true would
        fix the port to 10000)."""
        return (
            f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={ACCOUNT_KEY};"
            f"BlobEndpoint={self.endpoint};"
        )

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def start(self) -> Azurite:
        executable = azurite_executable()
        if executable is None:
            raise StoreUnavailable(INSTALL_HINT)
        data = self._process.folder / "data"
        data.mkdir(exist_ok=True)
        self._process.run(
            [
                executable,
                "--blobHost", self.host,
                "--blobPort", str(self.port),
                "--location", str(data),
                "--silent",
                "--skipApiVersionCheck",
                "--disableTelemetry",
            ]
        )  # fmt: skip
        return self

    def stop(self) -> None:
        self._process.halt()

    def close(self) -> None:
        self._process.close()

    def __enter__(self) -> Azurite:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()
