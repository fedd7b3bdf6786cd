"""The integrator's commands: `eris keygen`, `eris receive`, `eris decrypt`, `eris report`."""

from __future__ import annotations

import argparse
import base64
import binascii
import functools
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from conformance.cli.common import fail, port, positive_float, positive_int
from profiles.limits import LIMITS
from schemas import load_schemas

__all__ = ["add_commands"]

ENV_TOKEN = "ERIS_TOKEN"
ENV_CONNECTION_STRING = "ERIS_CONNECTION_STRING"


def add_commands(commands: argparse._SubParsersAction) -> None:
    keygen = commands.add_parser(
        "keygen",
        help="make a fresh RSA key pair for one report order",
        description="Write an RSA private key (PKCS#8 PEM, owner-readable only) and its public key "
        "(BEGIN PUBLIC KEY, for publicKeyPem). The contract asks for a new pair for each order.",
    )
    keygen.add_argument("--private-key", default="report-key.pem", metavar="FILE", help="default report-key.pem")
    keygen.add_argument("--public-key", default="report-key.pub.pem", metavar="FILE", help="default report-key.pub.pem")
    keygen.add_argument(
        "--bits",
        type=positive_int,
        default=LIMITS.recommended_rsa_bits,
        help=f"RSA modulus size (default {LIMITS.recommended_rsa_bits}, the recommended)",
    )
    keygen.add_argument(
        "--application",
        metavar="DIR",
        help="make instead the application key pair that signs the tokens `eris serve --keys DIR` accepts and "
        "`eris token --keys DIR` mints (never overwritten)",
    )
    keygen.set_defaults(run=run_keygen)

    receive = commands.add_parser(
        "receive",
        help="receive report deliveries and notifications on a local HTTP endpoint",
        description="Listen for POSTed report artifacts (at /reports/<name>, or below it) and Notifications (at "
        "/notifications, or a JSON object POSTed at any other path), save the artifacts in a folder and print each "
        "arrival, until Ctrl-C.",
    )
    receive.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    receive.add_argument("--port", type=port, default=8081, help="port; 0 picks a free one (default 8081)")
    receive.add_argument("--dir", default="deliveries", help="folder for received artifacts (default deliveries)")
    receive.add_argument("--public-url", help="the URL the service reaches this receiver by (default http://host:port)")
    receive.set_defaults(run=run_receive)

    decrypt = commands.add_parser(
        "decrypt",
        help="decrypt a delivered report artifact (RSA-OAEP SHA-256 + AES-256-GCM, tag checked)",
        description="Open the session key with the order's private key, decrypt the artifact and check its GCM tag. "
        "The output file appears only if the tag matches. Exit 0 decrypted, 1 rejected (tampered, truncated, "
        "or another order's key), 2 bad input.",
    )
    decrypt.add_argument("artifact", help="the delivered artifact file")
    decrypt.add_argument("--private-key", required=True, metavar="FILE", help="the order's private key (PEM)")
    decrypt.add_argument(
        "--session-key", required=True, metavar="BASE64|@FILE", help="encryptedSessionKey of the 202 answer"
    )
    decrypt.add_argument("--decompress", action="store_true", help="the order asked for compression: gunzip too")
    decrypt.add_argument("--out", metavar="FILE", help="output file (default: the artifact's name without .enc)")
    decrypt.set_defaults(run=run_decrypt)

    report = commands.add_parser(
        "report",
        help="order a report, receive it, decrypt it, verify it and save it",
        description="Generate a key pair, POST /v1/reports with the local receiver as the http storage, wait for "
        "the delivery, decrypt it (tag checked) and save the report file.",
    )
    report.add_argument("--target", metavar="URL", help="base URL of the service, without /v1")
    report.add_argument("--config", metavar="FILE.toml", help="target description ([target] base_url and token)")
    report.add_argument("--token", help=f"Bearer token (default: the config's, or ${ENV_TOKEN})")
    report.add_argument("--report-id", default="cost-calculation", help="default cost-calculation")
    report.add_argument("--group-id")
    report.add_argument("--company", required=True, metavar="NIP", help="parameter CompanyTaxNo")
    report.add_argument("--year", required=True, type=int, help="parameter Year")
    report.add_argument("--month", required=True, type=int, help=f"parameter Month, {LIMITS.month}")
    formats = load_schemas()["ReportOrder"]["properties"]["format"]["enum"]
    report.add_argument("--format", choices=formats, default="parquet")
    report.add_argument("--compression", action="store_true", help="ask for compression before encryption")
    report.add_argument("--run-at", metavar="ISO", help="runAt in UTC (default now)")
    report.add_argument(
        "--out", metavar="FILE", help="where to save the report (default <reportId>-<year>-<month>.<format>)"
    )
    report.add_argument(
        "--timeout", type=positive_float, default=300.0, help="seconds to wait for the delivery after runAt"
    )
    report.add_argument(
        "--storage",
        choices=("http", "blob", "smb"),
        default="http",
        help="http (default): a local receiver takes the delivery; blob, smb: the service writes into the store "
        "--connection-string names, and eris fetches the artifact from there",
    )
    report.add_argument(
        "--connection-string",
        metavar="STRING|@FILE",
        help=f"storage.connectionString for blob or smb, in eris' form (docs/reports.md); @FILE reads it from a file, "
        f"${ENV_CONNECTION_STRING} also gives it (keeps the credential out of the process list). It must also "
        "allow eris to list and read the folder",
    )
    report.add_argument("--receiver-host", default="127.0.0.1")
    report.add_argument("--receiver-port", type=port, default=0, help="0: any free port")
    report.add_argument("--public-url", help="the URL the service reaches the receiver by (default http://host:port)")
    report.set_defaults(run=run_report)


