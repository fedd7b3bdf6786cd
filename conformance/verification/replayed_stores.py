"""The stores of a re-check: each place answers from store-reads.json what the certified run read from it, so that
the store tests judge the recorded artifacts offline, as the replay answers HTTP from traffic.har.

A test asks for its places in the order the run's test did; each gets the folder the run's test got (the names seed
makes the same), the connectionString the run's order named (credentials redacted, as in traffic.har), and reads
the recorded reads one after the other, the last again after them. A file whose bytes are not those its digest
names is set aside as altered, and the re-check says so."""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.generation.made_up import made_up_hex, running_test
from conformance.stores import StoreUnavailable
from conformance.stores.places import STORES_OF_RUN, Place
from conformance.stores.record import STORE_READS_FORMAT, digest_of
from conformance.verification.recorded import RecordingError

__all__ = ["RecordedStores", "ReplayedStores", "ReplayedStoresPlugin", "read_store_reads"]


@dataclass(frozen=True)
class RecordedStores:
    """store-reads.json read back: per (test, storage type) what its places were, in order, and the files' bytes."""

    events: dict[tuple[str, str], list[dict[str, Any]]]
    contents: dict[str, bytes]
    altered: list[str]
    """The files whose bytes are not those their digest names, in words (empty: none)."""


def read_store_reads(path: Path) -> RecordedStores:
    """store-reads.json read whole; an empty record when the run read no store. RecordingError when it is none."""
    if not path.is_file():
        return RecordedStores({}, {}, [])
    try:
        document = json.loads(path.read_bytes())
        if document.get("format") != STORE_READS_FORMAT:
            raise ValueError(f"its format is {document.get('format')!r}, not {STORE_READS_FORMAT}")
        events: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for entry in document["stores"]:
            events[str(entry["test"]), str(entry["type"])].append(entry)
        contents = {str(digest): base64.b64decode(text, validate=True) for digest, text in document["files"].items()}
    except OSError as error:
        raise RecordingError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
        raise RecordingError(
            f"{path} is not a store-reads.json of eris certify: {type(error).__name__} {error}"
        ) from None
    altered = [
        f"{path.name}: the bytes of {_named(document, digest)} are not those its digest names"
        for digest, data in contents.items()
        if digest_of(data) != digest
    ]
    return RecordedStores(dict(events), contents, altered)


def _named(document: dict[str, Any], digest: str) -> str:
    for entry in document["stores"]:
        for read in entry.get("reads", []):
            for name, found in read.items():
                if found == digest:
                    return f"{entry['where']}{name}"
    return digest


class ReplayedStores:
    """A PlaceSource (conformance.stores.places) answering from a RecordedStores."""

    def __init__(self, recorded: RecordedStores) -> None:
        self._left = {key: deque(entries) for key, entries in recorded.events.items()}
        self._contents = recorded.contents
        self._taking = threading.Lock()

    def prepare(self, storage_types: list[str]) -> None:
        """Nothing to start: the reads are recorded."""

    def close(self) -> None:
        """Nothing to stop."""

    def place(self, storage_type: str) -> Place:
        """The running test's next recorded place of `storage_type`; StoreUnavailable where the run had no store, or
        where the recording holds no place of this test (the re-check then differs, and says why)."""
        with self._taking:
            left = self._left.get((running_test(), storage_type))
            entry = left.popleft() if left else None
        if entry is None:
            raise StoreUnavailable(f"the recording holds no {storage_type} place of this test (store-reads.json)")
        if "reason" in entry:
            raise StoreUnavailable(str(entry["reason"]))
        folder = f"eris-{made_up_hex(12)}"  # drawn as the run drew it, so that the test's later names are the run's
        if folder != entry["folder"]:
            raise StoreUnavailable(
                f"the re-check names the {storage_type} folder {folder}, the recording {entry['folder']} (names seed)"
            )
        reads = deque(
            {name: self._contents.get(digest, b"") for name, digest in read.items()} for read in entry["reads"]
        )
        return Place(str(entry["connection_string"]), str(entry["where"]), _one_after_another(reads))


def _one_after_another(reads: deque[dict[str, bytes]]) -> Any:
    last: list[dict[str, bytes]] = [{}]

    def files() -> dict[str, bytes]:
        if reads:
            last[0] = reads.popleft()
        return dict(last[0])

    return files


class ReplayedStoresPlugin:
    """A pytest plugin of the re-check's run: its stores are the recorded ones."""

    def __init__(self, stores: ReplayedStores) -> None:
        self.stores = stores

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[STORES_OF_RUN] = self.stores
