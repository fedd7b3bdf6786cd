"""Value checks of the public-registry identifiers (NIP, REGON, PESEL, EU VAT number).

The contract names these registries but not their formats; the checks are the registries' own
published check-digit rules, so the registry of issue codes (issue-codes.json) makes a failure a
warning, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_EU_VAT = re.compile(
    r"^(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI)[0-9A-Z+*]{2,12}$"
)


def _mod11_check_digit(value: str, weights: tuple[int, ...]) -> bool:
    """REGON's rule: the weighted sum modulo 11 (10 counting as 0) is the last digit."""
    checksum = sum(int(d) * w for d, w in zip(value, weights, strict=False)) % 11
    return checksum % 10 == int(value[-1])


def is_nip(value: str) -> bool:
    value = value.replace("-", "")
    if len(value) != 10 or not (value.isascii() and value.isdigit()):
        return False
    d = [ord(char) - 48 for char in value]
    checksum = (6 * d[0] + 5 * d[1] + 7 * d[2] + 2 * d[3] + 3 * d[4] + 4 * d[5] + 5 * d[6] + 6 * d[7] + 7 * d[8]) % 11
    return checksum != 10 and checksum == d[9]


def is_regon(value: str) -> bool:
    if not (value.isascii() and value.isdigit()) or len(value) not in (9, 14):
        return False
    weights = (8, 9, 2, 3, 4, 5, 6, 7) if len(value) == 9 else (2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8)
    return _mod11_check_digit(value, weights)


def is_pesel(value: str) -> bool:
    if len(value) != 11 or not (value.isascii() and value.isdigit()):
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
    checksum = sum(int(d) * w for d, w in zip(value, weights, strict=False))
    return (10 - checksum % 10) % 10 == int(value[10])


def is_eu_vat(value: str) -> bool:
    return bool(_EU_VAT.match(value.replace(" ", "").upper()))


@lru_cache(maxsize=8192)
def conforms(format_name: str, value: str) -> bool:
    """Whether `value` passes the check of `format_name`; cached, as payloads repeat the same numbers
    (the owner's NIP on every resource)."""
    return FORMATS[format_name][0](value)


FORMATS: dict[str, tuple[Callable[[str], bool], str]] = {
    "nip": (is_nip, "10 digits with a valid check digit"),
    "regon": (is_regon, "9 or 14 digits with a valid check digit"),
    "pesel": (is_pesel, "11 digits with a valid check digit"),
    "eu-vat": (is_eu_vat, "an EU member-state prefix followed by 2 to 12 characters"),
}
