"""The conformance target description (docs/certify-your-implementation.md): where the implementation is, its
tokens, the installation's placeholder values, where the suite receives deliveries, and what the target does."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["DATA_ENTRIES", "STORE_TYPES", "ReceiverSettings", "Target", "TargetError", "load_target"]


class TargetError(ValueError):
    """The target description cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class ReceiverSettings:
    host: str = "127.0.0.1"
    port: int = 0
    """0: any free port (notifications need a fixed one, given to the target)."""
    public_url: str = ""
    """How the target reaches the receiver; "" means http://host:port."""


@dataclass(frozen=True)
class Target:
    base_url: str
    """Without /v1, without a trailing slash."""
    token: str | None = None
    token_without_report_right: str | None = None
    config_path: Path | None = None
    """The description file, read again for its [installation] table (None: the shipped defaults)."""
    receiver: ReceiverSettings = field(default_factory=ReceiverSettings)
    notifications: bool = False
    delivery_timeout: float = 60.0
    """Seconds a report delivery or a notification is waited for, after runAt."""
    storage: tuple[str, ...] = ()
    """The storage types besides http the target delivers reports to ([features] storage): blob, local, smb."""
    stores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The [storage.<type>] tables: how the suite reaches a store the target writes into, and the form of the
    order's connectionString (conformance/stores/places.py reads them)."""
    data: dict[str, str] = field(default_factory=dict)
    """The [data] table: test data the vendor names for what no read of the contract reveals (DATA_ENTRIES)."""

    def named_identifier(self, entry: str) -> tuple[str, str] | None:
        """(system, value) of the identifier a [data] entry names; None without the entry."""
        named = self.data.get(entry)
        if named is None:
            return None
        system, _, value = named.partition("|")
        return system, value

    def entry_text(self, entry: str) -> str:
        """The [data] entry as the description gives it (`[data] entry = "system|value"`): a message about what
        the target answered for it names it so, and a vendor tells a typo of theirs from a defect of the target."""
        return f"[data] {entry} = {json.dumps(self.data.get(entry, ''))}"

    @property
    def features(self) -> tuple[str, ...]:
        """The optional features (conformance.catalogue.requirements.FEATURES) the target declares."""
        notifications = ("notifications",) if self.notifications else ()
        return notifications + tuple(f"{storage_type}-storage" for storage_type in self.storage)


def load_target(
    path: Path | str | None = None,
    *,
    base_url: str | None = None,
    token: str | None = None,
    delivery_timeout: float | None = None,
) -> Target:
    """The target from a description file and/or options (options win). TargetError when no base URL
    is given or a value has the wrong type."""
    table: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as file:
                table = tomllib.load(file)
        except OSError as error:
            raise TargetError(f"cannot read the target description {path}: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise TargetError(f"{path} is not TOML: {error}") from None
    described = _table(table, "target", path)
    receiver = _table(table, "receiver", path)
    features = _table(table, "features", path)
    base = base_url or described.get("base_url")
    if not base:
        raise TargetError("no target: give --target URL, or a description file with [target] base_url")
    parts = urlsplit(str(base))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetError(f"the target base URL must be an absolute http(s) URL, not {base!r}")
    timeout = delivery_timeout if delivery_timeout is not None else described.get("delivery_timeout", 60.0)
    return Target(
        base_url=str(base).rstrip("/").removesuffix("/v1"),
        token=token or _string(described, "token", path),
        token_without_report_right=_string(described, "token_without_report_right", path),
        config_path=Path(path) if path is not None else None,
        receiver=ReceiverSettings(
            host=str(receiver.get("host", "127.0.0.1")),
            port=int(receiver.get("port", 0)),
            public_url=str(receiver.get("public_url", "")).rstrip("/"),
        ),
        notifications=bool(features.get("notifications", False)),
        delivery_timeout=float(timeout),
        storage=_storage_types(features.get("storage", []), path),
        stores={name: _table(_table(table, "storage", path), name, path) for name in STORE_TYPES},
        data=_data(_table(table, "data", path), path),
    )


DATA_ENTRIES: dict[str, str] = {
    "warehouse_document": "identifier (system|value) of a warehouse document (profile WarehouseDocument) whose "
    "status PATCH /v1/document-references may change; needed when GET /v1/document-references does not list "
    "warehouse documents (the contract's GET answers the HR inbox)",
    "fixed_asset_document_without_content": "identifier (system|value) of a fixed-asset document that has no "
    "content, for the 404 of GET /v1/fixed-asset-documents/$document-content; needed when no document the target "
    "lists answers that 404",
}
"""The entries a [data] table may hold -> what each names. The suite reads these where no read of the contract
shows such data; `eris init` writes them commented out."""


def _data(table: dict[str, Any], path: Path | str | None) -> dict[str, str]:
    unknown = sorted(set(table) - set(DATA_ENTRIES))
    if unknown:
        raise TargetError(f"{path}: [data] names {unknown}; known entries: {', '.join(DATA_ENTRIES)}")
    data = {}
    for name in table:
        value = _string(table, name, path)
        if value is None:
            continue
        system, bar, identifier_value = value.partition("|")
        if not (system and bar and identifier_value):
            raise TargetError(f"{path}: [data] {name} = {value!r} is not an identifier system|value")
        data[name] = value
    return data


STORE_TYPES = ("blob", "local", "smb")
"""Storage types a target may declare besides http, which every target delivers to (the suite's end-to-end orders
use it)."""


def _storage_types(declared: Any, path: Path | str | None) -> tuple[str, ...]:
    if not isinstance(declared, list) or not all(isinstance(item, str) for item in declared):
        raise TargetError(f'{path}: [features] storage must be a list of storage types, for example ["blob", "smb"]')
    unknown = sorted(set(declared) - {*STORE_TYPES, "http"})
    if unknown:
        raise TargetError(
            f"{path}: [features] storage names {unknown}: the contract's types are blob, http, local, smb"
        )
    return tuple(storage_type for storage_type in STORE_TYPES if storage_type in declared)


def _table(document: dict[str, Any], name: str, path: Path | str | None) -> dict[str, Any]:
    value = document.get(name, {})
    if not isinstance(value, dict):
        raise TargetError(f"{path}: [{name}] must be a table")
    return value


def _string(table: dict[str, Any], name: str, path: Path | str | None) -> str | None:
    value = table.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TargetError(f"{path}: {name} must be a string")
    return value
