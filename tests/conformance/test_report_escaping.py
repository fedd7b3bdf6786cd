"""report.html shows whatever a target or a test chose as text: a `<script>` in a response body, a header, a URL, a
clause value, a message or a test id is escaped by the templates' environment, never by a call someone may forget."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hostile_reports import FAILED_TEST, MARKUP, hostile_certification
from markupsafe import escape

import conformance.certification.html_report as html_report
from conformance.certification.html_report import to_html

TEMPLATES = Path(html_report.__file__).with_name("templates")


def test_markup_from_the_target_and_the_tests_is_shown_as_text():
    page = to_html(hostile_certification())
    assert page.lower().count("<script") == 1 and "<img" not in page.lower()  # the page's own script alone
    shown = escape(MARKUP)
    assert f'<pre class="message">answered {shown}</pre>' in page
    assert f"{escape(FAILED_TEST)}</h3>" in page  # the failing test's heading
    assert f"<b>a</b>: exercised by GET /v1/x?a={shown}</li>" in page
    assert f"<b>b</b>: not exercised: no item carries {shown}" in page
    assert escape(f'"detail": {json.dumps(MARKUP)}') in page  # the response body, as indented JSON
    assert f"x-note: {shown}" in page
    assert f"GET http://t.example/v1/x?a={shown}" in page


def test_the_templates_escape_everything_and_never_opt_out():
    """Autoescape is on for every template, and no template marks a value as safe: the only text the page takes
    as markup is its own style, script and policy, passed by html_report.py."""
    templates = sorted(TEMPLATES.glob("*.j2"))
    assert templates and html_report._environment().autoescape is True
    for template in templates:
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup", text), template.name
