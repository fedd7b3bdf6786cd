"""Output of `eris validate`: text (streamed), JSON and SARIF 2.1.0."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from conformance.cli.checking import Checked
from conformance.cli.encoding import (
    SARIF_LEVELS,
    Encoded,
    Encoder,
    JsonEncoder,
    SarifEncoder,
    TextEncoder,
    dumps,
    joined,
    one_line,
)
from conformance.cli.inputs import Payload, ReadProblem
from profiles.issues import Issue

if TYPE_CHECKING:  # a run without HAR files starts without the judge of an exchange and its parser
    from conformance.cli.har_input import JudgedEntry
    from conformance.exchange_judge import ExchangeFinding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass
class Tally:
    documents: int = 0
    invalid: int = 0
    unreadable: int = 0
    severities: Counter[str] = field(default_factory=Counter)
    exchanges: int = 0
    """Exchanges of HAR files judged (each also counted as a document)."""
    sides: Counter[str] = field(default_factory=Counter)
    """Errors of exchanges by side: client, server."""

    def count(self, issues: list[Issue]) -> None:
        self.documents += 1
        severities, invalid = self.severities, False
        for issue in issues:
            severities[issue.severity.value] += 1
            invalid = invalid or issue.is_error
        self.invalid += invalid

    def count_exchange(self, findings: list[ExchangeFinding]) -> None:
        self.exchanges += 1
        self.count([found.issue for found in findings])
        self.sides.update(found.side for found in findings if found.issue.is_error)

    def summary(self) -> dict[str, int]:
        summary = {
            "documents": self.documents,
            "invalid": self.invalid,
            "unreadable": self.unreadable,
            "errors": self.severities["error"],
            "warnings": self.severities["warning"],
            "information": self.severities["information"],
        }
        if self.exchanges:
            summary |= {
                "exchanges": self.exchanges,
                "clientErrors": self.sides["client"],
                "serverErrors": self.sides["server"],
            }
        return summary


class Writer:
    """Receives every validated payload and read problem, then writes the report."""

    encoder: Encoder = Encoder()

    def __init__(self, stream: IO[str], version: str | Callable[[], str]) -> None:
        """`version`: eris's, or how to look it up (only the JSON and SARIF reports name it)."""
        self.stream = stream
        self._version = version
        self.tally = Tally()

    @property
    def version(self) -> str:
        return self._version if isinstance(self._version, str) else self._version()

    def payload(self, payload: Payload, issues: list[Issue]) -> None:
        self.tally.count(issues)

    def problem(self, problem: ReadProblem) -> None:
        self.tally.unreadable += 1

    def exchange(self, entry: JudgedEntry) -> None:
        """An entry of a HAR file, judged; or, with a `problem`, one that could not be read."""
        if entry.problem is not None:
            self.problem(ReadProblem(f"{entry.source}:log.entries[{entry.index}]", entry.problem))
        else:
            self.tally.count_exchange(entry.findings)

    def clean(self, count: int) -> None:
        """`count` payloads checked with nothing to report."""
        self.tally.documents += count

    def checked(self, checked: Checked) -> None:
        """What one unit of work found (conformance.cli.checking), in its order."""
        for reported in checked.reported:
            if isinstance(reported, ReadProblem):
                self.problem(reported)
            else:
                self.payload(*reported)
        self.clean(checked.clean)

    def encoded(self, found: Encoded) -> None:
        """What one unit of work found, encoded by this writer's encoder where it was checked
        (conformance.cli.encoding), in its order."""
        tally = self.tally
        tally.documents += found.clean + found.reported
        tally.invalid += found.invalid
        tally.severities.update(found.severities)
        if found.text:
            self._write(joined(found.text, found.shift), found.members)
        for problem in found.problems:
            self._listed(problem)

    def _write(self, text: str, members: int) -> None:
        """Encoded text, holding `members` results of the report's array."""
        self.stream.write(text)

    def _listed(self, problem: ReadProblem) -> None:
        """An input that could not be read, whose text (if any) was written with its unit's."""
        Writer.problem(self, problem)

    def finish(self) -> None:
        raise NotImplementedError


