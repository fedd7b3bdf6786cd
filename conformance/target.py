"""The conformance target description (DESIGN.md): where the implementation is, its tokens, the
installation's placeholder values, where the suite receives deliveries, and what the target does."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ReceiverSettings", "Target", "TargetError", "load_target"]


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

    @property
    def features(self) -> tuple[str, ...]:
        """The optional features (conformance.requirements.FEATURES) the target declares."""
        return ("notifications",) if self.notifications else ()


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
    )


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
