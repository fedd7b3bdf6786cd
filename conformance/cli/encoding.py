"""The report text of what a unit of `eris validate` found, written where the unit is checked.

In a worker of --jobs, a unit's findings go back to the command as the text of its report and a few counts: a string
pickles in a fraction of the time of the Payload and Issue objects it was made from, and the command, which shares
the two cores with the workers, only writes it. The writers of conformance.cli.output write what they are handed one
payload at a time (HAR exchanges, Dask partitions) through the same functions, so both are the same text.

A line of an NDJSON span is known only when the spans before it are counted (conformance.cli.checking.renumbered):
the text is kept as a list in which an int is such a line, made into digits when the report is written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from conformance.cli.checking import Checked, Unit
from conformance.cli.inputs import Payload, ReadProblem
from profiles.issues import Issue, Severity

__all__ = ["ENCODERS", "Encoded", "Encoder", "UnitEncoder", "dumps", "joined", "one_line"]

Text = list[str | int]
"""Report text; an int is a line of the input, written as its digits after renumbering."""

SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFORMATION: "note"}
_HELD_LINE = 2**62 - 1
"""Written where a line goes, then cut out of the text: no input has so many lines, and `"line": <it>` (its key and
quotes unescaped) can only be the member written there, never text inside a string."""
_JSON_RESULT = "\n    "
"""What comes before each line of a result of the JSON report: the indentation of json.dump(indent=2) at its depth."""
_SARIF_RESULT = "\n        "


def dumps(value: Any, *, ensure_ascii: bool) -> str:
    """json.dumps(value, indent=2, ensure_ascii=...), the same text, written by orjson (a tenth of the time)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # a lone surrogate (a file name that is not UTF-8) orjson refuses: json writes it escaped
        return json.dumps(value, indent=2, ensure_ascii=ensure_ascii)
    if ensure_ascii and not text.isascii():
        return _NOT_ASCII.sub(_escaped, text)
    return text


_NOT_ASCII = re.compile("[^\x00-\x7e]")
"""orjson writes every character from DEL on as it is; json.dumps(ensure_ascii=True) as \\u escapes."""


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def one_line(text: str) -> str:
    """A finding is one line: a newline or other control character (in a file name, a member name, a value
    quoted in a message) is written escaped, so no input can forge a line of the output."""
    if text.isprintable():  # nearly every line: no character to look at one by one
        return text
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii") for ch in text)


def joined(text: Text, shift: int = 0) -> str:
    """The text, its lines moved down by `shift` (the lines of the spans of the file before its unit)."""
    return "".join([part if type(part) is str else str(part + shift) for part in text])  # type: ignore[operator]


def _with_line(text: str, key: str, line: int) -> Text:
    head, tail = text.split(f'"{key}": {_HELD_LINE}')
    return [f'{head}"{key}": ', line, tail]


class Encoder:
    """The report text of a payload with issues, and of an input that cannot be read, in one output format. A JSON
    or SARIF result begins with its comma: the writer drops the comma of its report's first."""

    def members(self, issues: list[Issue]) -> int:
        """The results of the report's array that the payload's text holds."""
        return 0

    def payload(self, payload: Payload, issues: list[Issue]) -> Text:
        raise NotImplementedError

    def problem(self, problem: ReadProblem) -> Text:
        """Text only: the JSON and SARIF reports list the inputs that cannot be read at their end."""
        return []


class TextEncoder(Encoder):
    def payload(self, payload: Payload, issues: list[Issue]) -> Text:
        source, prefix, line = payload.source, payload.prefix, payload.line
        text: Text = []
        head = one_line(source + ":")
        for issue in issues:
            where = prefix + issue.location or "(root)"
            tail = one_line(f":{where}: {issue.severity.value}: {issue.message} [{issue.code}]") + "\n"
            if line is None:
                text.append(head[:-1] + tail)
            else:
                text += (head, line, tail)
        return text

    def problem(self, problem: ReadProblem) -> Text:
        tail = one_line(f": error: cannot be read: {problem.message} [input-unreadable]") + "\n"
        column = "" if problem.column is None else f":{problem.column}"
        if problem.line is None:
            return [one_line(problem.source + column) + tail]
        return [one_line(problem.source + ":"), problem.line, one_line(column) + tail]


