"""`eris serve` and `eris token`: run the reference implementation, mint test tokens."""

from __future__ import annotations

import argparse
import asyncio
import math
from pathlib import Path
from typing import Any

from aiohttp import web

from conformance.cli.common import (
    fail,
    non_empty,
    non_negative_float,
    port,
    positive_float,
    positive_int,
    until_stopped,
)
from conformance.run.embedded import target_description
from profiles import ConfigError
from reference_impl.app import APPLICATION_KEYS, ServerSettings, create_app
from reference_impl.slow_clients import HEAD_SECONDS, HeadBoundRunner
from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, mint_token
from reports.delivery import DEFAULT_DENIED, networks

DEFAULT_KEYS = ".eris/keys"
DEFAULT_DB = "eris-serve.db"
DEFAULT_LOCAL_ROOT = "eris-deliveries"


def add_commands(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the reference implementation of the interface (aiohttp + SQLite)",
        description="Serve every endpoint of the contract from a SQLite database, seeded on first start.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=8080, help="port; 0 picks a free one and prints it (default 8080)")
    serve.add_argument("--db", default=DEFAULT_DB, help=f"SQLite file, or :memory: (default {DEFAULT_DB})")
    serve.add_argument(
        "--seed",
        default="default",
        metavar="default|none|large:N",
        help="data of a new database: the reference data set; none (only the naming systems and value sets every "
        "installation publishes); or the reference data plus N parties",
    )
    serve.add_argument("--config", metavar="FILE.toml", help="installation placeholders ([installation] table)")
    serve.add_argument(
        "--notify-url", action="append", default=[], metavar="URL", help="push Notifications here (repeatable)"
    )
    serve.add_argument(
        "--keys",
        default=DEFAULT_KEYS,
        metavar="DIR",
        help=f"application key pair that signs accepted tokens, created if missing (default {DEFAULT_KEYS})",
    )
    serve.add_argument(
        "--token-on-every-endpoint",
        action="store_true",
        help="demand a Bearer token on every endpoint, not only POST /v1/reports",
    )
    serve.add_argument(
        "--rate-limit",
        default="200:400",
        metavar="RATE[:BURST]",
        help="requests per second per client, and burst (default 200:400; 0 turns it off)",
    )
    serve.add_argument(
        "--source-changes",
        type=non_negative_float,
        default=0.0,
        metavar="SECONDS",
        help="simulate the source system changing a Contractor every SECONDS (each change notified)",
    )
    serve.add_argument(
        "--local-root",
        default=DEFAULT_LOCAL_ROOT,
        metavar="DIR",
        help=f"folder that report deliveries of storage type local go below (default {DEFAULT_LOCAL_ROOT})",
    )
    serve.add_argument(
        "--head-timeout",
        type=positive_float,
        default=HEAD_SECONDS,
        metavar="SECONDS",
        help=f"a new connection must send its request line and headers within this time (default {HEAD_SECONDS:g})",
    )
    serve.add_argument(
        "--deliver-to",
        action="append",
        default=[],
        metavar="CIDR",
        help="http report deliveries go only to these addresses (repeatable; default: any not refused)",
    )
    serve.add_argument(
        "--never-deliver-to",
        action="append",
        default=[],
        metavar="CIDR",
        help="http report deliveries never go to these addresses, besides link-local and cloud metadata ones "
        "(repeatable)",
    )
    serve.add_argument(
        "--report-products",
        type=int,
        default=250,
        metavar="N",
        help="size of the simulated product catalogue: the product-level report has N x 8 rows (default 250)",
    )
    serve.add_argument(
        "--write-config",
        metavar="FILE",
        help="write the conformance target description of this server (tokens included)",
    )
    serve.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME",
        help="break one MUST requirement on purpose, to measure a conformance suite (repeatable; `eris deviations`)",
    )
    serve.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="do differently what the contract leaves open, still conformant (repeatable; `eris deviations`)",
    )
    serve.set_defaults(run=run_serve)

    deviations = commands.add_parser(
        "deviations",
        help="list the faults and conformant variants the reference implementation can be started with",
        description="Faults break exactly one MUST requirement each; variants do what the contract leaves open "
        "differently. Both exist to measure a conformance suite: it must catch every fault and pass every variant.",
    )
    deviations.add_argument("--format", choices=("text", "json"), default="text", help="default text")
    deviations.set_defaults(run=run_deviations)

    token = commands.add_parser("token", help="mint a Bearer token accepted by `eris serve`")
    token.add_argument(
        "--keys",
        default=DEFAULT_KEYS,
        metavar="DIR",
        help=f"application key pair, as `eris serve --keys` created it (default {DEFAULT_KEYS}); never created here",
    )
    token.add_argument("--subject", type=non_empty, default="eris-integrator", help="the token's sub claim")
    token.add_argument("--no-report-right", action="store_true", help=f"leave out the {REPORT_RIGHT} right")
    token.add_argument("--lifetime", type=positive_int, default=3600, metavar="SECONDS", help="validity (default 3600)")
    token.set_defaults(run=run_token)


