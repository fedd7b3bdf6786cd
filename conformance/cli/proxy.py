"""`eris proxy`: between a client and a service of the contract, forwarding every exchange unchanged and judging
each with the judge of the conformance suite: one line a finding as it happens; the HAR, findings.json and
findings.sarif when it stops (SIGINT, SIGTERM)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from conformance.cli.common import EXIT_OK, fail, port, suite_version, until_stopped
from conformance.cli.har_input import JudgedEntry
from conformance.cli.output import JsonWriter, SarifWriter, TextWriter, Writer
from conformance.client.har_exchanges import BaseUrl, entry_of_exchange
from conformance.client.proxy import Judging, Passed, proxy_app
from conformance.exchange_judge import ExchangeFinding, ExchangeJudge
from profiles import ConfigError
from profiles.validator import Validator

__all__ = ["add_commands"]

HOST = "127.0.0.1"


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "proxy",
        help="forward traffic to a service unchanged and judge every exchange against the contract, live",
        description="A reverse proxy: every request to it goes to --target unchanged, every answer comes back "
        "unchanged; each exchange is judged off the forwarding path by the judge of `eris certify`. One line a "
        "finding as it happens (with its side, client or server, and its requirement); on SIGINT or SIGTERM the "
        "HAR (--har) and findings.json and findings.sarif (--report-dir) are written.",
    )
    parser.add_argument("--target", required=True, metavar="URL", help="the service: http(s)://host[:port][/prefix]")
    parser.add_argument("--port", type=port, default=8080, metavar="N", help="port on 127.0.0.1 (default 8080; 0: any)")
    parser.add_argument("--har", metavar="FILE", help="write every exchange that passed here, as HAR 1.2")
    parser.add_argument(
        "--report-dir",
        metavar="DIR",
        default=".",
        help="where findings.json and findings.sarif are written when the proxy stops (default: here)",
    )
    parser.add_argument("--config", metavar="FILE.toml", help="installation placeholders ([installation] table)")
    parser.add_argument(
        "--strict", action="store_true", help="demand the reference implementation's form where the contract is open"
    )
    parser.set_defaults(run=_run_proxy)


def _run_proxy(args: argparse.Namespace) -> int:
    try:
        BaseUrl.of(args.target)
    except ValueError as error:
        return fail(f"--target: {error}")
    try:
        validator = Validator.for_config(args.config, strict=args.strict)
    except ConfigError as error:
        return fail(f"configuration: {error}")
    report_dir = Path(args.report_dir)
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        outputs = _Outputs(report_dir, Path(args.har) if args.har else None)
    except OSError as error:
        return fail(f"cannot write the reports: {error}")
    judging = Judging(ExchangeJudge(validator), outputs.judged, outputs.failed).start()
    try:
        asyncio.run(_serve(args.target, args.port, judging))
    except OSError as error:
        outputs.discard()
        return fail(f"cannot listen on {HOST}:{args.port}: {error.strerror or error}")
    finally:
        judging.stop()
    written = outputs.close()
    print(f"eris proxy: {judging.count} exchange(s) judged; written: {', '.join(map(str, written))}", flush=True)
    return EXIT_OK


async def _serve(target: str, port_number: int, judging: Judging) -> None:
    from aiohttp import web

    runner = web.AppRunner(proxy_app(target, judging.put), handle_signals=False, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, HOST, port_number)
        await site.start()
        listening = runner.addresses[0][1]
        print(f"eris proxy: http://{HOST}:{listening} -> {target} (Ctrl-C stops and writes the reports)", flush=True)
        await until_stopped()
    finally:
        await runner.cleanup()


class _Outputs:
    """The line of each finding on stdout; findings.json, findings.sarif and the HAR written as exchanges are judged,
    into temporary files that take their names when the proxy stops."""

    def __init__(self, report_dir: Path, har: Path | None) -> None:
        self.source = str(har) if har is not None else "proxy"
        self.lines = TextWriter(sys.stdout, suite_version)
        self._files: list[tuple[IO[str], Path]] = []
        self.writers: list[Writer] = [self.lines]
        for name, kind in (("findings.json", JsonWriter), ("findings.sarif", SarifWriter)):
            self.writers.append(kind(self._open(report_dir / name), suite_version))
        self.har: IO[str] | None = None
        if har is not None:
            self.har = self._open(har)
            log = {"version": "1.2", "creator": {"name": "eris proxy", "version": suite_version()}}
            self.har.write('{"log": ' + json.dumps(log)[:-1] + ', "entries": [')

    def _open(self, path: Path) -> IO[str]:
        path = path.resolve()
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115  # renamed at the end, or removed
            "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", delete=False
        )
        self._files.append((handle, path))
        return handle

    def judged(self, number: int, passed: Passed, findings: list[ExchangeFinding]) -> None:
        exchange = passed.exchange
        entry = JudgedEntry(self.source, number, exchange.method, exchange.path, findings)
        for writer in self.writers:
            writer.exchange(entry)
        sys.stdout.flush()
        if self.har is not None:
            har_entry: dict[str, Any] = entry_of_exchange(
                exchange, passed.url, passed.started, passed.seconds, passed.request_headers, passed.response_headers
            )
            self.har.write(("," if number else "") + "\n" + json.dumps(har_entry, ensure_ascii=False))

    def failed(self, number: int, passed: Passed, why: str) -> None:
        print(f"eris proxy: exchange {number} ({passed.exchange.label}) could not be judged: {why}", file=sys.stderr)

    def close(self) -> list[Path]:
        for writer in self.writers:
            writer.finish()
        if self.har is not None:
            self.har.write("\n]}}\n")
        written = []
        for handle, path in self._files:
            handle.close()
            os.replace(handle.name, path)
            written.append(path)
        return written

    def discard(self) -> None:
        for handle, _ in self._files:
            handle.close()
            Path(handle.name).unlink(missing_ok=True)
        self._files = []
