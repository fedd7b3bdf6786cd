"""The suite reads dates in every ISO 8601 form a target may serve, compares them as dates, and writes a date it
derives in the form of the date it came from (conformance.suite.support.dates)."""

from __future__ import annotations

from datetime import date

import pytest

from conformance.suite.support.dates import calendar_day, dated_strings, form_of, one_of_each_form, shifted


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2025-01-08", date(2025, 1, 8)),
        ("20250108", date(2025, 1, 8)),
        ("2025-01-08T09:00:00Z", date(2025, 1, 8)),
        ("2025-01-08T09:00:00.123456789Z", date(2025, 1, 8)),
        # its own date, not the UTC one (2025-01-09T01:30Z)
        ("2025-01-08T23:30:00-02:00", date(2025, 1, 8)),
        ("2025-01-08T00:30:00+01:00", date(2025, 1, 8)),
        ("2025-01-08T09:00", date(2025, 1, 8)),
    ],
)
def test_a_date_is_read_in_each_iso_8601_form(text, day):
    assert calendar_day(text) == day


@pytest.mark.parametrize("text", ["2025-02-30", "2025-01-08T25:00:00Z", "08.01.2025", "2025", "", None, 20250108])
def test_what_is_no_date_is_none(text):
    assert calendar_day(text) is None


@pytest.mark.parametrize(
    ("text", "later"),
    [
        ("2025-01-08", "2025-01-09"),
        ("20251231", "20260101"),
        ("2025-01-08T23:30:00.120-02:00", "2025-01-09T23:30:00.120-02:00"),
        ("2024-02-28T09:00:00Z", "2024-02-29T09:00:00Z"),
    ],
)
def test_a_day_later_keeps_the_form(text, later):
    assert shifted(text, 1) == later
    assert form_of(shifted(text, 1)) == form_of(text)


def test_one_value_of_each_form_is_taken():
    values = ["2024-01-10T09:00:00Z", "2024-01-11T09:00:00Z", "2024-01-10T10:00:00.5+01:00", "2024-01-10", "soon"]
    assert one_of_each_form(values) == ["2024-01-10T09:00:00Z", "2024-01-10T10:00:00.5+01:00", "2024-01-10"]


def test_the_dates_of_an_item_are_found_wherever_they_are():
    item = {
        "id": "20250108",  # bare digits under a name that says no date: not a date
        "meta": {"lastUpdated": "2024-01-10T09:00:00Z"},
        "issueDate": "20250108",
        "period": [{"start": "2025-01-01"}],
    }
    assert list(dated_strings(item)) == [
        ("meta.lastUpdated", "2024-01-10T09:00:00Z"),
        ("issueDate", "20250108"),
        ("period.start", "2025-01-01"),
    ]
