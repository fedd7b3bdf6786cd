"""What the parts of the seed data set share: the seed of its random choices and the own organization."""

from __future__ import annotations

from typing import Any

SEED = 20250117
"""Seed of every random choice of the data set."""

OWN_ORGANIZATION_NIP = "7251801126"
"""NIP of the own organization (the Employer): the company that reports are ordered for
(`CompanyTaxNo`) and the owner of every seed resource."""

OWN_ORGANIZATION_NAME = "Eris Produkcja Sp. z o.o."

Resource = dict[str, Any]

Resource = dict[str, Any]

ASCII = str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")
"""Polish letters to ASCII: for e-mail logins and the text of the small PDFs (Helvetica of PDF 1.4 is Latin-1)."""
