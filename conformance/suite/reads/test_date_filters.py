"""The date filters of the reads: GET /v1/parties `lastModified`, GET /v1/document-references `statusDate` and
`issueDateFrom`, each sent with dates taken from the target's own items, in each ISO 8601 form they show.

What the contract fixes of them is little:

    | GET | /v1/parties | profile, type, identifier, owner, attribute[], status, lastModified, count, offset | none |
    200 envelope of Party[] ...
    | GET | /v1/document-references | profile, identifier, attribute[] ..., type, participant (internal Party
    namespace), statusDate, issueDateFrom, count, offset | 200 envelope of DocumentReference[] (HR inbox) |
    issueDate | 0..1 | string | ISO 8601 date

- `lastModified` and `statusDate`: the contract names them and shows no meaning for their value (whether it is an
  instant, a lower bound, an exact day) nor the element they look at. The check is therefore a 200 envelope of
  valid items for a well-formed value, a date in the form the items themselves show: nothing about which items
  come back. A target that ignores them cannot be told from one that honours them; one that refuses a date in its
  own items' form can.
- `issueDateFrom`: its name joins the element `issueDate` ("ISO 8601 date") to "From", the first day of a range.
  So an item issued on D is found by issueDateFrom=D ("from 8 January" counts 8 January, as `validFrom` of
  Capability counts its own day), and no item issued before D is. Dates are compared as dates; items without an
  issueDate are not judged (what the filter does with them is not shown).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import clause_not_exercised, exercised, not_exercised
from conformance.suite.support.dates import calendar_day, dated_strings, one_of_each_form, shifted
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import Item, ids

PARTIES, DOCUMENTS = "/v1/parties", "/v1/document-references"

Where = Callable[[str], bool]
"""Whether a JSON path of an item (meta.lastUpdated) holds the date wanted."""


def _is(wanted: str) -> Where:
    return lambda path: path == wanted


def _names_a_status_date(path: str) -> bool:
    """statusDate, status.date, meta.statusChanged...: an element whose path names a status and a date or a change."""
    lowered = path.lower()
    return "status" in lowered and any(word in lowered for word in ("date", "time", "changed", "updated"))


def _anywhere(path: str) -> bool:
    return True


def served_dates(items: list[Item], where: list[tuple[str, Where]]) -> tuple[list[str], str]:
    """One date of each ISO 8601 form the items carry at the first place of `where` (description, test of a path)
    where any item carries one, and that description; ([], "") when no item carries a date at all."""
    carried = [(path, text) for item in items for path, text in dated_strings(item)]
    for description, holds in where:
        values = [text for path, text in carried if holds(path)]
        if values:
            return one_of_each_form(values), description
    return [], ""


def _read_with_each(discovery: Discovery, path: str, parameter: str, values: list[str], source: str) -> None:
    """A 200 envelope of valid items for each value (the items judged by the validator, each error against its own
    requirement): what the contract fixes for a parameter whose meaning it does not show. The record of the clause
    says so, for the report."""
    resource_type = "Party" if path == PARTIES else "DocumentReference"
    requirement = "ERIS-FILTER-005" if path == PARTIES else "ERIS-DOC-004"
    for value in values:
        note = (
            f"a date in the form of the items' {source}; the contract shows no meaning for {parameter}: "
            f"checked for a 200 envelope of valid {resource_type} items only"
        )
        exercised(requirement, parameter, value=value, request=f"GET {path}?{parameter}={value} ({note})")
        discovery.api.read(path, {parameter: value}, resource_type=resource_type)


@pytest.mark.requirement("ERIS-FILTER-005")
def test_last_modified_with_the_dates_the_parties_show_is_a_read(discovery: Discovery) -> None:
    """GET /v1/parties?lastModified=<a date as the parties show it> answers the 200 envelope of Party[] ("200
    envelope of Party[]"), for one date of each ISO 8601 form served. Meaning not shown: which parties come back
    is not judged, only that a date in the target's own form is read."""
    values, source = served_dates(
        discovery.parties,
        [("meta.lastUpdated", _is("meta.lastUpdated")), ("a date the parties carry", _anywhere)],
    )
    if not values:
        reason = f"GET {PARTIES} served no party carrying a date (meta.lastUpdated or another ISO 8601 date)"
        exercise = data_served(PARTIES, "a party with meta.lastUpdated")
        clause_not_exercised("ERIS-FILTER-005", "lastModified", reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    _read_with_each(discovery, PARTIES, "lastModified", values, source)


@pytest.mark.requirement("ERIS-DOC-004")
def test_status_date_with_the_dates_the_documents_show_is_a_read(discovery: Discovery) -> None:
    """GET /v1/document-references?statusDate=<a date as the documents show it> answers the 200 envelope of
    DocumentReference[], for one date of each ISO 8601 form: a status date where the documents show one, else the
    time of their last change (meta.lastUpdated), else any date they carry (issueDate). Meaning not shown: which
    documents come back is not judged."""
    values, source = served_dates(
        discovery.items(DOCUMENTS),
        [
            ("a status date", _names_a_status_date),
            ("meta.lastUpdated", _is("meta.lastUpdated")),
            ("a date the documents carry", _anywhere),
        ],
    )
    if not values:
        reason = f"GET {DOCUMENTS} served no document carrying a date (a status date, meta.lastUpdated, issueDate)"
        exercise = data_served(DOCUMENTS, "a document with an issueDate")
        clause_not_exercised("ERIS-DOC-004", "statusDate", reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    _read_with_each(discovery, DOCUMENTS, "statusDate", values, source)


def _issued(item: Item) -> date | None:
    return calendar_day(item.get("issueDate"))


@pytest.mark.requirement("ERIS-DOC-004")
def test_issue_date_from_finds_the_documents_issued_on_and_after_it(discovery: Discovery) -> None:
    """issueDateFrom=D, D an issueDate as a document shows it, finds that document and no document issued before D;
    the day after the latest issueDate finds no dated document at all (an ignored filter answers them all). The
    latest and the earliest issueDate are sent, each in its own ISO 8601 form."""
    documents = discovery.items(DOCUMENTS)
    dated = [item for item in documents if _issued(item) is not None]
    if not dated:
        reason = f"GET {DOCUMENTS} served no document with an issueDate"
        exercise = data_served(DOCUMENTS, "a document with an issueDate")
        clause_not_exercised("ERIS-DOC-004", "issueDateFrom", reason, exercise=exercise)
        not_exercised(reason, exercise=exercise)
    latest = max(dated, key=lambda item: (_issued(item), str(item.get("id"))))
    earliest = min(dated, key=lambda item: (_issued(item), str(item.get("id"))))
    for item in [latest] if earliest is latest else [latest, earliest]:
        value = str(item["issueDate"])
        found = _read_from(discovery, value)
        assert item.get("id") in ids(found), (
            f"GET {DOCUMENTS}?issueDateFrom={value} did not find {item.get('id')}, issued on {value}"
        )
        _assert_none_before(found, value)
    after = shifted(str(latest["issueDate"]), 1)
    _assert_none_before(_read_from(discovery, after), after)


def _read_from(discovery: Discovery, value: str) -> list[Item]:
    exercised("ERIS-DOC-004", "issueDateFrom", value=value, request=f"GET {DOCUMENTS}?issueDateFrom={value}")
    return discovery.api.read_all(DOCUMENTS, {"issueDateFrom": value})


def _assert_none_before(found: list[Item], value: str) -> None:
    bound = calendar_day(value)
    assert bound is not None
    earlier = [
        f"{item.get('id')} ({item.get('issueDate')})" for item in found if (day := _issued(item)) and day < bound
    ]
    assert not earlier, f"GET {DOCUMENTS}?issueDateFrom={value} answered documents issued before it: {earlier[:5]}"