class JsonEncoder(Encoder):
    def members(self, issues: list[Issue]) -> int:
        return 1

    def payload(self, payload: Payload, issues: list[Issue]) -> Text:
        entry: dict[str, Any] = {"source": payload.source}
        if payload.line is not None:
            entry["line"] = _HELD_LINE
        if payload.prefix:
            entry["pointer"] = payload.prefix
        data = payload.data
        if isinstance(data, dict) and isinstance(data.get("resourceType"), str):
            entry["resourceType"] = data["resourceType"]
        listed, valid = [], True
        for issue in issues:  # Issue.to_dict, without its calls: the severity is written by orjson as its value
            severity = issue.severity
            valid = valid and severity is not _ERROR
            written = {"severity": severity, "code": issue.code, "location": issue.location, "message": issue.message}
            if issue.requirement:
                written["requirement"] = issue.requirement
            listed.append(written)
        entry["valid"] = valid
        entry["issues"] = listed
        text = "," + _JSON_RESULT + dumps(entry, ensure_ascii=False).replace("\n", _JSON_RESULT)
        return [text] if payload.line is None else _with_line(text, "line", payload.line)


class SarifEncoder(Encoder):
    """A SARIF result an issue. Results differ only in their values: the text of a result is made once from one of
    markers, cut at them, and each issue's values are written between the cuts (the result's dicts made and written
    whole cost a warned payload 5% of its time)."""

    def __init__(self) -> None:
        self._cuts: dict[tuple[bool, bool], list[str]] = {}

    def members(self, issues: list[Issue]) -> int:
        return len(issues)

    def payload(self, payload: Payload, issues: list[Issue]) -> Text:
        text: Text = []
        line, prefix = payload.line, payload.prefix
        uri = dumps(payload.source, ensure_ascii=True)
        for issue in issues:
            requirement = issue.requirement
            key = (line is not None, bool(requirement))
            cut = self._cuts.get(key) or self._cut(*key)
            head = (
                cut[0]
                + dumps(issue.code, ensure_ascii=True)
                + cut[1]
                + _QUOTED_LEVELS[issue.severity]
                + cut[2]
                + dumps(issue.message, ensure_ascii=True)
                + cut[3]
                + uri
                + cut[4]
            )
            tail = dumps(prefix + issue.location or "/", ensure_ascii=True) + cut[5]
            if requirement:
                tail += dumps(requirement, ensure_ascii=True) + cut[6]
            if line is None:
                text.append(head + tail)
            else:
                text += (head, line, cut[-1] + tail)
        return text

    def _cut(self, with_line: bool, with_requirement: bool) -> list[str]:
        """The text of a result cut at its values, in order: ruleId, level, message, uri, fullyQualifiedName and
        requirement, the text after the last one last; with a line, the text between uri and fullyQualifiedName cut
        at the line too, its part after the line appended."""
        location: dict[str, Any] = {"artifactLocation": {"uri": _MARKS["uri"]}}
        if with_line:
            location["region"] = {"startLine": _HELD_LINE}
        result: dict[str, Any] = {
            "ruleId": _MARKS["rule"],
            "level": _MARKS["level"],
            "message": {"text": _MARKS["message"]},
            "locations": [
                {
                    "physicalLocation": location,
                    "logicalLocations": [{"fullyQualifiedName": _MARKS["name"], "kind": "object"}],
                }
            ],
        }
        if with_requirement:
            result["properties"] = {"requirement": _MARKS["requirement"]}
        rest = "," + _SARIF_RESULT + dumps(result, ensure_ascii=True).replace("\n", _SARIF_RESULT)
        cut = []
        for name in _MARKS if with_requirement else list(_MARKS)[:-1]:
            before, _, rest = rest.partition(dumps(_MARKS[name], ensure_ascii=True))
            cut.append(before)
        cut.append(rest)
        if with_line:
            cut[4], _, after_line = cut[4].partition(str(_HELD_LINE))
            cut.append(after_line)
        self._cuts[with_line, with_requirement] = cut
        return cut