def _progress(message: str) -> None:
    print(f"eris report: {message}", file=sys.stderr, flush=True)


def run_keygen(args: argparse.Namespace) -> int:
    from reports.keys import generate_key_pair, write_key_pair

    if args.application:
        return _application_keygen(Path(args.application))
    if args.bits < 2048:
        return fail(
            f"--bits {args.bits} is too small; use {LIMITS.recommended_rsa_bits} (the contract's recommendation)"
        )
    try:
        write_key_pair(generate_key_pair(args.bits), Path(args.private_key), Path(args.public_key))
    except OSError as error:
        return fail(str(error))
    print(f"private key: {args.private_key} (keep it; it opens this order's session key)")
    print(f"public key:  {args.public_key} (send it as publicKeyPem; make a new pair for the next order)")
    return 0


def _application_keygen(directory: Path) -> int:
    from reference_impl.tokens import ApplicationKeys

    if (directory / ApplicationKeys.PRIVATE_FILE).exists():
        return fail(f"{directory} already holds an application key pair: it is never overwritten")
    try:
        ApplicationKeys.generate().save(directory)
    except OSError as error:
        return fail(f"cannot write the application key pair into {directory}: {error.strerror or error}")
    print(f"application key pair: {directory} (eris serve --keys {directory}; eris token --keys {directory})")
    return 0


def run_receive(args: argparse.Namespace) -> int:
    from reports.receiver import Receiver

    receiver = Receiver(args.dir, host=args.host, port=args.port, public_url=args.public_url)
    try:
        receiver.start()
    except OSError as error:
        return fail(f"cannot listen on {args.host}:{args.port}: {error}")
    print(
        f"eris receive: artifacts at {receiver.url}/reports/<name> (saved in {args.dir}), "
        f"notifications at {receiver.notification_url}; Ctrl-C stops",
        flush=True,
    )
    seen_deliveries = seen_notifications = 0
    try:
        while True:
            time.sleep(0.2)
            deliveries, notifications = receiver.deliveries(), receiver.notifications()
            for delivery in deliveries[seen_deliveries:]:
                print(
                    f"delivery {delivery.name}: {delivery.size:,} bytes -> {delivery.path} "
                    f"(sha256 {delivery.sha256[:16]}...)",
                    flush=True,
                )
            for notification in notifications[seen_notifications:]:
                print(f"notification: {_describe_notification(notification)}", flush=True)
            seen_deliveries, seen_notifications = len(deliveries), len(notifications)
    except KeyboardInterrupt:
        return 0
    finally:
        receiver.stop()


def _describe_notification(notification: dict[str, Any]) -> str:
    operation = notification.get("operation", {})
    codes = (
        [c.get("code") for c in operation.get("coding", []) if isinstance(c, dict)]
        if isinstance(operation, dict)
        else []
    )
    reference = notification.get("reference", {})
    identifier = reference.get("identifier", {}) if isinstance(reference, dict) else {}
    return (
        f"{'/'.join(map(str, codes)) or '?'} {reference.get('type', '?') if isinstance(reference, dict) else '?'} "
        f"{identifier.get('system', '?')}|{identifier.get('value', '?')}"
    )


def _session_key_argument(value: str) -> bytes:
    text = Path(value[1:]).read_text(encoding="ascii").strip() if value.startswith("@") else value.strip()
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("--session-key is not base64 (give encryptedSessionKey of the 202 answer, or @FILE)") from None