def _seed(spec: str) -> Any:
    from reference_impl.seed import seed_resources

    if spec == "none":
        return None
    if spec == "default":
        return seed_resources
    if spec.startswith("large:") and spec[6:].isdigit():
        count = int(spec[6:])
        return lambda contract: seed_resources(contract, large=count)
    raise ValueError(f"--seed must be default, none or large:N, not {spec!r}")


def _rate(spec: str) -> tuple[float, int]:
    rate, _, burst = spec.partition(":")
    wrong = ValueError(f"--rate-limit must be RATE or RATE:BURST (RATE a finite number >= 0, BURST >= 1), not {spec!r}")
    try:
        per_second, bursting = float(rate), int(burst) if burst else None
    except ValueError:
        raise wrong from None
    if not math.isfinite(per_second) or per_second < 0 or (bursting is not None and bursting < 1):
        raise wrong
    return per_second, bursting if bursting is not None else max(1, int(per_second * 2))


def _deviations(faults: list[str], variants: list[str]) -> tuple[str, ...]:
    """The names, each checked to be a fault (for --fault) or a variant (for --variant)."""
    if not faults and not variants:
        return ()
    from conformance.deviations import FAULT, VARIANT, lookup

    for names, kind, option in ((faults, FAULT, "--fault"), (variants, VARIANT, "--variant")):
        for name in names:
            if lookup(name).kind != kind:
                raise ValueError(f"{name!r} is a {lookup(name).kind}: name it with --{lookup(name).kind}, not {option}")
    return (*faults, *variants)


def run_deviations(args: argparse.Namespace) -> int:
    import json

    from conformance.deviations import catalogue

    found = catalogue()
    if args.format == "json":
        rows = [{"name": d.name, "kind": d.kind, "breaks": d.requirement, "summary": d.summary} for d in found]
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(d.name) for d in found)
    for d in found:
        print(f"{d.kind:7}  {d.name:{width}}  {d.requirement or '(conformant)':17}  {d.summary}")
    return 0


def run_token(args: argparse.Namespace) -> int:
    if not (Path(args.keys) / ApplicationKeys.PRIVATE_FILE).is_file():
        return fail(
            f"no application key pair in {args.keys}: a token signed by a new pair would be trusted by no server; "
            f"`eris keygen --application {args.keys}` makes one (as `eris serve --keys {args.keys}` does on its first "
            "start)"
        )
    try:
        keys = ApplicationKeys.load(args.keys)
    except (OSError, ValueError) as error:
        return fail(f"cannot use the key pair in {args.keys}: {error}")
    rights = [] if args.no_report_right else [REPORT_RIGHT]
    print(
        mint_token(
            keys.private_key, subject=args.subject, rights=rights, lifetime_seconds=args.lifetime, key_id=keys.key_id
        )
    )
    return 0


def run_serve(args: argparse.Namespace) -> int:
    try:
        settings = ServerSettings(
            db=args.db,
            config=args.config,
            seed=_seed(args.seed),
            notify_urls=args.notify_url,
            application_keys=ApplicationKeys.load_or_create(args.keys),
            token_on_every_endpoint=args.token_on_every_endpoint,
            source_change_every=args.source_changes,
            local_root=args.local_root,
            report_products=args.report_products,
            delivery_allowed=tuple(args.deliver_to),
            delivery_denied=(*DEFAULT_DENIED, *args.never_deliver_to),
        )
        networks((*settings.delivery_allowed, *settings.delivery_denied))  # a bad block is named before anything starts
        deviations = _deviations(args.fault, args.variant)
        if args.report_products < 0:
            raise ValueError(f"--report-products must be 0 or more, not {args.report_products}")
        settings.rate_per_second, settings.rate_burst = _rate(args.rate_limit)
        if deviations:
            from conformance.deviations import extensions

            settings.extensions = extensions(deviations)
        app = create_app(settings)
    except (ValueError, OSError, ConfigError) as error:
        return fail(str(error))
    try:
        return asyncio.run(_serve(app, args))
    except KeyboardInterrupt:
        return 0


async def _serve(app: web.Application, args: argparse.Namespace) -> int:
    runner = HeadBoundRunner(app, handle_signals=False, head_seconds=args.head_timeout)
    await runner.setup()
    try:
        site = web.TCPSite(runner, args.host, args.port)
        try:
            await site.start()
        except OSError as error:
            return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror}")
        host, port = runner.addresses[0][:2]
        base_url = f"http://{host}:{port}"
        if args.write_config:
            from reference_impl.state import SERVICE

            local_root = Path(args.local_root).resolve() if args.local_root else None
            if local_root is not None:
                local_root.mkdir(parents=True, exist_ok=True)  # the suite reads it before the first delivery
            data: dict[str, str] = {}
            if deviations := _deviations(args.fault, args.variant):
                from conformance.deviations import declared_data

                data = declared_data(app, deviations)  # what a deviation hides from every read of the contract
            text = target_description(
                base_url,
                app[SERVICE].contract,
                app[APPLICATION_KEYS],
                args.notify_url,
                local_root=local_root,
                data=data,
            )
            Path(args.write_config).write_text(text, encoding="utf-8")
        print(f"eris serve: listening on {base_url} (database {args.db}); Ctrl-C stops", flush=True)
        await until_stopped()
        print("eris serve: stopping", flush=True)
        return 0
    finally:
        await runner.cleanup()
