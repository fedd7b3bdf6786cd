"""The judge of an exchange (conformance.exchange_judge) on hand-made exchanges: each check finds nothing in a
conformant exchange and names its requirement, side and place in a faulty one."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from case_files import load_tests

from conformance.exchange_judge import ExchangeFinding, ExchangeJudge, HttpExchange
from profiles.validator import Validator


def _valid(file: str) -> Any:
    return next(t.data for t in load_tests() if t.file == file and t.test["valid"])


CONTRACTOR = _valid("party/contractor.json")
EMPLOYEE = _valid("party/employee.json")
ACCEPTED = _valid("report-accepted/answer.json")
DOCUMENT = _valid("assets/fixed-asset-document.json")
JSON = {"content-type": "application/json"}
PROBLEM = {"content-type": "application/problem+json"}
TOKEN = {"authorization": "Bearer abc.def.ghi", "content-type": "application/json"}
PROBLEM_400 = {"type": "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1", "title": "Bad Request", "status": 400}


@pytest.fixture(scope="module")
def validator() -> Validator:
    return Validator()


def _body(value: Any) -> bytes:
    return json.dumps(value).encode()


def _envelope(*items: Any, **more: Any) -> bytes:
    return _body({"items": list(items), "nextToken": None, **more})


def _exchange(method: str = "GET", path: str = "/v1/parties", query: tuple = (), **fields: Any) -> HttpExchange:
    fields.setdefault("status", 200)
    fields.setdefault("response_headers", JSON)
    if "response_body" not in fields and fields["status"] == 200 and method == "GET":
        fields["response_body"] = _envelope(CONTRACTOR)
    return HttpExchange(method, path, tuple(query), **fields)


def _judged(validator: Validator, exchange: HttpExchange) -> list[ExchangeFinding]:
    return ExchangeJudge(validator).judge(exchange)


def _found(validator: Validator, exchange: HttpExchange) -> list[tuple[str, str, str, str | None]]:
    """(side, code, where, requirement) of each finding that is not information."""
    return [
        (f.side, f.issue.code, f.where, f.issue.requirement)
        for f in _judged(validator, exchange)
        if f.issue.severity.value != "information"
    ]


def test_a_conformant_list_read_write_and_order_have_no_finding(validator):
    assert _found(validator, _exchange(query=(("count", "2"), ("offset", "0"), ("attribute", "finance|x")))) == []
    write = _exchange("POST", "/v1/parties", request_body=_body(CONTRACTOR), response_body=_body(CONTRACTOR))
    assert _found(validator, write) == []
    order = _exchange(
        "POST",
        "/v1/reports",
        request_headers=TOKEN,
        request_body=_body({"reportId": "cost-calculation"}),
        status=202,
        response_body=_body(ACCEPTED),
    )
    assert [found for found in _found(validator, order) if found[0] == "server"] == []


# -- the client's side ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ((("count", "-1"),), ("client", "paging-out-of-range", "query/count", "ERIS-READ-002")),
        ((("offset", "two"),), ("client", "paging-out-of-range", "query/offset", "ERIS-READ-002")),
        ((("identifier", "12345"),), ("client", "query-parameter-malformed", "query/identifier", "ERIS-FILTER-004")),
        ((("owner", "|5261040828"),), ("client", "query-parameter-malformed", "query/owner", "ERIS-FILTER-004")),
        ((("attribute", "finance"),), ("client", "query-parameter-malformed", "query/attribute", "ERIS-FILTER-004")),
        ((("colour", "red"),), ("client", "query-parameter-unknown", "query/colour", "ERIS-READ-003")),
    ],
)
def test_a_malformed_query_is_the_clients_finding(validator, query, expected):
    assert _found(validator, _exchange(query=query)) == [expected]


def test_a_missing_required_parameter_is_the_clients_finding(validator):
    read = _exchange(path="/v1/party-roles", response_body=_envelope())
    assert _found(validator, read) == [("client", "query-parameter-missing", "query/role", "ERIS-FILTER-007")]


def test_an_unknown_parameter_of_a_list_whose_filters_are_not_shown_is_information(validator):
    read = _exchange(path="/v1/cost-centers", query=(("region", "north"),), response_body=_envelope())
    assert _found(validator, read) == []
    [found] = _judged(validator, read)
    assert (found.side, found.issue.code, found.issue.severity.value) == (
        "client",
        "query-parameter-unknown",
        "information",
    )


def test_a_write_body_is_judged_in_the_write_context(validator):
    written = {key: value for key, value in CONTRACTOR.items() if key not in ("id",)}
    accepted = _exchange("POST", "/v1/parties", request_body=_body(written), response_body=_body(CONTRACTOR))
    assert _found(validator, accepted) == []  # the service assigns the id: a write body goes without
    employee = _exchange("POST", "/v1/parties", request_body=_body(EMPLOYEE), status=400, response_body=b"")
    found = _found(validator, employee)
    assert found and all(side == "client" and where.startswith("request body") for side, _, where, _ in found)
    assert any(requirement == "ERIS-PARTY-W-001" for *_, requirement in found), found


@pytest.mark.parametrize(
    ("body", "code"),
    [(b"", "request-body-missing"), (b"{not json", "request-not-json")],
)
def test_a_write_without_a_json_body_is_the_clients_finding(validator, body, code):
    write = _exchange("POST", "/v1/parties", request_body=body, status=400, response_body=b"")
    assert [(side, found) for side, found, *_ in _found(validator, write)] == [("client", code)]


def test_an_order_without_token_or_json_content_type_is_the_clients_finding(validator):
    order = _exchange(
        "POST",
        "/v1/reports",
        request_headers={"content-type": "text/plain"},
        request_body=_body({"reportId": "cost-calculation"}),
        status=401,
        response_body=b"",
    )
    found = [
        (code, requirement)
        for side, code, _, requirement in _found(validator, order)
        if code.startswith(("auth", "request-content"))
    ]
    assert found == [("authorization-missing", "ERIS-AUTH-001"), ("request-content-type", None)]


# -- the server's side ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exchange", "expected"),
    [
        (
            _exchange("POST", "/v1/reports", request_headers=TOKEN, request_body=_body({}), status=415),
            ("server", "status-not-an-answer", "status", "ERIS-ERR-300"),
        ),
        (
            _exchange(status=503, response_body=b"down"),
            ("server", "server-error", "status", "ERIS-READ-003"),
        ),
        (
            _exchange("POST", "/v1/fixed-asset-documents", request_body=_body(DOCUMENT), status=201),
            ("server", "success-not-200", "status", "ERIS-WRITE-001"),
        ),
        (
            _exchange(status=429, response_headers={}),
            ("server", "retry-after-missing", "response headers", "ERIS-ERR-307"),
        ),
        (
            _exchange(status=429, response_headers={"retry-after": "soon"}),
            ("server", "retry-after-malformed", "response headers/retry-after", "ERIS-ERR-307"),
        ),
        (
            _exchange(response_headers={"content-type": "text/html"}),
            ("server", "content-type-not-documented", "response headers/content-type", "ERIS-GEN-001"),
        ),
        (
            _exchange(response_headers={}),
            ("server", "content-type-missing", "response headers/content-type", "ERIS-GEN-001"),
        ),
        (
            _exchange(response_body=b")]}',\n" + _envelope(CONTRACTOR)),
            ("server", "answer-not-json", "response body", "ERIS-GEN-001"),
        ),
        (
            _exchange(response_body=_body({"items": [CONTRACTOR]})),
            ("server", "schema-required", "response body", "ERIS-READ-001"),
        ),
        (
            _exchange(query=(("count", "0"),)),
            ("server", "items-beyond-count", "response body/items", "ERIS-READ-002"),
        ),
        (
            _exchange(
                "PATCH",
                "/v1/document-references",
                request_body=_body(DOCUMENT),
                response_body=_body(DOCUMENT),
            ),
            ("server", "answer-shape", "response body", "ERIS-DOC-006"),
        ),
        (
            _exchange(
                "GET",
                "/v1/fixed-asset-documents/$document-content",
                query=(("identifier", "urn:oid:1.2.616.1.113769.4.7.5|OT-1/2025"),),
                response_body=_body({**DOCUMENT, "attachment": []}),
            ),
            ("server", "answer-shape", "response body/attachment", "ERIS-ASSET-011"),
        ),
    ],
    ids=lambda value: value[1] if isinstance(value, tuple) else "",
)
def test_a_faulty_answer_is_the_servers_finding_of_its_requirement(validator, exchange, expected):
    found = [f for f in _found(validator, exchange) if f[0] == "server"]
    assert expected in found, found


def test_an_invalid_item_is_located_inside_the_envelope_with_its_own_requirement(validator):
    gone = {
        **CONTRACTOR,
        "status": {"coding": [{"system": "https://erp.example.com/fhir/vocab/party-status", "code": "gone"}]},
    }
    found = _found(validator, _exchange(response_body=_envelope(CONTRACTOR, gone)))
    assert (
        "server",
        "binding-code-not-in-value-set",
        "response body/items/1/status/coding/0/code",
        "ERIS-PARTY-003",
    ) in found, found


def test_value_sets_are_judged_as_the_listing_unless_a_set_is_asked_for(validator):
    listing = _envelope({"url": "https://erp.example.com/fhir/vocab/party-status", "version": "1.0.0"})
    for query in ((), (("url", ""),)):
        assert _found(validator, _exchange(path="/v1/value-sets", query=query, response_body=listing)) == []
    asked = _exchange(path="/v1/value-sets", query=(("url", "https://erp.example.com/fhir/vocab/party-status"),))
    found = _found(validator, HttpExchange(**{**_fields(asked), "response_body": listing}))
    assert any(side == "server" and where.startswith("response body/items/0") for side, _, where, _ in found), found


def _fields(exchange: HttpExchange) -> dict[str, Any]:
    return {name: getattr(exchange, name) for name in HttpExchange.__slots__}


def test_the_400_of_a_report_order_is_problem_details_with_the_400_type(validator):
    def answered(body: Any, headers: dict[str, str]) -> list[tuple[str, str, str, str | None]]:
        order = _exchange(
            "POST", "/v1/reports", request_headers=TOKEN, request_body=_body({}), status=400,
            response_headers=headers, response_body=_body(body),
        )  # fmt: skip
        return [f for f in _found(validator, order) if f[0] == "server"]

    assert answered(PROBLEM_400, PROBLEM) == []
    assert answered(PROBLEM_400, JSON) == [
        ("server", "content-type-not-documented", "response headers/content-type", "ERIS-ERR-001")
    ]
    assert answered({**PROBLEM_400, "type": "about:blank"}, PROBLEM) == [
        ("server", "problem-type-not-400", "response body/type", "ERIS-ERR-001")
    ]
    assert answered({**PROBLEM_400, "status": 422}, PROBLEM) == [
        ("server", "problem-status-not-400", "response body/status", "ERIS-ERR-001")
    ]


def test_the_202_of_a_report_order_is_judged_as_its_answer(validator):
    order = _exchange(
        "POST", "/v1/reports", request_headers=TOKEN, request_body=_body({}), status=202,
        response_body=_body({"encryptedSessionKey": ACCEPTED["encryptedSessionKey"]}),
    )  # fmt: skip
    found = [f for f in _found(validator, order) if f[0] == "server"]
    assert found and all(where == "response body" for _, _, where, _ in found), found


def test_the_message_of_an_hr_inbox_write_is_judged(validator):
    answered = _exchange("POST", "/v1/document-references", status=200, response_body=_body({"detail": "ok"}))
    found = [f for f in _found(validator, answered) if f[0] == "server"]
    assert found and {requirement for *_, requirement in found} == {"ERIS-DOC-005"}, found


# -- traffic that cannot be read whole --------------------------------------------------------------------------


def test_cut_bodies_are_information_not_judged(validator):
    cut = _exchange(
        "POST", "/v1/parties", request_body=b'{"resourceType": "Pa', request_body_complete=False,
        response_body=b'{"resourceType', response_body_complete=False,
    )  # fmt: skip
    judged = _judged(validator, cut)
    assert [(f.side, f.issue.code, f.issue.severity.value) for f in judged] == [
        ("client", "body-not-recorded", "information"),
        ("server", "body-not-recorded", "information"),
    ]


def test_a_gzip_answer_is_judged_decompressed_and_a_corrupt_one_is_a_warning(validator):
    gzipped = {"content-type": "application/json", "content-encoding": "gzip"}
    fine = _exchange(response_headers=gzipped, response_body=gzip.compress(_envelope(CONTRACTOR)))
    assert _found(validator, fine) == []
    broken = _exchange(response_headers=gzipped, response_body=gzip.compress(_envelope(CONTRACTOR))[:-9])
    assert _found(validator, broken) == [("server", "body-encoding-unread", "response body", None)]
    invalid = _exchange(response_headers=gzipped, response_body=gzip.compress(_body({"items": []})))
    assert ("server", "schema-required", "response body", "ERIS-READ-001") in _found(validator, invalid)


def test_an_exchange_outside_the_contract_is_said_once_for_its_path(validator):
    judge = ExchangeJudge(validator)
    by_id = [judge.judge(_exchange(path="/v1/parties/contractor-1")) for _ in range(3)]
    assert [[f.issue.code for f in found] for found in by_id] == [["path-outside-contract"], [], []]
    deleted = judge.judge(_exchange("DELETE", "/v1/parties", status=405))
    assert [(f.issue.code, f.issue.severity.value) for f in deleted] == [("path-outside-contract", "information")]
    assert "no DELETE on /v1/parties" in deleted[0].issue.message