class TextWriter(Writer):
    encoder = TextEncoder()

    def payload(self, payload: Payload, issues: list[Issue]) -> None:
        super().payload(payload, issues)
        self.stream.write(joined(self.encoder.payload(payload, issues)))

    def problem(self, problem: ReadProblem) -> None:
        super().problem(problem)
        self.stream.write(joined(self.encoder.problem(problem)))

    def exchange(self, entry: JudgedEntry) -> None:
        super().exchange(entry)
        for found in entry.findings:
            issue = found.issue
            tags = f"{issue.code}, {issue.requirement}" if issue.requirement else issue.code
            line = f"{entry.label}: {found.side} {found.where}: {issue.severity.value}: {issue.message} [{tags}]"
            self.stream.write(one_line(line) + "\n")

    def finish(self) -> None:
        s = self.tally.summary()
        unreadable = f"; {s['unreadable']} input(s) could not be read" if s["unreadable"] else ""
        exchanges = (
            f" ({s['exchanges']} exchange(s) of HAR files: {s['clientErrors']} error(s) of clients, "
            f"{s['serverErrors']} of servers)"
            if self.tally.exchanges
            else ""
        )
        self.stream.write(
            f"{s['documents']} document(s) checked{exchanges}: {s['invalid']} invalid, {s['errors']} error(s), "
            f"{s['warnings']} warning(s){unreadable}\n"
        )


class _StreamedArray:
    """The members of a JSON array written as they come (indented as json.dump(indent=2) would at `depth`), so
    that a report of millions of findings never sits in memory."""

    def __init__(self, stream: IO[str], depth: int) -> None:
        self.stream, self.indent, self.count = stream, "  " * depth, 0

    def add(self, member: dict[str, Any], *, ensure_ascii: bool = True) -> None:
        text = dumps(member, ensure_ascii=ensure_ascii).replace("\n", "\n" + self.indent + "  ")
        self.stream.write(("," if self.count else "") + "\n" + self.indent + "  " + text)
        self.count += 1

    def add_encoded(self, text: str, members: int) -> None:
        """`members` written by conformance.cli.encoding, each after a comma."""
        self.stream.write(text if self.count else text[1:])
        self.count += members

    def close(self) -> None:
        self.stream.write(("\n" + self.indent if self.count else "") + "]")


def _members(value: dict[str, Any], depth: int, *, ensure_ascii: bool = True) -> str:
    """The members of `value` as json.dump(indent=2) writes them inside an object at `depth`, without braces."""
    indent = "  " * depth
    return ",".join(
        "\n"
        + indent
        + "  "
        + dumps(name, ensure_ascii=True)
        + ": "
        + dumps(member, ensure_ascii=ensure_ascii).replace("\n", "\n" + indent + "  ")
        for name, member in value.items()
    )


class JsonWriter(Writer):
    """One JSON object: the documents that have issues (valid ones are only counted), written as they come, then
    the inputs that could not be read and the summary."""

    def __init__(self, stream: IO[str], version: str | Callable[[], str]) -> None:
        super().__init__(stream, version)
        self.problems: list[dict[str, Any]] = []
        self.stream.write("{" + _members({"tool": "eris", "version": self.version}, 0) + ',\n  "results": [')
        self.results = _StreamedArray(stream, 1)

    encoder = JsonEncoder()

    def payload(self, payload: Payload, issues: list[Issue]) -> None:
        super().payload(payload, issues)
        if issues:
            self.results.add_encoded(joined(self.encoder.payload(payload, issues)), 1)

    def _write(self, text: str, members: int) -> None:
        self.results.add_encoded(text, members)

    def _listed(self, problem: ReadProblem) -> None:
        self.problem(problem)

    def exchange(self, entry: JudgedEntry) -> None:
        super().exchange(entry)
        if entry.findings:
            result: dict[str, Any] = {"source": entry.source, "entry": entry.index}
            result |= {"method": entry.method, "path": entry.path, "valid": not entry.invalid}
            result["issues"] = [found.to_dict() for found in entry.findings]
            self.results.add(result, ensure_ascii=False)

    def problem(self, problem: ReadProblem) -> None:
        super().problem(problem)
        entry: dict[str, Any] = {"source": problem.source, "message": problem.message}
        if problem.line is not None:
            entry.update(line=problem.line, column=problem.column)
        self.problems.append(entry)  # inputs, not payloads: few, kept for the end

    def finish(self) -> None:
        self.results.close()
        rest = {"unreadable": self.problems, "summary": self.tally.summary()}
        self.stream.write("," + _members(rest, 0, ensure_ascii=False) + "\n}\n")


