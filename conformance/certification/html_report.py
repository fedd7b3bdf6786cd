"""`report.html`: the certification for a person. One self-contained file that works offline and from file://
(inline CSS and one small inline script, no external asset): the summary first (verdict, what the verdict
covers and which optional features the target does not offer, counts per status); then the requirements
grouped by the part of the contract they come from, with the contract's text, the parts and rows that failed
first, each failure with its first cause and the exchange that shows it (request, response, curl line, its
entry in traffic.har); a filter by status and a text search; last, every failing test with its exchanges.

Everything that came from the target or the suite is HTML-escaped. A Content-Security-Policy allows only the
page's own style and script, by their hashes: should something of the target's ever slip through the
escaping, a browser still runs no script and loads nothing. Without the script every row is shown."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
from html import escape
from typing import TYPE_CHECKING

from conformance.bodies import RecordedBody, recorded_body
from conformance.certification.causes import causes_of
from conformance.certification.document import certified_for
from conformance.certification.har import entry_numbers
from conformance.certification.judgement import FAILED, FAILING, STATUSES, TEST_OUTCOMES
from conformance.certification.todo import UNNAMED, to_do_of
from conformance.requirements import FEATURES
from conformance.traffic import Exchange

if TYPE_CHECKING:
    from conformance.certification.causes import Cause
    from conformance.certification.judgement import Certification, RequirementResult
    from conformance.outcomes import TestOutcome

__all__ = ["CONTENT_SECURITY_POLICY", "to_html"]

BODY_CHARACTERS = 4000
"""Characters of a body shown; the whole recorded body is in traffic.har."""
FOLDED_TESTS = 3
"""More passing or skipped tests of one requirement than this are folded under their counts."""
EXCHANGES_SHOWN = 8
"""The last exchanges of a failing test shown: the failure usually follows the last request."""
FAILING_IN_SIGHT = 10
"""More failing tests of one requirement than this are folded after the first ones."""
FOLDED_LIST = 12
"""Longer lists of the summary (requirements not exercised, ...) are folded under their length."""
ROW_EXCHANGES = 3
"""The last exchanges of a requirement's first failing test shown in its row; all of them are under Failing tests."""
_FAILED_FIRST = (FAILED, *(status for status in STATUSES if status != FAILED))

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
[hidden]{display:none!important}
main{max-width:1180px;margin:0 auto;padding:0 20px 40px}
header.verdict{padding:22px 20px;color:#fff}
header.verdict h1{margin:0;font-size:30px;letter-spacing:.5px}
header.verdict p{margin:6px 0 0;font-size:16px}
.conformant{background:#1f7a3d}.non-conformant{background:#b3261e}.incomplete{background:#8a5a00}
h2{margin:30px 0 10px;font-size:21px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
h3{margin:18px 0 6px;font-size:16px;word-break:break-word}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #d5d9e0;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eceff3}
td.id{white-space:nowrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
td.id div{font-family:system-ui,sans-serif;color:#6b7280;font-size:12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:16px 0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-word}
.tiles{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.tile{padding:6px 14px;border-radius:8px;min-width:84px;text-align:center}
.tile b{display:block;font-size:22px}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;white-space:nowrap}
.s-passed{background:#d8f0df;color:#14532d}.s-failed,.s-error{background:#fbd9d6;color:#7f1d1d}
.s-skipped,.s-partly-exercised{background:#fdf0c4;color:#6b4f00}
ul.clauses{margin:4px 0;padding-left:16px;font-size:12px}ul.clauses li.missing{color:#6b4f00}
.s-not-tested,.s-not-applicable{background:#e4e7ec;color:#384152}
.s-expected{background:#e6dcf7;color:#4c1d95}
.counts td,.counts th{text-align:center}
ul.tests{margin:0;padding-left:16px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;
word-break:break-all}
p.ids{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;margin:4px 0}
.text{font-size:14px}.section{color:#4b5563;font-size:12px;font-style:italic}
tr.failed>td:first-child{border-left:4px solid #b3261e}
table.requirements{table-layout:fixed}table.requirements th:nth-child(1){width:150px}
table.requirements th:nth-child(2){width:120px}table.requirements th:nth-child(4){width:30%}
details.evidence{border-left:4px solid #b3261e}
tr.requirement,article.failure{scroll-margin-top:96px}tr.requirement:target>td,article.failure:target{background:#fffbe6}
pre{background:#fff;border:1px solid #d5d9e0;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;
font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;margin:4px 0}
pre.message{border-left:4px solid #b3261e;max-height:18em;overflow-y:auto;word-break:break-word}
details{background:#fff;border:1px solid #d5d9e0;margin:6px 0;padding:4px 8px}
summary{cursor:pointer;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;word-break:break-all}
article.failure{background:#fff;border:1px solid #d5d9e0;padding:4px 14px 12px;margin:14px 0}
.note{color:#6b7280;font-size:13px}
ul.todo{list-style:none;padding:0;margin:8px 0}
li.todo-item{position:relative;background:#fff;border:1px solid #d5d9e0;margin:6px 0;padding:6px 10px 6px 36px}
li.todo-item::before{content:"";position:absolute;left:10px;top:9px;width:14px;height:14px;border:2px solid #8a5a00;
border-radius:3px;background:#fff}
li.todo-item.unnamed::before{border-style:dashed}
.todo-what{font-weight:600;word-break:break-word}
li.todo-item p.ids{margin:2px 0}li.todo-item details{border:0;padding:0;margin:2px 0}
ul.why{margin:2px 0;padding-left:18px;font-size:13px;word-break:break-word}
p.to-exercise{margin:4px 0;padding:2px 8px;border-left:4px solid #8a5a00;font-size:13px;word-break:break-word}
#controls{position:sticky;top:0;z-index:1;background:#f6f7f9;padding:8px 0;border-bottom:1px solid #d5d9e0;
display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}
#controls label{white-space:nowrap}
#search{font:inherit;padding:3px 8px;min-width:260px;flex:1}
"""

# Plain DOM and no eval: the policy allows this exact text and nothing else.
_SCRIPT = """
(function () {
  "use strict";
  var controls = document.getElementById("controls");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var boxes = Array.prototype.slice.call(controls.querySelectorAll("input[name=status]"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.requirement"));
  var parts = Array.prototype.slice.call(document.querySelectorAll("section.part"));
  var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });

  function apply() {
    var wanted = {};
    boxes.forEach(function (box) { wanted[box.value] = box.checked; });
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var count = 0;
    rows.forEach(function (row, i) {
      var visible = wanted[row.getAttribute("data-status")] === true &&
        words.every(function (word) { return texts[i].indexOf(word) !== -1; });
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    parts.forEach(function (part) {
      part.hidden = part.querySelector("tr.requirement:not([hidden])") === null;
    });
    shown.textContent = count + " of " + rows.length + " requirements shown";
  }

  function reveal() {
    // a link into a row the filter hides shows every row again, and opens the expanders around its target
    var target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target === null) { return; }
    if (target.closest("[hidden]") !== null) {
      boxes.forEach(function (box) { box.checked = true; });
      search.value = "";
      apply();
    }
    for (var node = target; node !== null; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; }
    }
    target.scrollIntoView();
  }

  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  search.addEventListener("input", apply);
  window.addEventListener("hashchange", reveal);
  controls.hidden = false;
  apply();
  reveal();
})();
"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src {_hash(_STYLE)}; script-src {_hash(_SCRIPT)}; base-uri 'none'; form-action 'none'"
)
"""Only the page's own style and script run (by their hashes); nothing is loaded."""


def to_html(certification: Certification) -> str:
    c = certification
    verdict = c.verdict.capitalize()
    target = c.base_url + (" (the embedded reference implementation)" if c.embedded else "")
    har = entry_numbers(c)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>eris certification: {escape(verdict)} — {escape(c.base_url)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<header class="verdict {escape(c.verdict)}"><h1>{escape(verdict)}</h1>',
        f"<p>{escape(target)}</p></header><main>",
        '<section id="summary"><h2>Summary</h2>',
        _facts(c),
        _tiles(c),
        _counts(c),
        _lists(c),
        _causes(c),
        "</section>",
        _warnings(c),
        _requirements(c, har),
        _failures(c, har),
        "</main>",
        f"<script>{_SCRIPT}</script>",
        "</body></html>\n",
    ]
    return "\n".join(part for part in parts if part)


def _facts(c: Certification) -> str:
    duration = (c.finished - c.started).total_seconds()
    absent = [feature for feature in FEATURES if feature not in c.features]
    rows = [
        ("Target", c.base_url),
        ("Certified for", certified_for(c)),
        *(
            [
                (
                    "Not offered",
                    f"{', '.join(absent)}: the target does not declare them, their requirements are not applicable",
                )
            ]
            if absent
            else []
        ),
        *([("Selection", c.selection)] if c.selection else []),
        *([("Deviations", ", ".join(c.deviations))] if c.deviations else []),
        *(
            [("Property phase", f"{c.properties['examples']} examples a property, seed {c.properties.get('seed')}")]
            if c.properties.get("examples")
            else []
        ),
        *([("Back-off", str(c.run["backoff"]))] if c.run.get("backoff") else []),
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


def _tiles(c: Certification) -> str:
    counts = c.counts
    tiles = "".join(
        f'<div class="tile s-{escape(status)}"><b>{counts[status]}</b>{escape(status)}</div>'
        for status in _FAILED_FIRST
    )
    return f'<h3>Requirements</h3><div class="tiles">{tiles}</div>'


def _counts(c: Certification) -> str:
    """The tests' outcomes (the requirements' are the tiles above)."""
    test_counts = c.test_counts
    return (
        '<table class="counts"><tr><th></th>'
        + "".join(f"<th>{escape(outcome)}</th>" for outcome in TEST_OUTCOMES)
        + "</tr><tr><th>tests</th>"
        + "".join(f"<td>{test_counts[outcome]}</td>" for outcome in TEST_OUTCOMES)
        + "</tr></table>"
    )


def _lists(c: Certification) -> str:
    """The summary's lists: what decided the verdict, then what is missing for one (the to-do list), then the
    expected failures and the ids that matched nothing."""
    sections = [
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
    html = [_id_list("MUST requirements failed", c.failed_must, "", linked=True), _to_do(c)]
    html += [_id_list(title, items, note, linked=linked) for title, items, note, linked in sections]
    return "\n".join(part for part in html if part)


def _id_list(title: str, items: list[str], note: str, *, linked: bool) -> str:
    if not items:
        return ""
    # Inline, not one line each, and folded when long: a list of dozens must not push the requirements out of sight.
    entries = f'<p class="ids">{", ".join(_link(item) if linked else escape(item) for item in items)}</p>'
    if len(items) > FOLDED_LIST:
        entries = f"<details><summary>{len(items)} requirements</summary>{entries}</details>"
    return f"<h3>{escape(title)}</h3>" + (f'<p class="note">{escape(note)}</p>' if note else "") + entries


def _to_do(c: Certification) -> str:
    """What would exercise the MUST requirements not exercised, as a to-do list: one item per thing to provide, with
    the requirements it would exercise and, folded, why each was not exercised."""
    items = to_do_of(c)
    if not items:
        return ""
    count = len(c.incomplete)
    html = [
        f'<h3 id="to-do">To do: what would exercise the {count} MUST requirement{"" if count == 1 else "s"} '
        "not exercised</h3>",
        '<p class="note">A run is conformant only when every applicable MUST requirement was exercised. Each item is '
        "one thing to provide: a [data] entry of the target description, a token, a feature, an option, or data "
        "the target serves; the next run exercises the requirements listed under it.</p>",
        '<ul class="todo">',
    ]
    for item in items:
        ids = item.requirements
        links = f'<p class="ids">{", ".join(map(_link, ids))}</p>'
        if len(ids) > FOLDED_LIST:
            links = f"<details><summary>{len(ids)} requirements</summary>{links}</details>"
        reasons = "".join(f"<li>{escape(f'{key}: {why}')}</li>" for key, why in item.reasons.items())
        what = f'<span class="todo-what">{escape(item.shown)}</span>'
        html.append(
            f'<li class="todo-item{"" if item.to_exercise else " unnamed"}">{what} '
            f'<span class="note">exercises {len(ids)} MUST requirement{"" if len(ids) == 1 else "s"}:</span>{links}'
            f'<details class="why"><summary>why {"it was" if len(ids) == 1 else "they were"} not exercised</summary>'
            f'<ul class="why">{reasons}</ul></details></li>'
        )
    html.append("</ul>")
    return "\n".join(html)


def _causes(c: Certification) -> str:
    """The failed requirements grouped by their first cause, when some share one."""
    causes = causes_of(c)
    if all(len(cause.requirements) == 1 for cause in causes):
        return ""
    rows = "".join(
        f"<tr><td>{_link(cause.lead)}</td><td>{escape(_first_line(cause.message))}</td>"
        f"<td>{', '.join(_link(r) for r in cause.requirements[1:])}</td></tr>"
        for cause in causes
    )
    return (
        f"<h3>{len(causes)} causes of {sum(len(c_.requirements) for c_ in causes)} failed requirements</h3>"
        '<p class="note">Failures whose first message says the same, the particulars taken out, are one cause.</p>'
        f"<table><tr><th>first failed</th><th>cause</th><th>the same cause also failed</th></tr>{rows}</table>"
    )


def _warnings(c: Certification) -> str:
    """The validator's warnings on served data, one row each (a section of its own: it decides nothing)."""
    tally = c.warnings
    if not tally.warnings:
        return ""
    rows = "".join(
        f"<tr><td><code>{escape(w.code)}</code></td><td>{escape(w.item)}</td><td><code>{escape(w.location or '/')}"
        f"</code></td><td>{escape(w.message)}</td><td>{escape(w.where)}</td><td>{w.count}</td></tr>"
        for w in tally.warnings
    )
    more = f" and {tally.unlisted} more, not listed" if tally.unlisted else ""
    return (
        f'<section id="warnings"><h2>Warnings on served data: {len(tally.warnings)}{more}</h2>'
        '<p class="note">What eris validate reports as a warning in the items the target served, such as a registry '
        "number with a wrong check digit: data the contract allows, never a failure. Each is listed once, with the "
        "request that first served it and how many times the run met it.</p>"
        f"<details><summary>{len(tally.warnings)} warnings</summary><table><tr><th>code</th><th>item</th>"
        f"<th>location</th><th>message</th><th>served by</th><th>met</th></tr>{rows}</table></details></section>"
    )


def _first_line(message: str) -> str:
    return message.splitlines()[0] if message else ""


def _link(item: str) -> str:
    anchor = _anchor(item) if "::" in item else f"r-{item}"
    return f'<a href="#{escape(anchor)}">{escape(item)}</a>'


def _anchor(nodeid: str) -> str:
    return "t-" + "".join(character if character.isalnum() else "-" for character in nodeid)


def _badge(status: str, expected: bool = False) -> str:
    label = f"{status} (expected)" if expected else status
    kind = "expected" if expected else status
    return f'<span class="badge s-{escape(kind)}">{escape(label)}</span>'


def _part(section: str) -> str:
    """The part of the contract a catalogue section names: its first heading ("Endpoints / Fixed assets;
    Limits" -> "Endpoints")."""
    return section.split(";", 1)[0].split(" / ", 1)[0].strip()


def _rank(result: RequirementResult) -> int:
    """Failures that decide the verdict first, then the other failures, then the rest."""
    if result.counts_against:
        return 0
    return 1 if result.status == FAILED else 2


def _requirements(c: Certification, har: dict[tuple[int, int], int]) -> str:
    by_part: dict[str, list[RequirementResult]] = {}
    for result in c.requirements:  # the catalogue's order, which follows the contract
        by_part.setdefault(_part(result.requirement.section), []).append(result)
    # sorted() is stable: inside a rank, parts and rows keep the catalogue's order
    parts = sorted(by_part.items(), key=lambda item: min(map(_rank, item[1])))
    causes = {cause.lead: cause for cause in causes_of(c)}
    same_cause = {r: cause for cause in causes.values() for r in cause.requirements[1:]}
    positions = {id(test): position for position, test in enumerate(c.outcomes)}
    html = [
        '<section id="requirements"><h2>Requirements by part of the contract</h2>',
        '<p class="note">Failed requirements first, each with its first cause and the exchange that shows it; '
        "then the others in the contract's order.</p>",
        # shown by the script: without it there is nothing to filter with, and every row is in sight
        '<div id="controls" role="search" hidden><span>Status:</span>',
        *(
            f'<label><input type="checkbox" name="status" value="{escape(status)}" checked> '
            f"{escape(status)} ({c.counts[status]})</label>"
            for status in _FAILED_FIRST
        ),
        '<input type="search" id="search" placeholder="Search id, text, test, message…" aria-label="search">',
        '<span id="shown" class="note"></span></div>',
    ]
    for part, results in parts:
        results = sorted(results, key=_rank)
        counts = ", ".join(f"{n} {status}" for status in STATUSES if (n := sum(r.status == status for r in results)))
        rows = [_requirement_row(c, result, causes, same_cause, positions, har) for result in results]
        html.append(
            f'<section class="part" data-part="{escape(part)}"><h3>{escape(part)} '
            f'<span class="note">({escape(counts)})</span></h3>'
            '<table class="requirements"><tr><th>id</th><th>status</th><th>requirement</th><th>tests</th></tr>'
            + "\n".join(rows)
            + "</table></section>"
        )
    html.append("</section>")
    return "\n".join(html)


def _requirement_row(
    c: Certification,
    result: RequirementResult,
    causes: dict[str, Cause],
    same_cause: dict[str, Cause],
    positions: dict[int, int],
    har: dict[tuple[int, int], int],
) -> str:
    requirement = result.requirement
    note = f'<div class="note">{escape(result.note)}</div>' if result.note else ""
    cell = [
        f'<div class="text">{escape(requirement.text)}</div>',
        f'<div class="section">{escape(requirement.section)}</div>',
    ]
    if result.status == FAILED:
        cell.append(_first_cause(c, result, causes, same_cause, positions, har))
    if result.clauses:
        cell.append(_clauses(result))
    if result.unexercised:
        to_exercise = "; ".join(result.to_exercise) or UNNAMED
        cell.append(
            f'<p class="to-exercise">Not exercised: {escape(result.unexercised)}.<br>'
            f'<a href="#to-do">To exercise</a>: {escape(to_exercise)}</p>'
        )
    return (
        f'<tr class="requirement {escape(result.status)}" id="r-{escape(requirement.id)}" '
        f'data-status="{escape(result.status)}">'
        f'<td class="id">{escape(requirement.id)}<div>{escape(requirement.level)}</div></td>'
        f"<td>{_badge(result.status, result.expected)}{note}</td>"
        f"<td>{''.join(cell)}</td>"
        f'<td class="tests">{_tests_cell(c, result)}</td></tr>'
    )


def _clauses(result: RequirementResult) -> str:
    """Each clause with the request that exercised it, or why none did and what would."""
    items = []
    for clause in result.clauses:
        if clause.exercised:
            items.append(f"<li><b>{escape(clause.text)}</b>: exercised by {escape(clause.exercised)}</li>")
        else:
            to_exercise = f"; to exercise it: {escape(clause.to_exercise)}" if clause.to_exercise else ""
            items.append(
                f'<li class="missing"><b>{escape(clause.text)}</b>: not exercised: {escape(clause.reason)}{to_exercise}'
                "</li>"
            )
    return f'<ul class="clauses">{"".join(items)}</ul>'


def _first_cause(
    c: Certification,
    result: RequirementResult,
    causes: dict[str, Cause],
    same_cause: dict[str, Cause],
    positions: dict[int, int],
    har: dict[tuple[int, int], int],
) -> str:
    requirement_id = result.requirement.id
    html = [f'<pre class="message">{escape(result.message or "(no message)")}</pre>']
    if (cause := causes.get(requirement_id)) and len(cause.requirements) > 1:
        html.append(
            '<p class="note">The same cause also failed: ' + ", ".join(map(_link, cause.requirements[1:])) + "</p>"
        )
    elif cause := same_cause.get(requirement_id):
        html.append(f'<p class="note">The same cause as {_link(cause.lead)}</p>')
    failing = next(test for test in result.tests if test.outcome_for(requirement_id) in FAILING)
    if not failing.exchanges:
        html.append(f'<p class="note">{_link(failing.nodeid)} made no HTTP exchange.</p>')
        return "".join(html)
    total = len(failing.exchanges)
    first = max(total - ROW_EXCHANGES, 0)
    shown = f"the last {total - first} of {total} exchanges" if first else f"{total} exchange(s)"
    html.append(
        f'<details class="evidence"><summary>Evidence: {shown} of {escape(failing.nodeid)}</summary>'
        f'<p class="note">The whole test: {_link(failing.nodeid)}</p>'
    )
    html.extend(
        _exchange(
            Exchange.from_dict(failing.exchanges[position]),
            open_=position == total - 1,
            har_entry=har.get((positions[id(failing)], position)),
        )
        for position in range(first, total)
    )
    html.append("</details>")
    return "".join(html)


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
    html = "".join(map(item, failing[:FAILING_IN_SIGHT]))
    if len(failing) > FAILING_IN_SIGHT:
        # one defect can fail dozens of tests of a requirement: the row must stay readable
        more = failing[FAILING_IN_SIGHT:]
        html += f'<li><details><summary>{len(more)} more failed</summary><ul class="tests">'
        html += "".join(map(item, more)) + "</ul></details></li>"
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


def _failures(c: Certification, har: dict[tuple[int, int], int]) -> str:
    # The failures that decide the verdict first; then the others, in the order they ran.
    failing = sorted(
        ((position, t) for position, t in enumerate(c.outcomes) if t.outcome in FAILING),
        key=lambda pair: not c.test_counts_against(pair[1]),
    )
    if not failing:
        return ""
    levels = {result.requirement.id: result for result in c.requirements}
    articles = [_failure(c, position, test, levels, har) for position, test in failing]
    return '<section id="failures"><h2>Failing tests</h2>\n' + "\n".join(articles) + "</section>"


def _failure(
    c: Certification,
    test_position: int,
    test: TestOutcome,
    results: dict[str, RequirementResult],
    har: dict[tuple[int, int], int],
) -> str:
    cited = []
    for requirement_id in test.requirements:
        result = results.get(requirement_id)
        level = result.requirement.level if result else "not in the catalogue"
        cited.append(f'<a href="#r-{escape(requirement_id)}">{escape(requirement_id)}</a> ({escape(level)})')
    exchanges = [Exchange.from_dict(data) for data in test.exchanges]
    first = max(len(exchanges) - EXCHANGES_SHOWN, 0)
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
            + (f"; the last {len(exchanges) - first} shown, all of them in traffic.har" if first else "")
            + ".</p>"
        )
    for position in range(first, len(exchanges)):
        html.append(
            _exchange(
                exchanges[position],
                open_=position == len(exchanges) - 1,
                har_entry=har.get((test_position, position)),
            )
        )
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


def _exchange(exchange: Exchange, *, open_: bool, har_entry: int | None) -> str:
    arrow = "→" if exchange.direction == "outbound" else "← (to the receiver)"
    title = f"{arrow} {exchange.method} {exchange.url} — {exchange.status}"
    request = recorded_body(exchange.request_body, exchange.request_body_size, exchange.request_headers)
    response = recorded_body(exchange.response_body, exchange.response_body_size, exchange.response_headers)
    html = [
        f'<details class="exchange"{" open" if open_ else ""}><summary>{escape(title)}</summary>',
        f"<div>Request</div><pre>{escape(f'{exchange.method} {exchange.url}')}\n"
        f"{escape(_header_lines(exchange.request_headers))}</pre>",
    ]
    if request.size:
        html.append(f"<div>Request body</div><pre>{escape(_shown(request))}</pre>")
    html.append(f"<div>Response</div><pre>{exchange.status}\n{escape(_header_lines(exchange.response_headers))}</pre>")
    if response.size:
        html.append(f"<div>Response body</div><pre>{escape(_shown(response))}</pre>")
    if exchange.direction == "outbound":
        html.append(f'<div>Repeat it</div><pre class="curl">{escape(exchange.curl(token_from_environment=True))}</pre>')
    if har_entry is not None:
        html.append(
            f'<p class="note">In traffic.har: entry {har_entry + 1} (log.entries[{har_entry}]), '
            "with the whole recorded bodies.</p>"
        )
    html.append("</details>")
    return "\n".join(html)


def _header_lines(headers: dict[str, str]) -> str:
    return "\n".join(f"{name}: {_shown_header(name, value)}" for name, value in headers.items()) or "(no headers)"


def _shown_header(name: str, value: str) -> str:
    """A report is passed around (a CI artifact): the run's bearer token is not printed in it, as in its curl lines."""
    if name.lower() == "authorization" and value.startswith("Bearer "):
        return "Bearer $ERIS_TOKEN (the run's token, not shown)"
    return value


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
