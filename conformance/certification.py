"""The certification of one run: each catalogue requirement judged from the outcomes of the tests citing it,
the verdict, and the outputs (`certification.json` here; `report.html` and `traffic.har` by their modules).

Rules (DESIGN.md, "Certification outputs"):

- a requirement no test cites, or whose tests did not run, is `not-tested`; one whose tests were all
  skipped is `skipped`; one any of whose tests failed or errored is `failed`; else `passed`;
- an INFO requirement is never `failed`: the contract says the thing is not shown, so a failing test of it
  is an observation, reported as `skipped` with the test's message;
- a failure listed in the expected-failures file (by requirement id, or by test node id) is reported with
  `expected: true` and does not count against the verdict; a listed entry that passed is shown as such;
- the run is `conformant` iff no MUST requirement failed other than as expected.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from conformance.plugin import TestOutcome
from conformance.requirements import Requirement

__all__ = [
    "CONFORMANT",
    "FORMAT",
    "NON_CONFORMANT",
    "STATUSES",
    "Certification",
    "ExpectedFailures",
    "RequirementResult",
    "certify",
    "suite_version",
    "to_json",
    "write_outputs",
]

FORMAT = "eris-certification/1"
CONFORMANT, NON_CONFORMANT = "conformant", "non-conformant"
PASSED, FAILED, SKIPPED, NOT_TESTED = "passed", "failed", "skipped", "not-tested"
STATUSES = (PASSED, FAILED, SKIPPED, NOT_TESTED)
TEST_OUTCOMES = ("passed", "failed", "error", "skipped")
FAILING = ("failed", "error")
INFO_NOTE = "informational: the contract does not fix this, so a failing test is an observation, never a failure"
UNEXPECTED_PASS_NOTE = "listed as an expected failure, but passed"


def suite_version() -> str:
    """The version of the installed eris distribution, which is the version of its conformance suite."""
    try:
        return version("eris")
    except PackageNotFoundError:
        return "0+checkout"


@dataclass(frozen=True)
class ExpectedFailures:
    """Requirement ids and test node ids whose failure is known and accepted for this run. A node id without
    parameters covers each of its parametrized cases."""

    entries: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str, source: str = "expected failures") -> ExpectedFailures:
        """One entry a line; `#` starts a comment; blank lines are ignored. ValueError for a line with spaces
        inside an entry (two entries on one line, most likely)."""
        entries: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            entry = line.split("#", 1)[0].strip()
            if not entry:
                continue
            if any(character.isspace() for character in entry) and "[" not in entry:
                raise ValueError(f"{source}:{number}: one requirement id or test node id a line, not {entry!r}")
            entries.append(entry)
        return cls(tuple(dict.fromkeys(entries)))

    @classmethod
    def read(cls, path: Path | str) -> ExpectedFailures:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"cannot read the expected failures {path}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path}: the expected failures file is not UTF-8 text") from None
        return cls.parse(text, str(path))

    def lists_test(self, nodeid: str) -> bool:
        return nodeid in self.entries or nodeid.split("[", 1)[0] in self.entries

    def covers(self, nodeid: str, requirement_id: str | None = None) -> bool:
        """Whether a failure of test `nodeid`, as evidence against `requirement_id`, is expected."""
        return self.lists_test(nodeid) or (requirement_id is not None and requirement_id in self.entries)


@dataclass
class RequirementResult:
    requirement: Requirement
    status: str
    tests: list[TestOutcome] = field(default_factory=list)
    message: str = ""
    expected: bool = False
    """Failed, and every failing test of it is listed as an expected failure."""
    note: str = ""

    @property
    def counts_against(self) -> bool:
        """Whether this result makes the run non-conformant."""
        return self.requirement.level == "MUST" and self.status == FAILED and not self.expected


@dataclass
class Certification:
    base_url: str
    started: datetime
    finished: datetime
    requirements: list[RequirementResult]
    outcomes: list[TestOutcome]
    expected: ExpectedFailures = field(default_factory=ExpectedFailures)
    embedded: bool = False
    """The target is the reference implementation started by `eris certify` itself."""
    properties: dict[str, Any] = field(default_factory=dict)
    """The property phase's budget: {"examples": N, "seed": S} (a rerun with this seed sends the same requests)."""
    deviations: tuple[str, ...] = ()
    """Faults and variants the embedded reference implementation ran with (measuring the suite)."""
    version: str = field(default_factory=suite_version)
    unknown: dict[str, list[str]] = field(default_factory=dict)
    """Requirement ids cited by tests that ran but absent from the catalogue -> those tests' node ids."""

    @property
    def verdict(self) -> str:
        return NON_CONFORMANT if any(result.counts_against for result in self.requirements) else CONFORMANT

    @property
    def counts(self) -> dict[str, int]:
        """Requirements per status."""
        return {status: sum(result.status == status for result in self.requirements) for status in STATUSES}

    @property
    def test_counts(self) -> dict[str, int]:
        return {outcome: sum(test.outcome == outcome for test in self.outcomes) for outcome in TEST_OUTCOMES}

    @property
    def failed_must(self) -> list[str]:
        return [result.requirement.id for result in self.requirements if result.counts_against]

    @property
    def expected_failures(self) -> list[str]:
        """Requirements that failed as expected, and listed tests that failed."""
        found = [r.requirement.id for r in self.requirements if r.status == FAILED and r.expected]
        found += [
            test.nodeid for test in self.outcomes if test.outcome in FAILING and self.expected.lists_test(test.nodeid)
        ]
        return found

    @property
    def unexpected_passes(self) -> list[str]:
        """Listed entries that passed: the listing is out of date."""
        found = [
            r.requirement.id
            for r in self.requirements
            if r.status == PASSED and r.requirement.id in self.expected.entries
        ]
        found += [
            test.nodeid for test in self.outcomes if test.outcome == "passed" and self.expected.lists_test(test.nodeid)
        ]
        return found

    @property
    def unmatched_expected(self) -> list[str]:
        """Listed entries that name neither a catalogue requirement nor a test of this run (a typo, or a
        test that was deselected)."""
        known = {result.requirement.id for result in self.requirements} | set(self.unknown)
        nodeids = {test.nodeid for test in self.outcomes} | {test.nodeid.split("[", 1)[0] for test in self.outcomes}
        return [entry for entry in self.expected.entries if entry not in known and entry not in nodeids]

    @property
    def uncited(self) -> list[TestOutcome]:
        """Tests that name no requirement: they count for no requirement and so never for the verdict."""
        return [test for test in self.outcomes if not test.requirements]

    def test_expected(self, test: TestOutcome, requirement_id: str | None = None) -> bool:
        """Whether a failing test is listed as an expected failure: as evidence against `requirement_id`, or
        (None) against every requirement it cites."""
        if (test.outcome if requirement_id is None else test.outcome_for(requirement_id)) not in FAILING:
            return False
        if requirement_id is not None:
            return self.expected.covers(test.nodeid, requirement_id)
        return self.expected.lists_test(test.nodeid) or (
            bool(test.requirements) and all(r in self.expected.entries for r in test.requirements)
        )

    def test_counts_against(self, test: TestOutcome) -> bool:
        """Whether this test's failure is one that makes the run non-conformant."""
        failed = set(self.failed_must)
        return test.outcome in FAILING and any(
            r in failed and test.outcome_for(r) in FAILING and not self.expected.covers(test.nodeid, r)
            for r in test.requirements
        )


