"""Value checks of the public-registry identifiers (NIP, REGON, PESEL, EU VAT number).

The contract names these registries but not their formats; the checks are the registries' own
published check-digit rules, so the registry of issue codes (issue-codes.json) makes a failure a
warning, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import mul

_EU_VAT = re.compile(
    r"^(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI)[0-9A-Z+*]{2,12}$"
)


NIP_WEIGHTS = (6, 5, 7, 2, 3, 4, 5, 6, 7)
REGON9_WEIGHTS = (8, 9, 2, 3, 4, 5, 6, 7)
REGON14_WEIGHTS = (2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8)
PESEL_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
_WEIGHT_SUMS: dict[tuple[int, ...], int] = {
    weights: sum(weights) for weights in (NIP_WEIGHTS, REGON9_WEIGHTS, REGON14_WEIGHTS, PESEL_WEIGHTS)
}


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    if len(digits) != len(weights):
        raise ValueError(f"{len(weights)} digits expected, not {len(digits)}")
    return _weighted_codes(digits.encode("ascii"), weights)


def _weighted_codes(codes: bytes, weights: tuple[int, ...]) -> int:
    """The weighted sum of the digits whose ASCII codes `codes` begins with (as many as there are weights): the codes
    weighted, less the weighted code of "0", a third of the cost of int() each."""
    return sum(map(mul, codes, weights)) - 48 * _WEIGHT_SUMS[weights]


def nip_check_digit(nine_digits: str) -> int | None:
    """The check digit of a NIP with these first nine digits; None when none exists (checksum 10)."""
    checksum = _weighted(nine_digits, NIP_WEIGHTS) % 11
    return None if checksum == 10 else checksum


def regon_check_digit(digits: str) -> int:
    """The check digit of a REGON: of a 9-digit one from its first 8 digits, of a 14-digit one from 13."""
    return _weighted(digits, REGON9_WEIGHTS if len(digits) == 8 else REGON14_WEIGHTS) % 11 % 10


def pesel_check_digit(ten_digits: str) -> int:
    """The check digit of a PESEL with these first ten digits."""
    return (10 - _weighted(ten_digits, PESEL_WEIGHTS) % 10) % 10


# the checks below are the clean gate's hot path (a new number is checked for each payload that carries one): the
# codes of the digits are weighted in place, without slicing the value or calling the check-digit functions
def is_nip(value: str) -> bool:
    if "-" in value:
        value = value.replace("-", "")
    if len(value) != 10 or not (value.isascii() and value.isdigit()):
        return False
    codes = value.encode("ascii")
    return _weighted_codes(codes, NIP_WEIGHTS) % 11 == codes[9] - 48  # a checksum of 10 matches no digit


def is_regon(value: str) -> bool:
    if not (value.isascii() and value.isdigit()) or len(value) not in (9, 14):
        return False
    codes = value.encode("ascii")
    weights = REGON9_WEIGHTS if len(codes) == 9 else REGON14_WEIGHTS
    return _weighted_codes(codes, weights) % 11 % 10 == codes[-1] - 48


def is_pesel(value: str) -> bool:
    if len(value) != 11 or not (value.isascii() and value.isdigit()):
        return False
    codes = value.encode("ascii")
    return (10 - _weighted_codes(codes, PESEL_WEIGHTS) % 10) % 10 == codes[10] - 48


def is_eu_vat(value: str) -> bool:
    return bool(_EU_VAT.match(value.replace(" ", "").upper()))


def conforms(format_name: str, value: str) -> bool:
    """Whether `value` passes the check of `format_name`; cached, as payloads repeat the same numbers
    (the owner's NIP on every resource)."""
    return _CACHED_CHECKS[format_name](value)


def cached_check(format_name: str) -> Callable[[str], bool]:
    """`conforms` of one format, without looking the format up for each value (the clean gate's hot path); the
    same cache."""
    return _CACHED_CHECKS[format_name]


def _remembering(check: Callable[[str], bool], limit: int = 8192) -> Callable[[str], bool]:
    """`check` remembering its answers; forgets them all past `limit` (as many as the lru_cache it replaced kept:
    a benchmark that checks its corpus again must not find it all remembered)."""
    answers: dict[str, bool] = {}

    def remembered(value: str) -> bool:
        answer = answers.get(value)
        if answer is None:
            if len(answers) >= limit:
                answers.clear()
            answer = answers[value] = check(value)
        return answer

    return remembered


FORMATS: dict[str, tuple[Callable[[str], bool], str]] = {
    "nip": (is_nip, "10 digits with a valid check digit"),
    "regon": (is_regon, "9 or 14 digits with a valid check digit"),
    "pesel": (is_pesel, "11 digits with a valid check digit"),
    "eu-vat": (is_eu_vat, "an EU member-state prefix followed by 2 to 12 characters"),
}
_CACHED_CHECKS = {name: _remembering(check) for name, (check, _) in FORMATS.items()}
