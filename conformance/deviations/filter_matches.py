"""Faults of what a filter matches, and of the date filters, with a variant of the date forms served.

- Identifier and owner filters that compare the value only, not the system: a value served in one namespace,
  asked for in another namespace the target publishes, still finds the item.
- issueDateFrom ignored: its name fixes what it selects (documents issued from a day on), so an ignored one shows.
  lastModified and statusDate have no meaning in the contract: ignoring them cannot be told from honouring them,
  and no such fault is in the catalogue. What can be seen is refusing a date in the form the target's own items
  show, and that is a fault of each.
- The variant serves meta.lastUpdated in other ISO 8601 forms than the reference's own (an offset instead of Z,
  fractions of a second), and the date filters read those forms as well (the reference reads any ISO 8601
  dateTime).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from aiohttp import web

from conformance.deviations import deviation
from conformance.deviations._tools import answer_instead, resources_in, rewrite_json_answer
from conformance.deviations.reads import ignore_filter, read_filter_as
from reference_impl.problems import problem


def _values_only(values: list[str]) -> list[str]:
    # without a system the reference's filters match the value in any system: the defect, as a client sees it
    return [value.split("|", 1)[-1] for value in values]


@deviation(
    "identifier-filter-ignores-the-system-on-parties",
    "GET /v1/parties?identifier=system|value compares the value only: a value of one namespace asked for in "
    "another namespace still finds the party",
    breaks="ERIS-FILTER-005",
)
def identifier_filter_ignores_the_system_on_parties(app: web.Application, settings: Any) -> None:
    read_filter_as(app, "Party", "identifier", _values_only)


@deviation(
    "owner-filter-ignores-the-system-on-locations",
    "GET /v1/locations?owner=system|value compares the value only: the owner's number asked for in another "
    "namespace still finds its locations",
    breaks="ERIS-LOC-002",
)
def owner_filter_ignores_the_system_on_locations(app: web.Application, settings: Any) -> None:
    read_filter_as(app, "Location", "owner", _values_only)


@deviation(
    "issuedatefrom-filter-ignored-on-document-references",
    "GET /v1/document-references?issueDateFrom=... answers as if issueDateFrom were not given (it is still checked)",
    breaks="ERIS-DOC-004",
)
def issue_date_from_ignored(app: web.Application, settings: Any) -> None:
    ignore_filter(app, "DocumentReference", "issueDateFrom")


def _refuse_date_times(path: str, parameter: str) -> Any:
    """400 for a dateTime value of `parameter` on GET `path`: the filter reads a bare date only, although the
    items show their dates as dateTimes."""

    def matches(request: web.Request) -> bool:
        return (
            request.method == "GET"
            and request.path == path
            and any("T" in value for value in request.query.getall(parameter, []))
        )

    async def refuse(request: web.Request) -> web.Response:
        return problem(400, f"parameter {parameter!r}: a date YYYY-MM-DD is expected")

    return matches, refuse


@deviation(
    "lastmodified-refuses-the-parties-date-form",
    "GET /v1/parties?lastModified=<a dateTime, as meta.lastUpdated shows it> answers 400: only a bare date is read",
    breaks="ERIS-FILTER-005",
)
def last_modified_refuses_the_parties_date_form(app: web.Application, settings: Any) -> None:
    answer_instead(app, *_refuse_date_times("/v1/parties", "lastModified"))


@deviation(
    "statusdate-refuses-the-documents-date-form",
    "GET /v1/document-references?statusDate=<a dateTime, as meta.lastUpdated shows it> answers 400: only a bare "
    "date is read",
    breaks="ERIS-DOC-004",
)
def status_date_refuses_the_documents_date_form(app: web.Application, settings: Any) -> None:
    answer_instead(app, *_refuse_date_times("/v1/document-references", "statusDate"))


_FORMS = (
    (timezone(timedelta(hours=1)), "milliseconds"),
    (timezone(timedelta(hours=-5, minutes=-30)), "seconds"),
    (UTC, "microseconds"),
)
"""(offset, precision) of the forms served in turn: +01:00 with milliseconds, -05:30 without fractions, and Z
(written +00:00 by isoformat, then Z) with microseconds."""


def _in_another_form(stamp: str, position: int) -> str:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        return stamp
    zone, precision = _FORMS[position % len(_FORMS)]
    text = moment.astimezone(zone).isoformat(timespec=precision)
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


@deviation(
    "dates-served-with-offsets-and-fractions",
    "meta.lastUpdated is served with an offset (+01:00, -05:30) or with fractions of a second instead of "
    "whole seconds in Z; the date filters read those forms too",
)
def dates_served_with_offsets_and_fractions(app: web.Application, settings: Any) -> None:
    def change(body: Any, request: web.Request, status: int) -> Any:
        for position, resource in enumerate(resources_in(body)):
            meta = resource.get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("lastUpdated"), str):
                meta["lastUpdated"] = _in_another_form(meta["lastUpdated"], position)
        return body

    rewrite_json_answer(app, lambda request: request.path.startswith("/v1/"), change)