def certify(
    catalogue: Iterable[Requirement],
    outcomes: Iterable[TestOutcome],
    *,
    base_url: str,
    started: datetime,
    finished: datetime,
    expected: ExpectedFailures | None = None,
    embedded: bool = False,
    version: str | None = None,
    properties: dict[str, Any] | None = None,
    deviations: tuple[str, ...] = (),
) -> Certification:
    """Judge every catalogue requirement from the outcomes of the tests that ran."""
    expected = expected or ExpectedFailures()
    tests = list(outcomes)
    catalogue = list(catalogue)
    by_requirement: dict[str, list[TestOutcome]] = {}
    for test in tests:
        for requirement_id in test.requirements:
            by_requirement.setdefault(requirement_id, []).append(test)
    known = {requirement.id for requirement in catalogue}
    return Certification(
        base_url=base_url,
        started=started,
        finished=finished,
        requirements=[_judge(r, by_requirement.get(r.id, []), expected) for r in catalogue],
        outcomes=tests,
        expected=expected,
        embedded=embedded,
        version=version or suite_version(),
        properties=properties or {},
        deviations=deviations,
        unknown={
            requirement_id: [test.nodeid for test in cited]
            for requirement_id, cited in sorted(by_requirement.items())
            if requirement_id not in known
        },
    )


