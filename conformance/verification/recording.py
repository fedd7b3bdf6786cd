"""What certification.json records for a re-check (its `recording` member), and the sealing of a finished run:
the digests of the suite, the contract and traffic.har, the seeds and options of the run, the target description
without its secrets, and the private keys of the run's report orders (report-keys.pem)."""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.client.redaction import REDACTED, SECRET_NAMES, redacted_token
from conformance.configuration.settings import suite_version
from conformance.stores.record import STORE_RECORD_VARIABLE, store_reads
from conformance.verification.digests import contract_digest, file_digest, suite_code_digest

__all__ = [
    "KEYS_FILE",
    "KEY_RECORD_VARIABLE",
    "RECORDING_FORMAT",
    "STORE_READS_FILE",
    "RunRecord",
    "collected_keys",
    "collected_store_reads",
    "keys_recorded",
    "options_of",
    "redacted_description",
    "seal",
    "store_reads_recorded",
]

RECORDING_FORMAT = "eris-recording/1"
KEYS_FILE = "report-keys.pem"
STORE_READS_FILE = "store-reads.json"
"""Beside traffic.har, not in it: the stores are read outside HTTP (smb, the file system, the blob client), and
traffic.har stays a HAR of the target's exchanges that `eris validate --har` and HAR viewers read as such."""
KEY_RECORD_VARIABLE = "ERIS_KEY_RECORD"
"""The environment variable naming a folder where each process of a run writes the report keys it handed out
(conformance/generation/key_pairs.py): workers are processes of their own."""
KEYS_NOTE = (
    "the private keys of this run's report orders, generated for this run alone and never used again: they open "
    "the recorded deliveries, so that `eris verify` checks them; they open nothing else"
)


@dataclass(frozen=True)
class RunRecord:
    """What the run was: its seeds, its options as given, and the description of its target (secrets removed)."""

    seed: int
    names_seed: str
    options: dict[str, Any]
    target: dict[str, Any]
    keys: list[bytes] = field(default_factory=list)
    """The PEM blocks of the report keys the run handed out (`collected_keys`)."""
    store_reads: dict[str, Any] | None = None
    """What the suite read from stores (conformance/stores/record.py), None when it read none."""
    extra: dict[str, Any] = field(default_factory=dict)


OPTIONS = (
    "examples",
    "keyword",
    "requirements",
    "workers",
    "concurrency",
    "backoff",
    "request_timeout",
    "max_answer_size",
    "run_timeout",
    "delivery_timeout",
    "faults",
    "variants",
)
"""The options of `eris certify` (conformance.run.certify.CertifyOptions) a re-check runs with again."""


def options_of(options: Any) -> dict[str, Any]:
    """The options of a run (a CertifyOptions), as JSON, with the text of its expected failures file."""
    found = {name: getattr(options, name) for name in OPTIONS}
    found = {name: list(value) if isinstance(value, tuple) else value for name, value in found.items()}
    expected = getattr(options, "expected_failures", None)
    found["expected_failures"] = Path(expected).read_text(encoding="utf-8") if expected else None
    return found


def keys_recorded(folder: Path) -> contextlib.AbstractContextManager[Path]:
    """The report keys that this process and its children hand out meanwhile are written into `folder`."""
    return _recorded_into(KEY_RECORD_VARIABLE, folder)


def store_reads_recorded(folder: Path) -> contextlib.AbstractContextManager[Path]:
    """What this process and its children read from stores meanwhile is written into `folder`
    (conformance/stores/record.py); `collected_store_reads` joins it."""
    return _recorded_into(STORE_RECORD_VARIABLE, folder)


def collected_store_reads(folder: Path) -> dict[str, Any] | None:
    return store_reads(folder) if folder.is_dir() else None


@contextlib.contextmanager
def _recorded_into(variable: str, folder: Path) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    before = os.environ.get(variable)
    os.environ[variable] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = before


def redacted_description(path: Path | str | None) -> dict[str, Any]:
    """The target description file as a table, each secret redacted (a JWT keeps its header and claims): what a
    re-check needs to run the suite as the run did, nothing that opens the target. {} without a file."""
    if path is None:
        return {}
    with open(path, "rb") as file:
        return _redacted(tomllib.load(file))


def _redacted(table: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in table.items():
        if isinstance(value, dict):
            kept[name] = _redacted(value)
        elif isinstance(value, str) and value and any(part in name.lower() for part in SECRET_NAMES):
            kept[name] = redacted_token(value) if "token" in name.lower() else REDACTED
        else:
            kept[name] = value
    return kept


def seal(report_dir: Path, record: RunRecord) -> None:
    """Add the `recording` member (and the suite's code digest) to `report_dir`/certification.json, after
    traffic.har is written; write report-keys.pem from the keys the run handed out. OSError when a file cannot be
    read or written."""
    keys = record.keys
    keys_path = report_dir / KEYS_FILE
    if keys:
        _write_whole(keys_path, b"".join(keys), mode=0o644)
    else:
        keys_path.unlink(missing_ok=True)
    reads_path = report_dir / STORE_READS_FILE
    if record.store_reads is not None:
        text = json.dumps(record.store_reads, indent=1, ensure_ascii=False) + "\n"
        _write_whole(reads_path, text.encode("utf-8", "backslashreplace"), mode=None)
    else:
        reads_path.unlink(missing_ok=True)
    path = report_dir / "certification.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    code = suite_code_digest()
    document.setdefault("suite", {})["code_digest"] = code
    document["recording"] = {
        "format": RECORDING_FORMAT,
        "suite": {"version": suite_version(), "code_digest": code},
        "contract_digest": contract_digest(),
        "traffic": {"file": "traffic.har", "digest": file_digest(report_dir / "traffic.har")},
        "report_keys": {"file": KEYS_FILE, "digest": file_digest(keys_path), "note": KEYS_NOTE} if keys else None,
        "store_reads": {"file": STORE_READS_FILE, "digest": file_digest(reads_path)}
        if record.store_reads is not None
        else None,
        "seed": record.seed,
        "names_seed": record.names_seed,
        "options": record.options,
        "target": record.target,
        **record.extra,
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    _write_whole(path, text.encode("utf-8", "backslashreplace"), mode=None)


def collected_keys(folder: Path) -> list[bytes]:
    """The PEM blocks the run's processes wrote into `folder` (`keys_recorded`), each once, in a stable order."""
    if not folder.is_dir():
        return []
    end = b"-----END PRIVATE KEY-----\n"
    blocks = {
        block + end for path in sorted(folder.glob("*.pem")) for block in path.read_bytes().split(end) if block.strip()
    }
    return sorted(blocks)


def _write_whole(path: Path, data: bytes, *, mode: int | None) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(data)
        if mode is not None:
            partial.chmod(mode)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
