"""The server processes of bench/serve.py: building a database and serving it (or the trivial aiohttp GET) in a
child process, and starting and stopping those children from the benchmark's own process."""

from __future__ import annotations

import asyncio
import cProfile
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXED_PARTIES = 34
"""Parties of the seed data set without `large`."""
TRIVIAL_PATH = b"/trivial"
TRIVIAL_BODY = b'{"status":"ok"}'
HOST = "127.0.0.1"


# -- the child processes: build a database, serve it ----------------------------------------------


def build_database(size: int, path: str) -> None:
    """Seed a new database file exactly as `eris serve --db PATH --seed large:N` does on first start."""
    from aiohttp import web

    from reference_impl.app import ServerSettings, create_app
    from reference_impl.seed import seed_resources

    large = size - FIXED_PARTIES
    app = create_app(ServerSettings(db=path, seed=lambda contract: seed_resources(contract, large=large)))

    async def build() -> None:
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()  # the startup context opens the store and loads the seed into the empty file
        await runner.cleanup()

    asyncio.run(build())


def run_server(path: str | None, cpu: int | None, profile: str | None, answer_cache: bool = True) -> None:
    """Serve an existing database on a free port of 127.0.0.1 until SIGTERM; print `ready PORT`. With
    `profile`, the whole life of the server runs under cProfile, whose statistics go to that file. Without
    a database, the trivial server: GET TRIVIAL_PATH answers TRIVIAL_BODY, nothing else runs. Without
    `answer_cache`, every identifier read is answered from SQLite (ServerSettings.answer_cache_bytes = 0)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    from aiohttp import web

    if path is None:

        async def constant(request: web.Request) -> web.Response:
            return web.Response(body=TRIVIAL_BODY, content_type="application/json")

        app = web.Application()
        app.router.add_get(TRIVIAL_PATH.decode(), constant)
    else:
        from reference_impl.app import ServerSettings, create_app

        # As `eris serve`, but the gateway rate limit (200/s per client by default) is off: every request of
        # the benchmark comes from one client.
        settings = ServerSettings(db=path, seed=None, rate_per_second=0)
        if not answer_cache:
            settings.answer_cache_bytes = 0
        app = create_app(settings)

    async def serve() -> None:
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, HOST, 0)
            await site.start()
            stopped = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, stopped.set)
            print(f"ready {runner.addresses[0][1]}", flush=True)
            await stopped.wait()
        finally:
            await runner.cleanup()

    if profile is None:
        asyncio.run(serve())
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        asyncio.run(serve())
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


# -- in the benchmark's process: start and stop a child server ------------------------------------


def start_server(
    script: str, db_path: str | None, cpu: int | None, profile: str | None, *, answer_cache: bool = True
) -> tuple[subprocess.Popen[str], int]:
    """Start `script` (bench/serve.py: its hidden --child-* options call run_server); the child and its port."""
    command = [sys.executable, script, *(["--child-serve", db_path] if db_path else ["--child-trivial"])]
    if not answer_cache:
        command.append("--child-no-answer-cache")
    if cpu is not None:
        command += ["--child-cpu", str(cpu)]
    if profile is not None:
        command += ["--child-profile", profile]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.startswith("ready "):
        server.kill()
        server.wait()
        raise SystemExit(f"the server did not start (exit code {server.poll()})")
    return server, int(line.split()[1])


def stop_server(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