def _judge(requirement: Requirement, tests: list[TestOutcome], expected: ExpectedFailures) -> RequirementResult:
    result = RequirementResult(requirement, NOT_TESTED, tests)
    failing = [test for test in tests if test.outcome_for(requirement.id) in FAILING]
    if failing:
        unexpected = [test for test in failing if not expected.covers(test.nodeid, requirement.id)]
        first = (unexpected or failing)[0]
        result.message = first.message_for(requirement.id)
        if requirement.level == "INFO":
            result.status, result.note = SKIPPED, INFO_NOTE
        else:
            result.status, result.expected = FAILED, not unexpected
    elif any(test.outcome_for(requirement.id) == "passed" for test in tests):
        result.status = PASSED
        if requirement.id in expected.entries:
            result.note = UNEXPECTED_PASS_NOTE
    elif tests:
        result.status = SKIPPED
        result.message = tests[0].message
    return result


def _time(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def to_json(certification: Certification) -> dict[str, Any]:
    """The document of `certification.json`."""
    c = certification
    return {
        "format": FORMAT,
        "target": {
            "base_url": c.base_url,
            "embedded_reference_implementation": c.embedded,
            **({"deviations": list(c.deviations)} if c.deviations else {}),
        },
        "properties": c.properties,
        "suite": {"name": "eris", "version": c.version},
        "started": _time(c.started),
        "finished": _time(c.finished),
        "duration_seconds": round((c.finished - c.started).total_seconds(), 3),
        "summary": {
            "verdict": c.verdict,
            "counts": c.counts,
            "tests": c.test_counts,
            "failed_must": c.failed_must,
            "expected_failures": c.expected_failures,
            "unexpected_passes": c.unexpected_passes,
        },
        "requirements": [
            {
                "id": r.requirement.id,
                "level": r.requirement.level,
                "section": r.requirement.section,
                "text": r.requirement.text,
                "status": r.status,
                "expected": r.expected,
                "tests": [
                    {
                        "nodeid": test.nodeid,
                        "outcome": test.outcome_for(r.requirement.id),
                        "expected": c.test_expected(test, r.requirement.id),
                    }
                    for test in r.tests
                ],
                "message": r.message,
                "note": r.note,
            }
            for r in c.requirements
        ],
        "unknown_requirements": [{"id": key, "tests": nodeids} for key, nodeids in c.unknown.items()],
        "tests_without_requirements": [
            {"nodeid": test.nodeid, "outcome": test.outcome, "message": test.message} for test in c.uncited
        ],
        "expected_failures_unmatched": c.unmatched_expected,
    }


def write_outputs(certification: Certification, directory: Path | str) -> dict[str, Path]:
    """Write certification.json, report.html and traffic.har into `directory` (created if missing); each
    file appears whole or not at all. Returns the paths by name. OSError when the directory is not writable."""
    from conformance.har import to_har
    from conformance.html_report import to_html

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    documents = {
        "certification.json": json.dumps(to_json(certification), indent=2, ensure_ascii=False) + "\n",
        "report.html": to_html(certification),
        "traffic.har": json.dumps(to_har(certification), indent=1, ensure_ascii=False) + "\n",
    }
    written = {}
    for name, text in documents.items():
        written[name] = _write_whole(folder / name, text)
    return written


def _write_whole(path: Path, text: str) -> Path:
    # Written beside the file, then renamed into place: a reader never sees half a report. (A plain open,
    # not NamedTemporaryFile, so that the file gets the usual permissions of the umask.)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
