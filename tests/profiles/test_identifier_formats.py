"""Check-digit rules of the public registries, on published example numbers and one-digit changes."""

import pytest

from profiles.identifier_formats import is_eu_vat, is_nip, is_pesel, is_regon


@pytest.mark.parametrize(
    ("check", "value", "valid"),
    [
        (is_nip, "5260250274", True),
        (is_nip, "526-025-02-74", True),
        (is_nip, "5260250275", False),
        (is_nip, "526025027", False),
        (is_nip, "526025027²", False),  # a Unicode digit that int() refuses
        (is_regon, "123456785", True),
        (is_regon, "123456786", False),
        (is_regon, "12345678512347", True),
        (is_regon, "12345678512348", False),
        (is_pesel, "44051401359", True),
        (is_pesel, "44051401358", False),
        (is_pesel, "4405140135٩", False),  # Arabic-Indic nine
        (is_eu_vat, "PL5260250274", True),
        (is_eu_vat, "DE123456789", True),
        (is_eu_vat, "US123456789", False),
    ],
)
def test_check_digit_rules(check, value, valid):
    assert check(value) is valid
