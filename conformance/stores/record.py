"""What the suite read from the stores in a run, kept for `eris verify`: a store is read outside HTTP (the blob and
smb clients, the file system), so traffic.har cannot hold it. Each place the suite ordered into (its store's type,
its folder, what a person reads and what the order named, credentials redacted), or why the store could not be had,
and every read of the place that differs from the one before it: the names and bytes of the files it found.

Where ERIS_STORE_RECORD names a folder (eris certify), each process of the run appends its events there, one JSON
line each (workers are processes of their own); `store_reads` joins them into the document the run publishes as
store-reads.json, each file's bytes once, under their digest."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.client.redaction import redacted_connection_strings
from conformance.generation.made_up import running_test

__all__ = [
    "STORE_READS_FORMAT",
    "STORE_RECORD_VARIABLE",
    "digest_of",
    "record_unavailable",
    "recorded_reads",
    "store_reads",
]

STORE_RECORD_VARIABLE = "ERIS_STORE_RECORD"
STORE_READS_FORMAT = "eris-store-reads/1"
_WRITING = threading.Lock()


def digest_of(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def recorded_reads(
    storage_type: str, folder: str, where: str, connection_string: str, files: Callable[[], dict[str, bytes]]
) -> Callable[[], dict[str, bytes]]:
    """The reads of a new place, recorded when the run records them (else `files` itself)."""
    directory = os.environ.get(STORE_RECORD_VARIABLE)
    if not directory:
        return files
    head = {"test": running_test(), "type": storage_type, "folder": folder}
    described = {"where": _redacted(where), "connection_string": _redacted(connection_string)}
    _append(directory, {**head, "event": "place", **described})
    last: list[dict[str, bytes] | None] = [None]

    def recorded() -> dict[str, bytes]:
        found = files()
        if found != last[0]:  # the polls between two changes say nothing more
            last[0] = found
            read = {name: base64.b64encode(data).decode("ascii") for name, data in sorted(found.items())}
            _append(directory, {**head, "event": "read", "files": read})
        return found

    return recorded


def record_unavailable(storage_type: str, reason: str) -> None:
    """The store of `storage_type` could not be had for the running test (the suite's words, without secrets)."""
    directory = os.environ.get(STORE_RECORD_VARIABLE)
    if directory:
        event = {"test": running_test(), "type": storage_type, "event": "unavailable", "reason": _redacted(reason)}
        _append(directory, event)


def store_reads(directory: Path) -> dict[str, Any] | None:
    """The events the run's processes wrote into `directory`, as the store-reads.json document; None when the run
    read no store. Places are in the order of their tests; each file's bytes once, under its digest."""
    events = [
        json.loads(line)
        for path in sorted(directory.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if not events:
        return None
    places: dict[tuple[str, str], dict[str, Any]] = {}
    stores: list[dict[str, Any]] = []
    contents: dict[str, str] = {}
    for event in events:
        if event["event"] == "unavailable":
            stores.append({key: event[key] for key in ("test", "type", "reason")})
        elif event["event"] == "place":
            entry = {key: event[key] for key in ("test", "type", "folder", "where", "connection_string")}
            places[event["type"], event["folder"]] = {**entry, "reads": []}
            stores.append(places[event["type"], event["folder"]])
        else:
            read = {}
            for name, text in event["files"].items():
                digest = digest_of(base64.b64decode(text))
                contents[digest] = text
                read[name] = digest
            places[event["type"], event["folder"]]["reads"].append(read)
    stores.sort(key=lambda entry: (entry["test"], entry["type"]))  # stable: the processes' files came in any order
    return {
        "format": STORE_READS_FORMAT,
        "note": "what the suite read from the stores it had the target deliver into: each place's reads, in order, "
        "the files of each as name -> digest of their bytes (under `files`)",
        "stores": stores,
        "files": dict(sorted(contents.items())),
    }


def _redacted(text: str) -> str:
    return redacted_connection_strings(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")


def _append(directory: str, event: dict[str, Any]) -> None:
    line = json.dumps(event, ensure_ascii=False) + "\n"
    with _WRITING, open(Path(directory) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as file:
        file.write(line)
