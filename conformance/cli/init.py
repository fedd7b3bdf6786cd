"""`eris init`: write a commented target description from what an implementation publishes."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from conformance.cli.common import EXIT_OK, add_answer_bounds, fail

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
    init = commands.add_parser(
        "init",
        help="write a target description (target.toml) from what an implementation publishes",
        description="Read the list reads of the implementation at URL (parties, fixed-asset documents, document "
        "references, capabilities, fixed assets, asset components, locations, cost centers, naming systems, value "
        "sets) and write a commented target description for `eris certify --config`: the installation's placeholder "
        "values and namespace keys its data show, each with the read it came from; values seen twice with different "
        "answers, as a conflict for you to decide (also on stderr); the [data] entries, commented; and what must "
        "still be filled in (tokens, the receiver, features). Exit 0 written; 2 the target could not be read or the "
        "file exists.",
    )
    init.add_argument("--target", required=True, metavar="URL", help="base URL of the implementation, without /v1")
    init.add_argument("--token", help="Bearer token sent with the reads (default $ERIS_TOKEN; not written)")
    init.add_argument("--output", "-o", default="target.toml", metavar="FILE", help="default target.toml")
    init.add_argument("--force", action="store_true", help="replace FILE if it exists")
    add_answer_bounds(init)
    init.set_defaults(run=run_init)


def run_init(args: argparse.Namespace) -> int:
    from conformance.discovery.init_description import target_toml
    from conformance.discovery.published import TargetStoppedAnswering, discover

    parts = urlsplit(args.target)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return fail(f"--target must be an absolute http(s) URL, not {args.target!r}")
    output = Path(args.output)
    if output.exists() and not args.force:
        return fail(f"{output} exists: choose another --output, or --force to replace it")
    base_url = args.target.rstrip("/").removesuffix("/v1")
    try:
        found = discover(
            base_url,
            token=args.token or os.environ.get("ERIS_TOKEN"),
            timeout=args.request_timeout,
            max_answer_size=args.max_answer_size,
        )
    except TargetStoppedAnswering as error:  # each read left would wait the request timeout
        return fail(f"nothing could be discovered at {base_url}, which does not answer: {error}")
    if not found.values and not found.namespaces and not found.conflicts:
        why = "; ".join(found.problems) or "it publishes nothing the contract lets eris recognise"
        return fail(f"nothing could be discovered at {base_url}: {why}")
    try:
        output.write_text(target_toml(base_url, found), encoding="utf-8")
    except OSError as error:
        return fail(f"cannot write {output}: {error.strerror}")
    for conflict in found.conflicts:
        print(f"eris init: conflict, not decided: {conflict.describe()}", file=sys.stderr)
    print(
        f"eris init: wrote {output} ({len(found.values)} placeholder values and {len(found.namespaces)} namespaces "
        f"discovered{f', {len(found.conflicts)} conflicts to decide' if found.conflicts else ''}); add the tokens, "
        "then: eris certify --config " + str(output),
        file=sys.stderr,
    )
    return EXIT_OK
