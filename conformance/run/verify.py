"""`eris verify DIR`: re-derive a certification's statuses offline from its recorded traffic, and say whether they
are the ones it claims.

The run's suite runs again, with the recorded seeds and options, against a replay of traffic.har
(conformance/verification/replay.py); the report keys the run recorded open the replayed deliveries. Exit 0: every
status and the verdict re-derived as recorded; 1: a difference (named: a changed file, another suite or contract,
the first requirement whose status differs); 2: the re-check could not be made (no certification in DIR, a corrupt
file)."""

from __future__ import annotations

import io
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from conformance.client.ports import free_port
from conformance.configuration.settings import suite_version
from conformance.run.certify import CertifyOptions, run_certify
from conformance.verification import (
    KEYS_FILE,
    RECORDING_FORMAT,
    STORE_READS_FILE,
    contract_digest,
    file_digest,
    suite_code_digest,
)
from conformance.verification.comparison import Comparison, compare
from conformance.verification.recorded import RecordingError, read_keys, read_recording
from conformance.verification.replay import Replay
from conformance.verification.replayed_clock import ReplayedClockPlugin, recorded_start
from conformance.verification.replayed_keys import ReplayedKeyPairs, ReplayedKeysPlugin
from conformance.verification.replayed_stores import (
    RecordedStores,
    ReplayedStores,
    ReplayedStoresPlugin,
    read_store_reads,
)

__all__ = ["EXIT_DIFFERENT", "EXIT_UNUSABLE", "EXIT_VERIFIED", "VerifyOptions", "run_verify"]

EXIT_VERIFIED, EXIT_DIFFERENT, EXIT_UNUSABLE = 0, 1, 2


class VerifyError(Exception):
    """The re-check cannot be made; the message is one line."""


@dataclass
class VerifyOptions:
    directory: Path
    with_installed_suite: bool = False
    """Re-derive even when the certification was made by another suite or on another contract."""
    out: TextIO = field(default_factory=lambda: sys.stdout)
    report_dir: Path | None = None
    """Where the re-derived certification's outputs go (None: a temporary folder): they show why a status differs."""


def run_verify(options: VerifyOptions) -> int:
    """Re-check the certification in `options.directory`; print the statuses side by side; return the exit code."""
    try:
        return _verify(options)
    except VerifyError as error:
        print(f"eris: {error}", file=sys.stderr)
        return EXIT_UNUSABLE


def _verify(options: VerifyOptions) -> int:
    folder = options.directory
    document = _certification(folder)
    recording = document["recording"]
    out = options.out
    provenance = _other_suite_or_contract(recording)
    for line in provenance:
        print(f"eris verify: {line}", file=out)
    if provenance and not options.with_installed_suite:
        print(
            "eris verify: DIFFERENT: not re-derived (--with-installed-suite re-derives with the installed suite)",
            file=out,
        )
        return EXIT_DIFFERENT
    changed = _changed_files(folder, recording)
    stores = _recorded_stores(folder, recording)
    changed += stores.altered
    for line in changed:
        print(f"eris verify: {line}", file=out)
    rederived, replay = _rederive(folder, document, stores, options.report_dir)
    comparison = compare(document, rederived)
    _print_rows(comparison, out)
    if replay.misses:
        shown = "; ".join(replay.misses[:3])
        print(f"eris verify: {len(replay.misses)} requests found no recorded answer (first: {shown})", file=out)
    first = comparison.first_difference()
    if first is None and not changed:
        print(
            f"eris verify: VERIFIED: every status and the verdict ({comparison.rederived_verdict}) re-derived", file=out
        )
        return EXIT_VERIFIED
    print(f"eris verify: DIFFERENT: {'; '.join([*changed, first] if first else changed)}", file=out)
    return EXIT_DIFFERENT


