"""The contract's Limits table, read from `limits.json`: the one place of each limit's value.

`LIMITS` is the shipped table. A contract loaded from another data directory carries its own
(`Contract.limits`), so that a changed copy of the data changes what the rules check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LIMITS", "LIMITS_FILE", "Bounds", "Limit", "Limits", "LimitsError", "load_limits"]

LIMITS_FILE = Path(__file__).with_name("limits.json")


class LimitsError(ValueError):
    """limits.json lacks a row, has one no consumer reads, or a value of the wrong kind."""


@dataclass(frozen=True)
class Bounds:
    """An inclusive range of whole numbers, as the contract writes it ("1 to 12")."""

    minimum: int
    maximum: int

    def __contains__(self, number: object) -> bool:
        return isinstance(number, int) and not isinstance(number, bool) and self.minimum <= number <= self.maximum

    def __str__(self) -> str:
        return f"{self.minimum} to {self.maximum}"


@dataclass(frozen=True)
class Limit:
    """One row of the table with the contract's words for it."""

    name: str
    value: int | bool | Bounds
    applies_to: str
    source: str
    requirements: tuple[str, ...]
    published_in: tuple[str, ...]
    """Places of schemas/ (file#pointer) that repeat the value for tools reading only the schemas."""


@dataclass(frozen=True)
class Limits:
    count_default: int
    offset_default: int
    aes_key_bytes: int
    nonce_bytes: int
    session_key_bytes: int
    tag_bytes: int
    month: Bounds
    compression_default: bool
    recommended_rsa_bits: int
    rows: Mapping[str, Limit] = field(repr=False, compare=False)

    def bounds(self, name: str) -> Bounds:
        """The range of the row `name`; LimitsError when there is none."""
        row = self.rows.get(name)
        if row is None or not isinstance(row.value, Bounds):
            ranges = ", ".join(sorted(n for n, r in self.rows.items() if isinstance(r.value, Bounds)))
            raise LimitsError(f"limits.json has no range {name!r} (ranges: {ranges})")
        return row.value


# The kind of each row's value; a row missing here, or here and not in the file, is an error: a value
# nobody reads would be a second, silent version of the contract.
_KINDS: dict[str, type] = {
    "count-default": int,
    "offset-default": int,
    "aes-key-bytes": int,
    "nonce-bytes": int,
    "session-key-bytes": int,
    "tag-bytes": int,
    "month": Bounds,
    "compression-default": bool,
    "recommended-rsa-bits": int,
}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _value(name: str, raw: Any, where: Path) -> int | bool | Bounds:
    kind = _KINDS[name]
    if kind is Bounds:
        shaped = isinstance(raw, dict) and set(raw) == {"minimum", "maximum"} and all(map(_whole, raw.values()))
        if shaped and raw["minimum"] <= raw["maximum"]:
            return Bounds(raw["minimum"], raw["maximum"])
        raise LimitsError(f"{where}: {name} must be {{minimum, maximum}}, whole numbers, minimum first; not {raw!r}")
    if kind is bool and isinstance(raw, bool):
        return raw
    if kind is int and _whole(raw):
        return raw
    raise LimitsError(f"{where}: {name} must be {'true or false' if kind is bool else 'a whole number'}, not {raw!r}")


def load_limits(path: Path = LIMITS_FILE) -> Limits:
    with path.open(encoding="utf-8") as handle:
        table = json.load(handle)["limits"]
    missing, unknown = sorted(set(_KINDS) - set(table)), sorted(set(table) - set(_KINDS))
    if missing or unknown:
        raise LimitsError(f"{path}: rows missing: {missing or 'none'}; rows no consumer reads: {unknown or 'none'}")
    rows = {
        name: Limit(
            name=name,
            value=_value(name, row.get("value"), path),
            applies_to=row["appliesTo"],
            source=row["source"],
            requirements=tuple(row.get("requirements", ())),
            published_in=tuple(row.get("publishedIn", ())),
        )
        for name, row in table.items()
    }
    # each value is of its field's kind: _value checked it against _KINDS
    values: dict[str, Any] = {name.replace("-", "_"): row.value for name, row in rows.items()}
    limits = Limits(**values, rows=rows)
    if limits.session_key_bytes != limits.aes_key_bytes + limits.nonce_bytes:
        # the contract: "the first 32 are the AES key, the next 12 the nonce" of the 44
        raise LimitsError(f"{path}: session-key-bytes must be aes-key-bytes + nonce-bytes")
    return limits


LIMITS = load_limits()
