"""`report.html`: the certification for a person. One self-contained file that works offline and from file://
(inline CSS and one small inline script, no external asset): the summary first (verdict, what the verdict
covers and which optional features the target does not offer, counts per status); then the requirements
grouped by the part of the contract they come from, with the contract's text, the parts and rows that failed
first, each failure with its first cause and the exchange that shows it (request, response, curl line, its
entry in traffic.har); a filter by status and a text search; last, every failing test with its exchanges.

report_page.py collects what the page shows; the Jinja2 templates in templates/ lay it out, with autoescape on:
everything that came from the target or the suite is escaped by the environment, so nothing reaches the page
unescaped by omission (pytest-html 4 renders its report the same way). The style and the script are assets
beside the templates, inlined. A Content-Security-Policy allows only them, by their hashes: should something of
the target's ever slip through the escaping, a browser still runs no script and loads nothing. Without the
script every row is shown."""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from conformance.certification.report_page import FOLDED_LIST, anchor_of, page_of, test_anchor

if TYPE_CHECKING:
    from conformance.certification.judgement import Certification

__all__ = ["CONTENT_SECURITY_POLICY", "to_html"]

_TEMPLATES = files("conformance.certification") / "templates"
_STYLE = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
# Plain DOM and no eval: the policy allows this exact text and nothing else.
_SCRIPT = (_TEMPLATES / "report.js").read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src {_hash(_STYLE)}; script-src {_hash(_SCRIPT)}; base-uri 'none'; form-action 'none'"
)
"""Only the page's own style and script run (by their hashes); nothing is loaded."""


@cache
def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("conformance.certification", "templates"),
        autoescape=True,
        undefined=StrictUndefined,  # a name the template misspells fails the report, never shows as nothing
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(anchor=anchor_of, test_anchor=test_anchor, first_line=_first_line)
    environment.globals["folded_list"] = FOLDED_LIST
    return environment


def to_html(certification: Certification) -> str:
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            page=page_of(certification),
            # the page's own text, not the target's: inlined as written, so that its hashes in the policy hold
            policy=Markup(CONTENT_SECURITY_POLICY),
            style=Markup(_STYLE),
            script=Markup(_SCRIPT),
        )
    )


def _first_line(message: str) -> str:
    return message.splitlines()[0] if message else ""
