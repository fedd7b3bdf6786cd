"""`report.html`: the certification for a person. One self-contained page (inline CSS, no script, no external
asset): the verdict first, the target and the counts, every requirement with its status and tests, then each
failing test with its message and the exchanges that show it (a curl line to repeat each request). Everything
that came from the target or the suite is HTML-escaped."""

from __future__ import annotations

import contextlib
import json
from html import escape
from typing import TYPE_CHECKING

from conformance.bodies import RecordedBody, recorded_body
from conformance.certification.causes import causes_of
from conformance.certification.document import certified_for
from conformance.certification.judgement import FAILING, STATUSES, TEST_OUTCOMES
from conformance.traffic import Exchange

if TYPE_CHECKING:
    from conformance.certification.judgement import Certification, RequirementResult
    from conformance.outcomes import TestOutcome

__all__ = ["to_html"]

BODY_CHARACTERS = 4000
"""Characters of a body shown; the whole recorded body is in traffic.har."""
FOLDED_TESTS = 3
"""More passing or skipped tests of one requirement than this are folded under their counts."""
EXCHANGES_SHOWN = 8
"""The last exchanges of a failing test shown: the failure usually follows the last request."""

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:0 20px 40px}
header.verdict{padding:22px 20px;color:#fff}
header.verdict h1{margin:0;font-size:30px;letter-spacing:.5px}
header.verdict p{margin:6px 0 0;font-size:16px}
.conformant{background:#1f7a3d}.non-conformant{background:#b3261e}.incomplete{background:#8a5a00}
h2{margin:30px 0 10px;font-size:21px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
h3{margin:18px 0 6px;font-size:16px;word-break:break-all}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #d5d9e0;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eceff3}
td.id{white-space:nowrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:16px 0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-all}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;white-space:nowrap}
.s-passed{background:#d8f0df;color:#14532d}.s-failed,.s-error{background:#fbd9d6;color:#7f1d1d}
.s-skipped{background:#fdf0c4;color:#6b4f00}.s-not-tested,.s-not-applicable{background:#e4e7ec;color:#384152}
.s-expected{background:#e6dcf7;color:#4c1d95}
.counts td,.counts th{text-align:center}
ul.tests{margin:0;padding-left:16px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;
word-break:break-all}
p.ids{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;margin:4px 0}
.text{color:#4b5563;font-size:13px}
pre{background:#fff;border:1px solid #d5d9e0;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;
font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;margin:4px 0}
pre.message{border-left:4px solid #b3261e}
details{background:#fff;border:1px solid #d5d9e0;margin:6px 0;padding:4px 8px}
summary{cursor:pointer;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;word-break:break-all}
article.failure{background:#fff;border:1px solid #d5d9e0;padding:4px 14px 12px;margin:14px 0}
.note{color:#6b7280;font-size:13px}
"""


def to_html(certification: Certification) -> str:
    c = certification
    verdict = c.verdict.capitalize()
    target = c.base_url + (" (the embedded reference implementation)" if c.embedded else "")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>eris certification: {escape(verdict)} — {escape(c.base_url)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<header class="verdict {escape(c.verdict)}"><h1>{escape(verdict)}</h1>',
        f"<p>{escape(target)}</p></header><main>",
        _facts(c),
        _counts(c),
        _lists(c),
        _causes(c),
        _requirements(c),
        _failures(c),
        "</main></body></html>\n",
    ]
    return "\n".join(part for part in parts if part)


def _facts(c: Certification) -> str:
    duration = (c.finished - c.started).total_seconds()
    rows = [
        ("Target", c.base_url),
        ("Certified for", certified_for(c)),
        *([("Selection", c.selection)] if c.selection else []),
        ("Suite", f"eris {c.version}"),
        ("Started", c.started.isoformat(timespec="seconds")),
        ("Finished", f"{c.finished.isoformat(timespec='seconds')} ({duration:.1f} s)"),
        (
            "Verdict rule",
            "non-conformant when a MUST requirement failed (INFO never fails; listed expected failures do not count); "
            "else incomplete when an applicable MUST requirement was not exercised; else conformant",
        ),
    ]
    items = "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in rows)
    return f'<dl class="facts">{items}</dl>'


def _counts(c: Certification) -> str:
    requirement_counts = c.counts
    test_counts = c.test_counts
    return (
        '<table class="counts"><tr><th></th>'
        + "".join(f"<th>{escape(status)}</th>" for status in STATUSES)
        + "</tr><tr><th>requirements</th>"
        + "".join(f"<td>{requirement_counts[status]}</td>" for status in STATUSES)
        + "</tr></table>\n"
        + '<table class="counts"><tr><th></th>'
        + "".join(f"<th>{escape(outcome)}</th>" for outcome in TEST_OUTCOMES)
        + "</tr><tr><th>tests</th>"
        + "".join(f"<td>{test_counts[outcome]}</td>" for outcome in TEST_OUTCOMES)
        + "</tr></table>"
    )


def _lists(c: Certification) -> str:
    sections = [
        ("MUST requirements failed", c.failed_must, "", True),
        (
            "MUST requirements not exercised (the verdict is incomplete)",
            [f"{key}: {why}" for key, why in c.incomplete.items()],
            "",
            False,
        ),
        (
            "Failed as expected (listed in the expected failures)",
            [f"{e.requirement_id}: {e.reason}" for e in c.expected_failures],
            "",
            False,
        ),
        (
            "Expected failures that expired (they count again)",
            [f"{e.requirement_id}: {e.reason} (until {e.until})" for e in c.expected.expired],
            "",
            False,
        ),
        ("Listed as expected failures, but passed: fixed", c.fixed, "Remove them from the list.", True),
        (
            "Expected-failure entries that name no catalogue requirement",
            c.unmatched_expected,
            "A typo, or a requirement withdrawn from the catalogue.",
            False,
        ),
        (
            "Requirement ids cited by tests but not in the catalogue",
            list(c.unknown),
            "Their tests do not count for the verdict.",
            False,
        ),
    ]
    html = []
    for title, items, note, linked in sections:
        if items:
            # Inline, not one line each: a list of dozens must not push the requirement table out of sight.
            entries = ", ".join(_link(item) if linked else escape(item) for item in items)
            html.append(f"<h3>{escape(title)}</h3>" + (f'<p class="note">{escape(note)}</p>' if note else ""))
            html.append(f'<p class="ids">{entries}</p>')
    return "\n".join(html)


def _causes(c: Certification) -> str:
    """The failed requirements grouped by their first cause, when some share one."""
    causes = causes_of(c)
    if all(len(cause.requirements) == 1 for cause in causes):
        return ""
    rows = "".join(
        f"<tr><td>{_link(cause.lead)}</td><td>{escape(cause.message.splitlines()[0] if cause.message else '')}</td>"
        f"<td>{', '.join(_link(r) for r in cause.requirements[1:])}</td></tr>"
        for cause in causes
    )
    return (
        f"<h3>{len(causes)} causes of {sum(len(c_.requirements) for c_ in causes)} failed requirements</h3>"
        '<p class="note">Failures whose first message says the same, the particulars taken out, are one cause.</p>'
        f"<table><tr><th>first failed</th><th>cause</th><th>the same cause also failed</th></tr>{rows}</table>"
    )


def _link(item: str) -> str:
    anchor = _anchor(item) if "::" in item else f"r-{item}"
    return f'<a href="#{escape(anchor)}">{escape(item)}</a>'


def _anchor(nodeid: str) -> str:
    return "t-" + "".join(character if character.isalnum() else "-" for character in nodeid)


def _badge(status: str, expected: bool = False) -> str:
    label = f"{status} (expected)" if expected else status
    kind = "expected" if expected else status
    return f'<span class="badge s-{escape(kind)}">{escape(label)}</span>'


def _requirements(c: Certification) -> str:
    rows = []
    for result in c.requirements:
        requirement = result.requirement
        note = f'<div class="note">{escape(result.note)}</div>' if result.note else ""
        rows.append(
            f'<tr id="r-{escape(requirement.id)}"><td class="id">{escape(requirement.id)}</td>'
            f"<td>{escape(requirement.level)}</td><td>{_badge(result.status, result.expected)}{note}</td>"
            f"<td>{_tests_cell(c, result)}</td>"
            f'<td class="text">{escape(requirement.text)}<br><i>{escape(requirement.section)}</i></td></tr>'
        )
    return (
        "<h2>Requirements</h2><table><tr><th>id</th><th>level</th><th>status</th><th>tests</th><th>requirement</th></tr>"
        + "\n".join(rows)
        + "</table>"
    )


def _tests_cell(c: Certification, result: RequirementResult) -> str:
    """The tests of a requirement: failing ones always in sight, the others folded when there are many."""

    requirement_id = result.requirement.id

    def item(test: TestOutcome) -> str:
        name = escape(test.nodeid)
        outcome = test.outcome_for(requirement_id)
        if outcome in FAILING:
            name = f'<a href="#{escape(_anchor(test.nodeid))}">{name}</a>'
        return f"<li>{_badge(outcome, c.test_expected(test, requirement_id))} {name}</li>"

    failing = [test for test in result.tests if test.outcome_for(requirement_id) in FAILING]
    others = [test for test in result.tests if test.outcome_for(requirement_id) not in FAILING]
    html = "".join(map(item, failing))
    if len(others) > FOLDED_TESTS:
        counts = ", ".join(
            f"{sum(t.outcome_for(requirement_id) == outcome for t in others)} {outcome}"
            for outcome in TEST_OUTCOMES
            if any(t.outcome_for(requirement_id) == outcome for t in others)
        )
        folded = "".join(map(item, others))
        return (
            f'<ul class="tests">{html}</ul>'
            f'<details><summary>{counts}</summary><ul class="tests">{folded}</ul></details>'
        )
    return f'<ul class="tests">{html}{"".join(map(item, others))}</ul>'


def _failures(c: Certification) -> str:
    # The failures that decide the verdict first; then the others, in the order they ran.
    failing = sorted((t for t in c.outcomes if t.outcome in FAILING), key=lambda t: not c.test_counts_against(t))
    if not failing:
        return ""
    levels = {result.requirement.id: result for result in c.requirements}
    articles = [_failure(c, test, levels) for test in failing]
    return "<h2>Failing tests</h2>\n" + "\n".join(articles)


def _failure(c: Certification, test: TestOutcome, results: dict[str, RequirementResult]) -> str:
    cited = []
    for requirement_id in test.requirements:
        result = results.get(requirement_id)
        level = result.requirement.level if result else "not in the catalogue"
        cited.append(f'<a href="#r-{escape(requirement_id)}">{escape(requirement_id)}</a> ({escape(level)})')
    exchanges = [Exchange.from_dict(data) for data in test.exchanges]
    shown = exchanges[-EXCHANGES_SHOWN:]
    earlier = len(exchanges) - len(shown)
    html = [
        f'<article class="failure" id="{escape(_anchor(test.nodeid))}">',
        f"<h3>{_badge(test.outcome, c.test_expected(test))} {escape(test.nodeid)}</h3>",
        f"<p>Requirements: {', '.join(cited) or 'none cited'}</p>",
        _failure_note(c, test, results),
        f'<pre class="message">{escape(test.message or "(no message)")}</pre>',
    ]
    if not exchanges:
        html.append('<p class="note">The test made no HTTP exchange.</p>')
    else:
        html.append(
            f'<p class="note">{len(exchanges)} exchange(s)'
            + (f"; the last {len(shown)} shown, all of them in traffic.har" if earlier else "")
            + ".</p>"
        )
    for position, exchange in enumerate(shown):
        html.append(_exchange(exchange, open_=position == len(shown) - 1))
    html.append("</article>")
    return "\n".join(html)


def _failure_note(c: Certification, test: TestOutcome, results: dict[str, RequirementResult]) -> str:
    if c.test_counts_against(test):
        return ""
    levels = {results[r].requirement.level for r in test.requirements if r in results}
    if c.test_expected(test):
        why = "a listed expected failure"
    elif not levels:
        why = "it cites no requirement of the catalogue"
    elif levels == {"INFO"}:
        why = "informational: what it checks is not fixed by the contract"
    else:
        why = "what it checks is not a MUST requirement, or its failure is listed as expected"
    return f'<p class="note">Does not count against the verdict: {escape(why)}.</p>'


def _exchange(exchange: Exchange, *, open_: bool) -> str:
    arrow = "→" if exchange.direction == "outbound" else "← (to the receiver)"
    title = f"{arrow} {exchange.method} {exchange.url} — {exchange.status}"
    request = recorded_body(exchange.request_body, exchange.request_body_size, exchange.request_headers)
    response = recorded_body(exchange.response_body, exchange.response_body_size, exchange.response_headers)
    html = [
        f"<details{' open' if open_ else ''}><summary>{escape(title)}</summary>",
        f"<div>Request headers</div><pre>{escape(_header_lines(exchange.request_headers))}</pre>",
    ]
    if request.size:
        html.append(f"<div>Request body</div><pre>{escape(_shown(request))}</pre>")
    html.append(f"<div>Response headers</div><pre>{escape(_header_lines(exchange.response_headers))}</pre>")
    if response.size:
        html.append(f"<div>Response body</div><pre>{escape(_shown(response))}</pre>")
    if exchange.direction == "outbound":
        html.append(f"<div>Repeat it</div><pre>{escape(exchange.curl())}</pre>")
    html.append("</details>")
    return "\n".join(html)


def _header_lines(headers: dict[str, str]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in headers.items()) or "(none)"


def _shown(body: RecordedBody) -> str:
    """Text bodies as text (JSON indented), cut at BODY_CHARACTERS; others by size and content type."""
    if not body.data:
        return f"({body.size} bytes, not recorded)"
    if body.text is None:
        return f"({body.size} bytes of {body.mime_type or 'unknown type'}, not text: see traffic.har)"
    text = body.text
    if "json" in body.mime_type and not body.truncated:
        with contextlib.suppress(ValueError):  # not JSON after all: shown as it came
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    if len(text) > BODY_CHARACTERS:
        return text[:BODY_CHARACTERS] + f"\n… ({len(text) - BODY_CHARACTERS} more characters in traffic.har)"
    if body.truncated:
        return text + f"\n… (the record kept {len(body.data)} of {body.size} bytes)"
    return text
