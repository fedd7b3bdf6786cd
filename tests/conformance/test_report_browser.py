"""report.html in a real browser: Debian's chromium, headless, driven by Playwright, opens the report of a real
certification run from file:// and uses it as a person would: the summary first, the failed part first, the
status filter, the search and an expander, with no error on the console and nothing refused by the page's
Content-Security-Policy. A screenshot is kept as report.png in $ERIS_ARTIFACTS_DIR (default: a temporary folder,
printed) for CI to keep.

The browser is Debian's (`.ci/install-browser`), never Playwright's download: `playwright install` fetches builds
from a CDN that CI need not reach. Where the browser or Playwright is missing the test is skipped saying which,
unless ERIS_REQUIRE_BROWSER=1 or ERIS_REQUIRE_STORES=1 (.ci/run sets both): then it fails."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_reports import FAILED_TEST, MARKUP, hostile_certification
from project_paths import run_certify

from conformance.certification.html_report import to_html
from conformance.certification.judgement import WHOLE_SUITE
from conformance.run.embedded import EmbeddedReference

pytestmark = pytest.mark.slow  # a headless Chromium opens report.html

CHROMIUM = os.environ.get("ERIS_CHROMIUM", "/usr/bin/chromium")
REQUIRED = "1" in (os.environ.get("ERIS_REQUIRE_BROWSER"), os.environ.get("ERIS_REQUIRE_STORES"))
RUN_TIMEOUT = 120
STATUSES = ("passed", "partly-exercised", "failed", "not-tested", "not-applicable")
"""The statuses this run has rows of (its skipped tests are the notification tests, of a feature not declared;
ERIS-FILTER-004 is partly exercised: its clauses are sent by the filter tests this selection leaves out)."""
FAULT = "party-status-filter-ignored"
"""Breaks ERIS-FILTER-005, of the part Endpoints, which the catalogue lists after Resources and their fields: the
failed part must move ahead of parts that passed."""
SELECTION = ("ERIS-FILTER-005", "ERIS-PARTY-003", "ERIS-EVT-001")
"""A few seconds of the real suite: passes, the failure, skipped notification tests."""


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """report.html of the real suite run against the reference implementation served with a fault, declaring no
    optional feature (so their requirements are not applicable)."""
    folder = tmp_path_factory.mktemp("report")
    with EmbeddedReference((FAULT,)) as server:
        description = server.description.read_text(encoding="utf-8")
        description, declared = re.subn(
            r"(?ms)^\[features\]\n.*?(?=^\[|\Z)", "[features]\nnotifications = false\nstorage = []\n\n", description
        )
        assert declared == 1, description
        config = folder / "target.toml"
        config.write_text(description, encoding="utf-8")
        selection = [option for requirement in SELECTION for option in ("--requirement", requirement)]
        options = ["--config", str(config), *selection, "--examples", "0", "-q", "--report-dir", str(folder / "out")]
        result = run_certify(*options, timeout=RUN_TIMEOUT)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # non-conformant
    assert re.search(
        r"\d+ passed, \d+ partly-exercised, 1 failed, 0 skipped, \d+ not-tested, [1-9]\d* not-applicable", result.stdout
    ), result.stdout
    return folder / "out" / "report.html"


def _missing() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright (pip install -e '.[test]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"Debian's chromium at {CHROMIUM} (bash .ci/install-browser)"
    return ""


def _require_browser(*, required: bool) -> None:
    if missing := _missing():
        if required:
            pytest.fail(f"ERIS_REQUIRE_BROWSER (or ERIS_REQUIRE_STORES) is set but {missing} is missing")
        pytest.skip(f"the browser test needs {missing}")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    _require_browser(required=REQUIRED)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def artifacts() -> Path:
    folder = Path(os.environ.get("ERIS_ARTIFACTS_DIR") or tempfile.mkdtemp(prefix="eris-artifacts-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# Records what the policy refuses before any of the page's own script runs (an init script is not subject to
# the page's policy): a refused inline script would otherwise just be missing.
_WATCH_POLICY = """
window.__refused = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__refused.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