class SarifWriter(Writer):
    """SARIF 2.1.0, one run; rule ids are the issue codes, the JSON Pointer is the logical location. Results are
    written as they come; the tool with its rules, known only at the end, comes after them."""

    def __init__(self, stream: IO[str], version: str | Callable[[], str]) -> None:
        super().__init__(stream, version)
        self.notifications: list[dict[str, Any]] = []
        self.rules: dict[str, str | None] = {}
        """The codes reported, each with the requirement of its first issue."""
        head = _members({"$schema": SARIF_SCHEMA, "version": "2.1.0"}, 0)
        self.stream.write("{" + head + ',\n  "runs": [\n    {\n      "results": [')
        self.results = _StreamedArray(stream, 3)

    encoder = SarifEncoder()

    def payload(self, payload: Payload, issues: list[Issue]) -> None:
        super().payload(payload, issues)
        for issue in issues:
            self.rules.setdefault(issue.code, issue.requirement)
        if issues:
            self.results.add_encoded(joined(self.encoder.payload(payload, issues)), len(issues))

    def encoded(self, found: Encoded) -> None:
        for code, requirement in found.rules.items():
            self.rules.setdefault(code, requirement)
        super().encoded(found)

    def _write(self, text: str, members: int) -> None:
        self.results.add_encoded(text, members)

    def _listed(self, problem: ReadProblem) -> None:
        self.problem(problem)

    def exchange(self, entry: JudgedEntry) -> None:
        super().exchange(entry)
        for found in entry.findings:
            issue = found.issue
            self.rules.setdefault(issue.code, issue.requirement)
            where = f"log.entries[{entry.index}] {found.where}"
            properties: dict[str, Any] = {"side": found.side, "method": entry.method, "path": entry.path}
            if issue.requirement:
                properties["requirement"] = issue.requirement
            result: dict[str, Any] = {
                "ruleId": issue.code,
                "level": SARIF_LEVELS[issue.severity],
                "message": {"text": f"{entry.method} {entry.path}: {issue.message}"},
                "locations": [
                    {
                        "physicalLocation": {"artifactLocation": {"uri": entry.source}},
                        "logicalLocations": [{"fullyQualifiedName": where, "kind": "object"}],
                    }
                ],
                "properties": properties,
            }
            self.results.add(result)

    def problem(self, problem: ReadProblem) -> None:
        super().problem(problem)
        location: dict[str, Any] = {"artifactLocation": {"uri": problem.source}}
        if problem.line is not None:
            location["region"] = {"startLine": problem.line, "startColumn": problem.column}
        self.notifications.append(
            {
                "level": "error",
                "message": {"text": f"cannot be read: {problem.message}"},
                "locations": [{"physicalLocation": location}],
            }
        )

    def finish(self) -> None:
        self.results.close()
        rules = [
            {
                "id": code,
                "shortDescription": {"text": code.replace("-", " ")},
                **({"properties": {"requirement": requirement}} if requirement else {}),
            }
            for code, requirement in sorted(self.rules.items())
        ]
        rest = {
            "tool": {
                "driver": {
                    "name": "eris",
                    "version": self.version,
                    "informationUri": "https://eris.example/",
                    "rules": rules,
                }
            },
            "invocations": [
                {"executionSuccessful": not self.notifications, "toolExecutionNotifications": self.notifications}
            ],
        }
        self.stream.write("," + _members(rest, 2) + "\n    }\n  ]\n}\n")


WRITERS: dict[str, type[Writer]] = {"text": TextWriter, "json": JsonWriter, "sarif": SarifWriter}