def run_decrypt(args: argparse.Namespace) -> int:
    from reports.compression import gunzip_chunks
    from reports.crypto import ArtifactRejected, decrypt_artifact, open_session_key
    from reports.keys import load_private_key

    artifact = Path(args.artifact)
    if not artifact.is_file():
        return fail(f"{artifact}: no such file")
    out = Path(args.out) if args.out else _decrypted_name(artifact, args.decompress)
    try:
        sealed = _session_key_argument(args.session_key)
        private_key = load_private_key(Path(args.private_key))
    except (OSError, ValueError) as error:
        return fail(str(error))
    # SIGTERM as an exit, so that the temporary file of unverified plaintext is removed (a SIGKILL's is removed
    # by the next run)
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        session = open_session_key(private_key, sealed)
        written = decrypt_artifact(artifact, session, out, transform=gunzip_chunks if args.decompress else None)
    except ArtifactRejected as rejected:
        return fail(f"rejected: {rejected}", 1)
    except ValueError as error:  # not gzip although --decompress
        return fail(str(error), 1)
    except OSError as error:
        return fail(str(error))
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(f"decrypted {artifact} -> {out} ({written:,} bytes; GCM tag verified)")
    return 0


def _decrypted_name(artifact: Path, decompress: bool) -> Path:
    name = artifact.name.removesuffix(".enc")
    if decompress:
        name = name.removesuffix(".gz")
    if name == artifact.name:
        name += ".decrypted"
    return artifact.with_name(name)


def _target(args: argparse.Namespace) -> tuple[str, str | None]:
    from conformance.configuration.target import load_target

    target = load_target(args.config, base_url=args.target, token=args.token)
    return target.base_url, target.token or os.environ.get(ENV_TOKEN)


def run_report(args: argparse.Namespace) -> int:
    from reports.client import OrderRefused
    from reports.crypto import ArtifactRejected
    from reports.delivery_base import StorageRefused
    from reports.integrator import ReceiverDelivery, StoreDelivery, obtain_report, utc_now_text
    from reports.receiver import Receiver
    from reports.store_fetch import store_reader

    if args.month not in LIMITS.month:
        return fail(f"--month must be from {LIMITS.month}, not {args.month}")
    try:
        base_url, token = _target(args)
    except ValueError as error:  # TargetError: unreadable description, no base URL
        return fail(str(error))
    run_at = args.run_at or utc_now_text()
    order: dict[str, Any] = {
        "reportId": args.report_id,
        "format": args.format,
        "runAt": run_at,
        "compression": args.compression,
        "parameters": {"CompanyTaxNo": args.company, "Year": str(args.year), "Month": str(args.month)},
    }
    if args.group_id:
        order["groupId"] = args.group_id
    out = Path(args.out or f"{args.report_id}-{args.year}-{args.month:02d}.{args.format}")
    timeout = args.timeout + max(0.0, _seconds_until(run_at))
    connection_string = ""
    if args.storage != "http":
        try:
            connection_string = _connection_string(args.connection_string)
            store_reader(args.storage, connection_string).close()  # a string eris cannot read: refused before ordering
        except (ValueError, StorageRefused) as refused:
            return fail(f"--connection-string: {refused}")
    obtain = functools.partial(
        obtain_report, base_url=base_url, token=token, order=order, output=out, timeout=timeout, progress=_progress
    )
    try:
        if args.storage == "http":
            with Receiver(host=args.receiver_host, port=args.receiver_port, public_url=args.public_url) as receiver:
                outcome = obtain(delivery=ReceiverDelivery(receiver))
        else:
            import tempfile  # here: eris validate, which imports this module's parser, starts without it

            with tempfile.TemporaryDirectory(prefix="eris-report-") as workdir:
                delivery = StoreDelivery(args.storage, connection_string, workdir=Path(workdir))
                try:
                    outcome = obtain(delivery=delivery)
                finally:
                    delivery.close()
    except OrderRefused as refused:
        return fail(f"the order was refused: {refused}", 1)
    except ArtifactRejected as rejected:
        return fail(f"the delivered artifact was rejected: {rejected}", 1)
    except TimeoutError as error:
        return fail(str(error), 1)
    except httpx.HTTPError as error:
        return fail(f"cannot reach {base_url}: {error or type(error).__name__}")
    except (OSError, ValueError) as error:
        return fail(str(error), 1 if isinstance(error, ValueError) else 2)
    print(
        f"saved {outcome.path}: {outcome.rows:,} rows, columns {', '.join(outcome.columns)} "
        f"(executionId {outcome.execution_id}; artifact {outcome.artifact_bytes:,} bytes, tag verified)"
    )
    return 0


def _connection_string(given: str | None) -> str:
    """--connection-string's value, the file it names with @, or $ERIS_CONNECTION_STRING; ValueError if none."""
    if given is None:
        given = os.environ.get(ENV_CONNECTION_STRING)
    if not given:
        raise ValueError(f"--storage blob or smb needs --connection-string (or ${ENV_CONNECTION_STRING})")
    if given.startswith("@"):
        try:
            return Path(given[1:]).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ValueError(f"--connection-string {given}: {error.strerror}") from None
    return given


def _seconds_until(run_at: str) -> float:
    from profiles.report_rules import parse_datetime

    try:
        return parse_datetime(run_at).timestamp() - time.time()
    except ValueError:
        return 0.0
