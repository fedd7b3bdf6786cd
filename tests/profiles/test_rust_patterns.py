"""The patterns of the schema files in the form the verdict-only validators run (profiles/rust_patterns.py) give the
verdicts of the patterns as written, on strings matching them with each character replaced by every other, with a
line terminator put anywhere, and on any string at all."""

from __future__ import annotations

import re

import jsonschema_rs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from profiles.rust_patterns import LOOKAHEAD, fast_form, with_fast_patterns
from profiles.validator import Validator
from schemas import load_schemas

DOCUMENTS = load_schemas()


def _patterns(node: object) -> list[str]:
    if isinstance(node, list):
        return [found for item in node for found in _patterns(item)]
    if not isinstance(node, dict):
        return []
    own = [node["pattern"]] if type(node.get("pattern")) is str and node["pattern"].startswith(LOOKAHEAD) else []
    return own + [found for value in node.values() for found in _patterns(value)]


PATTERNS = sorted({found for document in DOCUMENTS.values() for found in _patterns(document)})
TERMINATORS = "\n\r\u2028\u2029\x85"
CHARACTERS = [chr(code) for code in [*range(0x3100), 0xFEFF, 0xFFFD, 0x1F600, 0x10FFFF] if not 0xD800 <= code < 0xE000]
"""Every character where the engines' classes could differ (both agree above U+3100 but for U+FEFF), and a few more."""


def _both(pattern: str) -> tuple[object, object]:
    written = {"type": "string", "pattern": pattern}
    return jsonschema_rs.validator_for(written), jsonschema_rs.validator_for(with_fast_patterns({"": written})[""])


def test_every_pattern_of_the_schema_files_has_a_fast_form() -> None:
    assert len(PATTERNS) >= 4, PATTERNS  # dateTime, date, uri, base64: nothing held equal would pass vacuously
    assert [pattern for pattern in PATTERNS if fast_form(pattern) is None] == []


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_character_in_every_place_gets_the_written_verdict(pattern: str) -> None:
    written, fast = _both(pattern)
    body = pattern.removeprefix(LOOKAHEAD).removesuffix("$")
    sample = _matching(body)
    assert written.is_valid(sample) and fast.is_valid(sample)
    for place in range(len(sample) + 1):
        for character in CHARACTERS:
            for value in (
                sample[:place] + character + sample[place + 1 :],
                sample[:place] + character + sample[place:],
            ):
                assert written.is_valid(value) == fast.is_valid(value), (pattern, value)


def _matching(body: str) -> str:
    return {
        "[0-9]{4}": "2024-05-01T12:00:00.5+01:00" if "T" in body else "2024-05-01",
        "[A-Za-z]": "urn:oid:1.2.616",
        "(?:[A-Za-z0-9+/]{4})": "QUJDRA==",
    }[next(start for start in ("[0-9]{4}", "[A-Za-z]", "(?:[A-Za-z0-9+/]{4})") if body.startswith(start))]


@pytest.mark.parametrize("pattern", PATTERNS)
@given(data=st.data())
def test_generated_strings_get_the_written_verdict(pattern: str, data: st.DataObject) -> None:
    written, fast = _both(pattern)
    body = pattern.removeprefix(LOOKAHEAD).removesuffix("$")
    matching = data.draw(st.from_regex(re.compile(f"^{body}$", re.ASCII), fullmatch=True), label="matching")
    cut = data.draw(st.integers(0, len(matching)), label="at")
    terminator = data.draw(st.sampled_from(TERMINATORS), label="terminator")
    for value in (matching, matching[:cut] + terminator + matching[cut:], data.draw(st.text(), label="any")):
        assert written.is_valid(value) == fast.is_valid(value), repr(value)


@pytest.mark.parametrize(
    "pattern", [LOOKAHEAD + "a\\db$", LOOKAHEAD + "a\\wb$", LOOKAHEAD + "a.b$", LOOKAHEAD + "(?=a)a$", "^a\\sb$"]
)
def test_what_the_engines_read_differently_is_left_as_written(pattern: str) -> None:
    assert fast_form(pattern) is None
    assert with_fast_patterns({"": {"pattern": pattern}}) == {"": {"pattern": pattern}}


def test_the_engines_do_read_class_escapes_differently() -> None:
    """Why \\s is written out and \\d left alone: were the engines to agree one day, this says so."""
    written, plain = (jsonschema_rs.validator_for({"pattern": p}) for p in (LOOKAHEAD + "\\s$", "^\\s$"))
    assert written.is_valid("\x85") and not plain.is_valid("\x85")
    assert plain.is_valid("\ufeff") and not written.is_valid("\ufeff")
    assert fast_form(LOOKAHEAD + "\\s$") is not None
    fast = jsonschema_rs.validator_for({"pattern": fast_form(LOOKAHEAD + "\\s$")})
    assert fast.is_valid("\x85") and not fast.is_valid("\ufeff")


@given(value=st.text(alphabet=st.sampled_from("ab\n\r\u2028x "), max_size=6))
@example("a\nb")
def test_the_newline_check_holds_where_the_body_could_match_one(value: str) -> None:
    written, fast = _both(LOOKAHEAD + "a[\\s]b$")  # its body matches "a\nb": ^X$ alone would pass it
    assert written.is_valid(value) == fast.is_valid(value), repr(value)


def test_the_newline_check_is_what_refuses_a_newline_the_body_would_take() -> None:
    written, fast = _both(LOOKAHEAD + "a[\\s]b$")
    without_check = jsonschema_rs.validator_for({"type": "string", "pattern": fast_form(LOOKAHEAD + "a[\\s]b$")})
    assert without_check.is_valid("a\nb")  # the defect the check is there for
    assert not written.is_valid("a\nb")
    assert not fast.is_valid("a\nb")


def test_instances_inside_a_schema_are_not_rewritten() -> None:
    pattern = LOOKAHEAD + "[0-9]+$"
    schema = {
        "const": {"pattern": pattern},
        "enum": [{"pattern": pattern}],
        "not": {"type": "null"},
        "pattern": pattern,
    }
    rewritten = with_fast_patterns({"": schema})[""]
    assert rewritten["const"] == {"pattern": pattern}
    assert rewritten["enum"] == [{"pattern": pattern}]
    assert rewritten["pattern"] == "^[0-9]+$"
    assert rewritten["not"] == {"type": "null"}  # a `not` already there is kept; the newline check goes in allOf
    assert rewritten["allOf"] == [{"not": {"pattern": "\n"}}]
    assert schema["pattern"] == pattern  # the documents given are copied, not changed


def test_reported_pattern_findings_still_come_from_the_files_as_written() -> None:
    party = {"resourceType": "Party", "id": "p", "identifier": [{"system": "urn:x\n", "value": "1"}]}
    issues = Validator().validate(party)
    found = [issue for issue in issues if issue.location == "/identifier/0/system"]
    assert found and all(issue.code == "schema-pattern" for issue in found), issues