# browser before report: where the browser is missing, the test skips before the certification run
def test_the_report_reads_filters_searches_and_expands_in_chromium(browser, report, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.set_default_timeout(5000)  # a local file: what is not there in 5 s will not come
    problems: list[str] = []
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning") else None)  # fmt: skip
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    page.add_init_script(_WATCH_POLICY)
    page.goto(report.as_uri())

    # the summary first: the verdict in sight at the top, then the summary, then the requirements
    assert page.locator("main > *").first.get_attribute("id") == "summary"
    verdict = page.locator("header.verdict h1")
    assert verdict.inner_text() == "Non-conformant" and verdict.is_visible()
    assert verdict.bounding_box()["y"] < 100
    summary, requirements = page.locator("#summary"), page.locator("#requirements")
    assert summary.bounding_box()["y"] < requirements.bounding_box()["y"]
    assert "Not offered" in summary.inner_text()
    assert page.locator(".tile.s-failed b").inner_text() == "1"

    # the failed part first, its failed row first, with the contract's text and the first cause
    rows = page.locator("tr.requirement")
    total = rows.count()
    assert page.locator("section.part").first.get_attribute("data-part") == "Endpoints"
    assert rows.first.get_attribute("id") == "r-ERIS-FILTER-005"
    assert rows.first.get_attribute("data-status") == "failed"
    assert "answered items that do not match the filter" in rows.first.locator("pre.message").inner_text()
    statuses = {status: page.locator(f'tr.requirement[data-status="{status}"]').count() for status in STATUSES}
    assert all(statuses.values()), statuses  # each status the filter offers is there to hide
    visible = page.locator("tr.requirement:visible")
    assert visible.count() == total
    assert page.locator("#shown").inner_text() == f"{total} of {total} requirements shown"

    # the status filter hides and shows rows, and parts left empty
    _status_box(page, "passed").uncheck()
    assert visible.count() == total - statuses["passed"]
    assert page.locator('tr.requirement[data-status="passed"]:visible').count() == 0
    for status in ("partly-exercised", "not-tested", "not-applicable", "skipped"):
        _status_box(page, status).uncheck()
    assert visible.count() == 1 and visible.first.get_attribute("id") == "r-ERIS-FILTER-005"
    assert page.locator("section.part:visible").count() == 1
    assert page.locator("#shown").inner_text() == f"1 of {total} requirements shown"
    for status in ("passed", "partly-exercised", "not-tested", "not-applicable", "skipped"):
        _status_box(page, status).check()
    assert visible.count() == total

    # the search narrows rows: by id, then by words of the contract's text
    search = page.locator("#search")
    search.fill("eris-party-003")
    assert [visible.nth(i).get_attribute("id") for i in range(visible.count())] == ["r-ERIS-PARTY-003"]
    search.fill("parties parameters")
    assert 0 < visible.count() < total
    search.fill("no such words anywhere")
    assert visible.count() == 0 and page.locator("section.part:visible").count() == 0
    search.fill("")
    assert visible.count() == total

    # the evidence of the failure is folded; its expander shows the request and the curl line to repeat it
    evidence = rows.first.locator("details.evidence")
    curl = evidence.locator("pre.curl").last
    assert not curl.is_visible()
    evidence.locator("summary").first.click()
    assert curl.is_visible()
    assert curl.inner_text().startswith("curl -i -X GET 'http://127.0.0.1:")
    request = evidence.locator("details.exchange[open] pre").first
    assert request.is_visible() and "/v1/parties?status=" in request.inner_text()
    assert "In traffic.har: entry" in evidence.inner_text()

    # what is missing for a verdict is a to-do list: one checkbox-like item per thing to provide, each with the
    # requirements it would exercise (links to their rows) and, folded, why each was not exercised
    items = page.locator("#summary ul.todo > li.todo-item")
    assert items.count() >= 1 and all(items.nth(i).is_visible() for i in range(items.count()))
    assert items.first.bounding_box()["y"] < requirements.bounding_box()["y"]
    whole = items.filter(has=page.locator(".todo-what", has_text=WHOLE_SUITE))
    assert whole.count() == 1
    box = whole.evaluate(
        "item => { const s = getComputedStyle(item, '::before'); return [s.width, s.borderTopStyle]; }"
    )
    assert box == ["14px", "solid"], box
    why = whole.locator("details.why ul.why")
    assert not why.is_visible()
    whole.locator("details.why > summary").click()
    assert why.is_visible() and "not run in this selection" in why.inner_text()
    link = whole.locator("a[href^='#r-']").first
    if not link.is_visible():  # a long list of requirements is folded under its length
        whole.locator("details:not(.why) > summary").click()
    row_id = link.get_attribute("href")[1:]
    link.click()
    row = page.locator(f"tr.requirement[id='{row_id}']")
    assert row.is_visible() and "a run of the whole suite" in row.locator("p.to-exercise").inner_text()

    screenshot = artifacts / "report.png"
    page.screenshot(path=str(screenshot))
    print(f"screenshot of report.html: {screenshot}")
    refused = page.evaluate("window.__refused")
    assert refused == [] and problems == [], refused + problems


def test_a_targets_script_in_the_report_is_shown_as_text_and_never_runs(browser, tmp_path):
    """Markup in a response body, a clause value, a message and a test id reads as the characters the target sent:
    no element is made of it, and nothing of it runs."""
    report = tmp_path / "report.html"
    report.write_text(to_html(hostile_certification()), encoding="utf-8")
    page = browser.new_page()
    page.set_default_timeout(5000)
    page.add_init_script(_WATCH_POLICY)
    page.goto(report.as_uri())
    assert page.evaluate("document.scripts.length") == 1 and page.locator("img").count() == 0
    assert page.title().startswith("eris certification")  # the target's script would have renamed the page
    failure = page.locator("article.failure")
    assert failure.locator("h3").inner_text().endswith(FAILED_TEST)
    assert failure.locator("pre.message").inner_text() == f"answered {MARKUP}"
    assert MARKUP in failure.locator("details.exchange[open]").inner_text()  # the body and a header of the answer
    clauses = page.locator("#r-ERIS-X-001 ul.clauses").inner_text()
    assert f"a: exercised by GET /v1/x?a={MARKUP}" in clauses and f"no item carries {MARKUP}" in clauses
    assert page.evaluate("window.__refused") == []


def _status_box(page, status: str):
    return page.locator(f'#controls input[name="status"][value="{status}"]')


def test_a_missing_browser_is_skipped_naming_it_or_fails_where_required(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(pytest.skip.Exception, match=r"needs (Debian's chromium at /nonexistent/chromium|the Python)"):
        _require_browser(required=False)
    with pytest.raises(pytest.fail.Exception, match=r"is set but .* is missing"):
        _require_browser(required=True)
