"""Values of the seed data set that are computed, not written: registry numbers with their check digits (the
registries' rules, profiles.identifier_formats), Polish IBANs, and small real PDF documents."""

from __future__ import annotations

import base64
from collections.abc import Iterator

from profiles.identifier_formats import nip_check_digit, pesel_check_digit, regon_check_digit

__all__ = ["b64", "iban_pl", "nip_from", "nip_sequence", "pdf", "pesel_for", "regon_from"]


def nip_from(nine_digits: str) -> str | None:
    """The NIP with these first nine digits, or None when no check digit exists (checksum 10)."""
    check = nip_check_digit(nine_digits)
    return None if check is None else nine_digits + str(check)


def regon_from(digits: str) -> str:
    """A 9-digit REGON from 8 digits, or a 14-digit (local unit) REGON from 13 digits."""
    return digits + str(regon_check_digit(digits))


def pesel_for(birth_date: str, serial: int, female: bool) -> str:
    year, month, day = (int(part) for part in birth_date.split("-"))
    month += {18: 80, 19: 0, 20: 20, 21: 40, 22: 60}[year // 100]
    sex = (serial % 5) * 2 + (0 if female else 1)
    digits = f"{year % 100:02d}{month:02d}{day:02d}{serial % 1000:03d}{sex}"
    return digits + str(pesel_check_digit(digits))


def iban_pl(bank: str, account: str) -> str:
    """A Polish IBAN (valid ISO 13616 check digits) from an 8-digit bank code and 16-digit account."""
    bban = bank + account
    remainder = int(bban + "252100") % 97  # "PL00" moved to the end, P=25, L=21
    return f"PL{98 - remainder:02d}{bban}"


def nip_sequence(start: int) -> Iterator[str]:
    """Valid NIPs in increasing order from a 9-digit start."""
    number = start
    while True:
        nip = nip_from(f"{number:09d}")
        if nip is not None:
            yield nip
        number += 1


def pdf(lines: list[str]) -> bytes:
    """A one-page PDF 1.4 with these ASCII lines of text, with a correct cross-reference table."""
    text = "\n".join(
        f"BT /F1 11 Tf 56 {780 - 16 * i} Td ({line.replace(chr(92), '').replace('(', '[').replace(')', ']')}) Tj ET"
        for i, line in enumerate(lines)
    ).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
