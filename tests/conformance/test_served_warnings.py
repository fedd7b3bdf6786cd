"""Warnings on served data: what the validator warns of in the target's answers (a registry number with a wrong check
digit, for example) is tallied once per code, item and location, bounded, and listed by certification.json, the
console summary and report.html, without changing a status or the verdict."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from markupsafe import escape as markup_escape
from project_paths import eris_command

from conformance.catalogue.requirements import Requirement
from conformance.certification import certify, to_json
from conformance.certification.html_report import to_html
from conformance.certification.summary import print_summary
from conformance.client.concurrent_calls import findings_kept_apart, in_order
from conformance.client.traffic import Traffic
from conformance.evidence.outcomes import Findings
from conformance.evidence.outcomes import TestOutcome as Outcome  # not named Test*: pytest would collect it
from conformance.evidence.served_warnings import ServedWarning, Tally

STARTED = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
MUST = Requirement("ERIS-W-001", "Reads", "Parties are served.", "MUST")
SCRIPT = "<script>alert('x')</script>"
CHECK_DIGITS = {"identifier-nip-invalid", "identifier-regon-invalid", "identifier-pesel-invalid"}
DIRTY = "registry-numbers-with-wrong-check-digits"
RUN_TIMEOUT = 600


def _nip(item: str, where: str = "GET /v1/parties items[0]", message: str = "'123' is not a valid NIP"):
    return ServedWarning("identifier-nip-invalid", message, "/identifier/1/value", item, where)


def _outcome(nodeid: str, *warnings: ServedWarning) -> Outcome:
    tally = Tally()
    for warning in warnings:
        tally.add(warning)
    return Outcome(nodeid, "passed", [MUST.id], warnings=tally.to_json())


def _certify(*outcomes: Outcome):
    return certify([MUST], outcomes, base_url="http://t.example", started=STARTED, finished=STARTED + timedelta(1))


def escape(text: str) -> str:
    """As report.html's templates escape (markupsafe, under Jinja2's autoescape)."""
    return str(markup_escape(text))


def test_a_warning_met_again_is_counted_not_listed_again_and_the_first_request_is_kept():
    tally = Tally()
    tally.add(_nip("Party/a", where="GET /v1/parties items[0]"))
    tally.add(_nip("Party/a", where="GET /v1/parties?identifier=x items[0]"))
    tally.add(_nip("Party/b"))
    tally.add(ServedWarning("identifier-pesel-invalid", "bad PESEL", "/identifier/1/value", "Party/a", "GET x"))
    assert [(w.code, w.item, w.count, w.where) for w in tally.warnings] == [
        ("identifier-nip-invalid", "Party/a", 2, "GET /v1/parties items[0]"),
        ("identifier-nip-invalid", "Party/b", 1, "GET /v1/parties items[0]"),
        ("identifier-pesel-invalid", "Party/a", 1, "GET x"),
    ]


def test_past_its_bound_a_tally_only_counts_the_distinct_warnings_it_does_not_list():
    tally = Tally(listed=2)
    for item in ("Party/a", "Party/b", "Party/c", "Party/d", "Party/c"):
        tally.add(_nip(item))
    assert [w.item for w in tally.warnings] == ["Party/a", "Party/b"] and tally.unlisted == 2
    whole = Tally(listed=3)
    whole.take(tally.to_json())
    whole.take(tally.to_json())
    assert [(w.item, w.count) for w in whole.warnings] == [("Party/a", 2), ("Party/b", 2)] and whole.unlisted == 4


def test_the_findings_of_concurrent_calls_bring_their_warnings_to_the_test():
    test = Findings()

    def read(item: str) -> None:
        kept = findings_kept_apart()
        assert kept is not None
        kept.warn(_nip(item))

    with ThreadPoolExecutor(2) as threads:
        in_order([lambda: read("Party/a"), lambda: read("Party/a")], threads=threads, traffic=Traffic(), test=test)
    assert [(w.item, w.count) for w in test.warnings.warnings] == [("Party/a", 2)]


def test_certification_lists_the_warnings_of_every_test_once_and_they_change_no_status():
    clean = _certify(_outcome("s.py::test_a"), _outcome("s.py::test_b"))
    dirty = _certify(
        _outcome("s.py::test_a", _nip("Party/a"), _nip("Party/b")),
        _outcome("s.py::test_b", _nip("Party/a", where="GET /v1/parties?offset=100 items[3]")),
    )
    assert dirty.verdict == clean.verdict == "conformant"
    assert [r.status for r in dirty.requirements] == [r.status for r in clean.requirements]
    summary = to_json(dirty)["summary"]
    assert summary["warnings"] == [
        {
            "code": "identifier-nip-invalid",
            "message": "'123' is not a valid NIP",
            "location": "/identifier/1/value",
            "item": "Party/a",
            "where": "GET /v1/parties items[0]",
            "count": 2,
        },
        {
            "code": "identifier-nip-invalid",
            "message": "'123' is not a valid NIP",
            "location": "/identifier/1/value",
            "item": "Party/b",
            "where": "GET /v1/parties items[0]",
            "count": 1,
        },
    ]
    assert summary["warnings_not_listed"] == 0
    assert to_json(clean)["summary"]["warnings"] == []


def test_the_console_says_how_many_warnings_of_which_codes_in_one_line():
    pesel = ServedWarning("identifier-pesel-invalid", "bad PESEL", "/identifier/0/value", "Party/e", "GET /v1/parties")
    c = _certify(_outcome("s.py::test_a", _nip("Party/a"), _nip("Party/b"), pesel))
    out = StringIO()
    print_summary(c, {}, out, shown=10, outputs=())
    lines = [line for line in out.getvalue().splitlines() if "on served data" in line]
    assert lines == [
        "  3 warnings on served data, never a failure: 2 identifier-nip-invalid, 1 identifier-pesel-invalid; "
        "first: Party/a /identifier/1/value: '123' is not a valid NIP (see report.html)"
    ]
    quiet = StringIO()
    print_summary(_certify(_outcome("s.py::test_a")), {}, quiet, shown=10, outputs=())
    assert "on served data" not in quiet.getvalue()


def test_report_html_lists_the_warnings_escaped_in_a_section_of_their_own():
    c = _certify(_outcome("s.py::test_a", _nip(f"Party/{SCRIPT}", message=f"'{SCRIPT}' is not a valid NIP")))
    page = to_html(c)
    section = page[page.index('<section id="warnings">') : page.index("</section>", page.index('id="warnings"'))]
    assert "Warnings on served data: 1</h2>" in section
    assert f"<td>Party/{escape(SCRIPT)}</td>" in section and f"{escape(chr(39) + SCRIPT + chr(39))} is not" in section
    assert SCRIPT not in page
    assert page.index('id="summary"') < page.index('id="warnings"') < page.index('id="requirements"')
    assert 'id="warnings"' not in to_html(_certify(_outcome("s.py::test_a")))


# -- the embedded reference, with dirty registry numbers and without -------------------------------------------


@dataclass
class Run:
    result: subprocess.CompletedProcess[str]
    document: dict
    out: Path


@pytest.fixture(scope="module")
def certifications(tmp_path_factory) -> dict[str, Run]:
    """The embedded reference certified clean and with registry numbers of wrong check digits, both at once."""
    root = tmp_path_factory.mktemp("warnings")
    started = {}
    for name, variant in (("clean", ()), ("dirty", ("--variant", DIRTY))):
        command = [*eris_command(), "certify", "--seed", "1", "--examples", "1", "--report-dir", name, *variant]
        started[name] = subprocess.Popen(
            command,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
            stdin=subprocess.DEVNULL,
        )
    runs = {}
    for name, process in started.items():
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT)
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        assert result.returncode == 0, stdout[-3000:] + stderr[-3000:]
        runs[name] = Run(result, json.loads((root / name / "certification.json").read_text("utf-8")), root / name)
    return runs


@pytest.mark.slow
def test_certify_lists_the_wrong_check_digits_the_reference_serves_and_stays_conformant(certifications):
    clean, dirty = certifications["clean"].document, certifications["dirty"].document
    assert dirty["summary"]["verdict"] == clean["summary"]["verdict"] == "conformant"
    statuses = {r["id"]: r["status"] for r in clean["requirements"]}
    assert {r["id"]: r["status"] for r in dirty["requirements"]} == statuses

    warnings = dirty["summary"]["warnings"]
    assert {w["code"] for w in warnings} >= CHECK_DIGITS
    assert len({(w["code"], w["item"], w["location"]) for w in warnings}) == len(warnings)  # each listed once
    nip = next(w for w in warnings if w["code"] == "identifier-nip-invalid" and w["item"].startswith("Party/party-"))
    assert nip["location"].startswith("/identifier/") and "/v1/parties" in nip["where"]  # the request serving it
    assert max(w["count"] for w in warnings) > 1  # a run reads the same party many times: one entry for them all
    line = next(line for line in certifications["dirty"].result.stdout.splitlines() if "on served data" in line)
    assert f"{len(warnings)} warnings on served data, never a failure: " in line and "identifier-" in line
    page = (certifications["dirty"].out / "report.html").read_text("utf-8")
    assert f"Warnings on served data: {len(warnings)}</h2>" in page and escape(nip["message"]) in page


@pytest.mark.slow
def test_a_clean_reference_run_lists_no_check_digit_warning(certifications):
    warnings = certifications["clean"].document["summary"]["warnings"]
    assert not {w["code"] for w in warnings} & CHECK_DIGITS