_MARKS = {name: f"\x00{name}\x00" for name in ("rule", "level", "message", "uri", "name", "requirement")}
"""Where the text of a result is cut: values no result has (a NUL is written escaped), in the order they are written."""
_QUOTED_LEVELS = {severity: f'"{level}"' for severity, level in SARIF_LEVELS.items()}


ENCODERS: dict[str, type[Encoder]] = {"text": TextEncoder, "json": JsonEncoder, "sarif": SarifEncoder}


@dataclass(slots=True)
class Encoded:
    """What a unit found, as report text and counts (a Checked, encoded)."""

    text: Text = field(default_factory=list)
    members: int = 0
    """Results of the JSON or SARIF array in `text`."""
    clean: int = 0
    reported: int = 0
    """Payloads with issues."""
    invalid: int = 0
    severities: Counter[str] = field(default_factory=Counter)
    rules: dict[str, str | None] = field(default_factory=dict)
    """The codes of the issues, each with the requirement of its first issue (the rules of a SARIF report)."""
    problems: list[ReadProblem] = field(default_factory=list)
    """The inputs that could not be read (in `text` too, for a text report)."""
    size: int = 0
    span_start: int | None = None
    lines: int = 0
    shift: int = 0
    """Lines of the spans of its file before it: added to every line of `text` when it is written."""

    def shift_lines(self, lines: int) -> None:
        self.shift = lines
        self.problems = [
            replace(problem, line=None if problem.line is None else problem.line + lines) for problem in self.problems
        ]


class UnitEncoder:
    """check(unit), encoded in one output format: the work of a process of `eris validate`. The payloads of an export
    that have the same findings have the same text but for their line: the text of a payload's findings is made once
    and kept (at most KEPT_TEXTS), its line put in for each payload."""

    def __init__(self, check: Callable[[Unit], Checked], output: str) -> None:
        self.check, self.encoder = check, ENCODERS[output]()
        self._texts: dict[tuple[Any, ...], Text] = {}

    def __call__(self, unit: Unit) -> Encoded:
        checked = self.check(unit)
        found = Encoded(clean=checked.clean, size=checked.size, span_start=checked.span_start, lines=checked.lines)
        if not checked.reported:
            return found
        text, rules, encoder = found.text, found.rules, self.encoder
        by_severity: dict[Severity, int] = dict.fromkeys(Severity, 0)
        reported = invalid = members = 0
        for item in checked.reported:
            if type(item) is ReadProblem:
                found.problems.append(item)
                text += encoder.problem(item)
                continue
            payload, issues = item  # type: ignore[misc]
            text += self._payload_text(payload, issues)
            reported += 1
            members += encoder.members(issues)
            for issue in issues:
                by_severity[issue.severity] += 1
                if issue.code not in rules:
                    rules[issue.code] = issue.requirement
            invalid += any(issue.severity is _ERROR for issue in issues)
        found.reported, found.invalid, found.members = reported, invalid, members
        found.severities.update({severity.value: count for severity, count in by_severity.items() if count})
        return found

    def _payload_text(self, payload: Payload, issues: list[Issue]) -> Text:
        """encoder.payload(), from the text kept for the same source, resource type and findings."""
        data = payload.data
        resource_type = data.get("resourceType") if type(data) is dict else None
        try:
            key = (payload.source, payload.prefix, resource_type, payload.line is None, *issues)
            kept = self._texts.get(key)
        except TypeError:  # an unhashable resourceType (a list): its text is made alone
            return self.encoder.payload(payload, issues)
        if kept is None:
            kept = self.encoder.payload(payload, issues)
            if len(self._texts) >= KEPT_TEXTS:
                self._texts.clear()
            self._texts[key] = kept
            return kept
        line = payload.line
        return kept if line is None else [part if type(part) is str else line for part in kept]


KEPT_TEXTS = 1024
"""Texts of findings kept by a UnitEncoder: an export's few causes fit; payloads whose findings never repeat (a name in
a message) cannot grow it."""
_ERROR = Severity.ERROR
