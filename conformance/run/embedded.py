"""The embedded default target of `eris certify`: the reference implementation served on a free loopback port
by an event loop of its own in a background thread, with the target description a certification run needs.

Notifications need the suite's receiver at an address the server knows before it starts, so a free port is
chosen for the receiver first; the server pushes to http://127.0.0.1:<that port>/notifications and the
description's [receiver] table makes the suite listen there.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import threading
from pathlib import Path
from typing import Any

from conformance.client.ports import free_port

__all__ = ["CONFIG_TOKEN_LIFETIME", "EmbeddedReference", "free_port", "target_description"]

HOST = "127.0.0.1"
_START_TIMEOUT = 60.0
_STOP_TIMEOUT = 15.0
CONFIG_TOKEN_LIFETIME = 7 * 24 * 3600
"""Seconds the tokens of a written target description stay valid."""


class EmbeddedReference:
    """The reference implementation with its seed data set, in memory, until `stop()`.

    `description` is the path of a conformance target description (tokens included) for it; `base_url`
    its address. Use as a context manager, or call `start()` and `stop()`. `deviations`: faults and variants
    (conformance.deviations) to serve with, for measuring the suite."""

    def __init__(self, deviations: tuple[str, ...] = ()) -> None:
        self.deviations = deviations
        self.base_url = ""
        self.description = Path()
        self.receiver_port = 0
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: Any = None

    def __enter__(self) -> EmbeddedReference:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> EmbeddedReference:
        """Seed and serve; write the target description. OSError when it cannot listen."""
        from reference_impl.app import APPLICATION_KEYS, ServerSettings, create_app
        from reference_impl.seed import seed_resources
        from reference_impl.state import SERVICE

        self._folder = tempfile.TemporaryDirectory(prefix="eris-certify-")
        folder = Path(self._folder.name)
        self.receiver_port = free_port()
        (folder / "local").mkdir()  # the suite reads local deliveries there from the first order on
        notify_urls = [f"http://{HOST}:{self.receiver_port}/notifications"]
        # As `eris serve` runs by default (rate limit included: the suite's client waits out a 429), with
        # the data in memory and `local` deliveries confined to this run's folder.
        app_settings = ServerSettings(
            db=":memory:",
            seed=seed_resources,
            notify_urls=notify_urls,
            local_root=str(folder / "local"),
        )
        if self.deviations:
            from conformance.deviations import extensions

            app_settings.extensions = extensions(self.deviations)
        app = create_app(app_settings)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="eris-embedded-reference", daemon=True)
        self._thread.start()
        try:
            port = self._call(self._serve(app), _START_TIMEOUT)
        except BaseException:
            self.stop()
            raise
        self.base_url = f"http://{HOST}:{port}"
        data: dict[str, str] = {}
        if self.deviations:
            from conformance.deviations import declared_data

            data = declared_data(app, self.deviations)  # what the deviation hides from every read of the contract
        text = target_description(
            self.base_url,
            app[SERVICE].contract,
            app[APPLICATION_KEYS],
            notify_urls,
            local_root=folder / "local",
            data=data,
        )
        text += f'\n[receiver]\nhost = "{HOST}"\nport = {self.receiver_port}\n'
        self.description = folder / "target.toml"
        self.description.write_text(text, encoding="utf-8")
        return self

    async def _serve(self, app: Any) -> int:
        from aiohttp import web

        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, 0)
        await site.start()
        return int(self._runner.addresses[0][1])

    def _call(self, coroutine: Any, timeout: float) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def stop(self) -> None:
        """Close the application (its store and workers), the loop and the thread; remove the folder. Safe to
        call twice."""
        loop, thread, runner = self._loop, self._thread, self._runner
        self._loop = self._thread = self._runner = None
        try:
            if loop is not None and runner is not None:
                asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(_STOP_TIMEOUT)
        finally:
            if loop is not None and thread is not None:
                loop.call_soon_threadsafe(loop.stop)
                thread.join(_STOP_TIMEOUT)
                if not thread.is_alive():
                    loop.close()
            if self._folder is not None:
                self._folder.cleanup()
                self._folder = None


def target_description(
    base_url: str,
    contract: Any,
    keys: Any,
    notify_urls: list[str],
    *,
    local_root: Path | None = None,
    data: dict[str, str] | None = None,
) -> str:
    """The conformance target description (DESIGN.md) of a running reference implementation: its address,
    tokens minted with its application key `keys` (one with the report right, one without), the installation of
    its `contract`, whether it pushes notifications, and the storage types it delivers to besides http.

    The reference delivers to blob and smb wherever the order points; they are declared when the suite can start
    their stores on this machine (Azurite, Samba), so that a run without them is complete for what it declares.
    `local` is declared with the delivery root as the folder the suite reads, when there is one. `data`: the [data]
    table's entries (conformance.configuration.target.DATA_ENTRIES), when the server needs some."""
    from conformance.stores import startable_stores
    from reference_impl.tokens import REPORT_RIGHT, mint_token

    def mint(subject: str, rights: list[str]) -> str:
        return mint_token(
            keys.private_key, subject=subject, rights=rights, lifetime_seconds=CONFIG_TOKEN_LIFETIME, key_id=keys.key_id
        )

    lines = [
        "# written by eris serve --write-config",
        "[target]",
        f'base_url = "{base_url}"',
        f'token = "{mint("eris-certify", [REPORT_RIGHT])}"',
        f'token_without_report_right = "{mint("eris-certify-no-right", [])}"',
        "",
        "[installation]",
        *(f'{key} = "{value}"' for key, value in contract.installation.values.items()),
        "",
        "[installation.namespaces]",
        *(f'{key} = "{value}"' for key, value in contract.installation.namespace_keys.items()),
        "",
        "[features]",
        f"notifications = {'true' if notify_urls else 'false'}",
    ]
    storage = [*startable_stores(), *(["local"] if local_root is not None else [])]
    unavailable = sorted({"blob", "smb"} - set(storage))
    if unavailable:
        lines.append(f"# not declared: {', '.join(unavailable)} (the store cannot be started here: .ci/install-stores)")
    lines += [f"storage = {json.dumps(sorted(storage))}", ""]
    if local_root is not None:
        lines += ["[storage.local]", f"path = {json.dumps(str(local_root))}", ""]
    if data:
        lines += ["[data]", *(f"{name} = {json.dumps(value)}" for name, value in sorted(data.items())), ""]
    return "\n".join(lines)