def _certification(folder: Path) -> dict[str, Any]:
    if not folder.is_dir():
        raise VerifyError(f"{folder} is not a folder of a certification (eris certify --report-dir)")
    path = folder / "certification.json"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise VerifyError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise VerifyError(f"{path} is not JSON: {error}") from None
    recording = document.get("recording") if isinstance(document, dict) else None
    if not isinstance(recording, dict) or recording.get("format") != RECORDING_FORMAT:
        raise VerifyError(f"{path} records nothing to re-check it by (made before eris verify, or edited)")
    for name in ("seed", "names_seed", "options", "target", "traffic", "suite"):
        if name not in recording:
            raise VerifyError(f"{path}: its recording has no {name}")
    if not isinstance(document.get("target"), dict) or not isinstance(document["target"].get("base_url"), str):
        raise VerifyError(f"{path} names no target base_url")
    return document


def _other_suite_or_contract(recording: dict[str, Any]) -> list[str]:
    suite = recording.get("suite") or {}
    found = []
    if suite.get("version") != suite_version():
        found.append(f"made by eris {suite.get('version')}; this is eris {suite_version()}")
    elif suite.get("code_digest") != suite_code_digest():
        found.append(f"made by a suite whose code differs from the installed one (eris {suite_version()})")
    if recording.get("contract_digest") != contract_digest():
        found.append("made on contract data (schemas/, profiles/) that differ from the installed ones")
    return found


def _changed_files(folder: Path, recording: dict[str, Any]) -> list[str]:
    found = []
    for member, name in (("traffic", "traffic.har"), ("report_keys", KEYS_FILE), ("store_reads", STORE_READS_FILE)):
        recorded = (recording.get(member) or {}).get("digest")
        path = folder / name
        if recorded is None:
            continue
        if not path.is_file():
            raise VerifyError(f"{path} is missing: the certification recorded it")
        if file_digest(path) != recorded:
            found.append(f"{name} is not the file the certification recorded (its digest differs)")
    return found


def _recorded_stores(folder: Path, recording: dict[str, Any]) -> RecordedStores:
    """What the run read from stores; nothing when it recorded no reads (the store tests then find no place)."""
    if not recording.get("store_reads"):
        return RecordedStores({}, {}, [])
    try:
        return read_store_reads(folder / STORE_READS_FILE)
    except RecordingError as error:
        raise VerifyError(str(error)) from None


def _rederive(
    folder: Path, document: dict[str, Any], stores: RecordedStores, report_dir: Path | None
) -> tuple[dict[str, Any], Replay]:
    recording = document["recording"]
    try:
        recorded = read_recording(folder / "traffic.har")
        keys = read_keys(folder / KEYS_FILE)
        by_test, in_order = recorded.keys_by_test(keys)
    except RecordingError as error:
        raise VerifyError(str(error)) from None
    described = recording["target"] if isinstance(recording["target"], dict) else {}
    inbound = [e.origin for e in recorded.exchanges if e.direction == "inbound"]
    recorded_receiver = inbound[0] if inbound else _receiver_origin(described)
    receiver_port = free_port()
    with tempfile.TemporaryDirectory(prefix="eris-verify-") as temporary:
        work = Path(temporary)
        replay = Replay(
            recorded,
            recorded_target=document["target"]["base_url"],
            recorded_receiver=recorded_receiver,
            receiver_url=f"http://127.0.0.1:{receiver_port}",
        )
        with replay:
            config = work / "target.toml"
            config.write_text(_description(described, replay.base_url, receiver_port, work), encoding="utf-8")
            certify_options = _certify_options(recording, config, work, report_dir or work / "rederived")
            certify_options.plugins = (
                ReplayedKeysPlugin(ReplayedKeyPairs(by_test, in_order)),
                ReplayedStoresPlugin(ReplayedStores(stores)),  # no store is started: the recorded reads answer
            )
            started = recorded_start(document)
            if started is not None:
                certify_options.plugins += (ReplayedClockPlugin(started),)
            run_certify(certify_options)
        try:
            text = (certify_options.report_dir / "certification.json").read_text(encoding="utf-8")
            return json.loads(text), replay
        except (OSError, ValueError):
            raise VerifyError(
                "the suite could not run against the replay: " + _last_line(certify_options.out)
            ) from None


def _receiver_origin(described: dict[str, Any]) -> str:
    receiver = described.get("receiver") or {}
    if receiver.get("public_url"):
        return str(receiver["public_url"]).rstrip("/")
    return f"http://{receiver.get('host', '127.0.0.1')}:{receiver.get('port', 0)}"


def _certify_options(recording: dict[str, Any], config: Path, work: Path, report_dir: Path) -> CertifyOptions:
    given = recording["options"] if isinstance(recording["options"], dict) else {}
    expected = None
    if given.get("expected_failures"):
        expected = work / "expected-failures.txt"
        expected.write_text(given["expected_failures"], encoding="utf-8")
    try:
        return CertifyOptions(
            config=str(config),
            report_dir=report_dir,
            expected_failures=str(expected) if expected else None,
            delivery_timeout=given.get("delivery_timeout"),
            workers=1,  # the replay tells the running test's requests apart by the test running in this process
            concurrency=int(given.get("concurrency", 1)),
            backoff=float(given.get("backoff", 1.0)),
            keyword=given.get("keyword"),
            requirements=tuple(given.get("requirements") or ()),
            examples=int(given.get("examples", 0)),
            seed=int(recording["seed"]),
            names_seed=str(recording["names_seed"]),
            request_timeout=float(given.get("request_timeout", 30.0)),
            max_answer_size=int(given.get("max_answer_size", 32 * 1024 * 1024)),
            run_timeout=float(given.get("run_timeout", 3600.0)),
            quiet=True,
            out=io.StringIO(),
        )
    except (TypeError, ValueError) as error:
        raise VerifyError(f"the recorded options cannot be used: {error}") from None


def _description(described: dict[str, Any], base_url: str, receiver_port: int, work: Path) -> str:
    """The recorded target description, pointed at the replay and at a receiver of this machine."""
    table = json.loads(json.dumps(described))  # a copy
    table.setdefault("target", {})["base_url"] = base_url
    table["receiver"] = {"host": "127.0.0.1", "port": receiver_port}
    local = (table.get("storage") or {}).get("local")
    if isinstance(local, dict) and "path" in local:
        (work / "local").mkdir(exist_ok=True)
        local["path"] = str(work / "local")
    return _toml(table)


def _toml(table: dict[str, Any], prefix: str = "") -> str:
    """TOML of a description table (strings, numbers, booleans, lists of them, tables)."""
    lines = [f"{key} = {_toml_value(value)}" for key, value in table.items() if not isinstance(value, dict)]
    text = ""
    if lines and prefix:
        text += f"[{prefix}]\n"
    text += "".join(f"{line}\n" for line in lines)
    for key, value in table.items():
        if isinstance(value, dict):
            name = f"{prefix}.{_toml_key(key)}" if prefix else _toml_key(key)
            text += "\n" + (_toml(value, name) or f"[{name}]\n")
    return text


def _toml_key(key: str) -> str:
    return key if key.replace("-", "").replace("_", "").isalnum() else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return json.dumps(str(value))


def _print_rows(comparison: Comparison, out: TextIO) -> None:
    width = max((len(row.requirement) for row in comparison.rows), default=10)
    print(f"{'requirement':<{width}}  {'recorded':<14} re-derived", file=out)
    for row in comparison.rows:
        mark = "" if row.matches else "   <- differs"
        print(f"{row.requirement:<{width}}  {row.recorded:<14} {row.rederived}{mark}", file=out)
    mark = "" if comparison.recorded_verdict == comparison.rederived_verdict else "   <- differs"
    print(f"{'verdict':<{width}}  {comparison.recorded_verdict:<14} {comparison.rederived_verdict}{mark}", file=out)


def _last_line(out: TextIO) -> str:
    text = out.getvalue().strip() if isinstance(out, io.StringIO) else ""
    return text.splitlines()[-1] if text else "see above"
