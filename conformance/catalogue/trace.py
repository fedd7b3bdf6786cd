"""Where a requirement of the catalogue is carried: its contract sentence, the data and the rule functions that
state it, the tests that check it, the faults that break it, and the code of the reference implementation that
serves it, each as a place (path and line).

Nothing here is a second list of those links: they are read from what already names a requirement. Data rows say
`"requirement": "ERIS-..."` (and name a rule function by `"rule"`); operations of openapi.json list
`x-eris-requirements` (and lead to their handlers through the reference implementation's routes); suite tests
cite it with a mark; validator cases and faults of the self-test name it. One scan of the tree serves every trace.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from conformance.catalogue.requirements import CATALOGUE, SUITE_DIR, Requirement, cited_tests, load_catalogue

__all__ = ["Place", "Trace", "Tracer", "UnknownRequirement"]

ROOT = Path(__file__).resolve().parents[2]
_ID = re.compile(r"ERIS-[A-Z0-9]+(?:-[A-Z0-9]+)*-[0-9]{3}")
_DATA_SUFFIXES = (".json", ".toml")


class UnknownRequirement(KeyError):
    """An id that is not in the catalogue; the message names the closest ones."""


@dataclass(frozen=True)
class Place:
    path: str
    """Relative to the project root (or absolute, for a file outside it)."""
    line: int
    label: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}  {self.label}"


@dataclass
class Trace:
    requirement: Requirement
    contract: Place
    data: list[Place] = field(default_factory=list)
    rules: list[Place] = field(default_factory=list)
    tests: list[Place] = field(default_factory=list)
    faults: list[Place] = field(default_factory=list)
    implementation: list[Place] = field(default_factory=list)

    GROUPS = (
        ("data", "schema and profile data"),
        ("rules", "rule functions"),
        ("tests", "tests"),
        ("faults", "faults of the self-test"),
        ("implementation", "reference implementation"),
    )

    def to_json(self) -> dict[str, Any]:
        r = self.requirement
        return {
            "id": r.id,
            "level": r.level,
            "section": r.section,
            "text": r.text,
            "clauses": list(r.clauses),
            "contract": asdict(self.contract),
            **{name: [asdict(place) for place in getattr(self, name)] for name, _ in self.GROUPS},
        }

    def to_text(self) -> str:
        r = self.requirement
        lines = [f"{r.id} ({r.level}) — {r.section}", f"  {r.text}", f"  {self.contract}"]
        if r.clauses:
            lines.append("clauses (each exercised with the target's own data, or the requirement is partly exercised):")
            lines += [f"  {clause}" for clause in r.clauses]
        for name, title in self.GROUPS:
            places = getattr(self, name)
            lines.append(f"{title}:" if places else f"{title}: none")
            lines += [f"  {place}" for place in places]
        return "\n".join(lines)


class Tracer:
    """Traces of every requirement of the project rooted at `root`, from one scan of its files."""

    def __init__(self, root: Path = ROOT, suite_dir: Path = SUITE_DIR, catalogue: Path = CATALOGUE) -> None:
        self.root = root
        self.suite_dir = suite_dir
        self.catalogue_path = catalogue

    def trace(self, requirement_id: str) -> Trace:
        requirement = self.requirements.get(requirement_id)
        if requirement is None:
            raise UnknownRequirement(_unknown(requirement_id, list(self.requirements)))
        found = Trace(requirement, self._catalogue_places[requirement_id])
        found.data = self._mentions("data", requirement_id) + [
            place for place, ids in self._operation_places if requirement_id in ids
        ]
        found.rules = self._rule_places.get(requirement_id, []) + self._mentions("rules", requirement_id)
        found.tests = self._test_places.get(requirement_id, []) + self._mentions("cases", requirement_id)
        found.faults = self._fault_places.get(requirement_id, [])
        found.implementation = (
            self._mentions("implementation", requirement_id)
            + [handler for handler, ids in self._handler_places if requirement_id in ids]
            + self._enforcing_places.get(requirement_id, [])
        )
        return found

    # -- the scan ------------------------------------------------------------------------------------------------

    @cached_property
    def requirements(self) -> dict[str, Requirement]:
        return {r.id: r for r in load_catalogue(self.catalogue_path)}

    @cached_property
    def _catalogue_places(self) -> dict[str, Place]:
        places = {}
        for number, line in enumerate(self.catalogue_path.read_text(encoding="utf-8").splitlines(), start=1):
            if match := re.fullmatch(r'id = "(.+)"', line.strip()):
                places[match[1]] = Place(self._relative(self.catalogue_path), number, "the contract's sentence")
        return places

    @cached_property
    def _files(self) -> dict[str, list[Path]]:
        """The files each kind of mention is looked for in."""
        suite = self.suite_dir.resolve()
        python = lambda folder: sorted((self.root / folder).rglob("*.py"))  # noqa: E731
        data = [
            path
            for folder in ("schemas", "profiles")
            for path in sorted((self.root / folder).rglob("*"))
            if path.suffix in _DATA_SUFFIXES
        ]
        return {
            "data": [path for path in data if path.name != "openapi.json"],  # its operations are traced one by one
            "rules": python("profiles"),
            "cases": sorted((self.root / "tests" / "cases").rglob("*.json")),
            "implementation": python("reference_impl"),
            "suite": [p for p in python(suite) if p.name.startswith("test_")] if suite.is_dir() else [],
        }

    @cached_property
    def _index(self) -> dict[str, dict[str, list[Place]]]:
        """kind of file -> requirement id -> the lines of those files naming it."""
        index: dict[str, dict[str, list[Place]]] = {}
        for kind, paths in self._files.items():
            table = index.setdefault(kind, {})
            for path in paths:
                text = path.read_text(encoding="utf-8")
                functions = _functions_by_line(text) if path.suffix == ".py" else {}
                for number, line in enumerate(text.splitlines(), start=1):
                    for requirement_id in dict.fromkeys(_ID.findall(line)):
                        where = f"in {functions[number]}: " if number in functions else ""
                        table.setdefault(requirement_id, []).append(
                            Place(self._relative(path), number, where + _shortened(line.strip()))
                        )
        return index

    def _mentions(self, kind: str, requirement_id: str) -> list[Place]:
        return list(self._index.get(kind, {}).get(requirement_id, []))

    @cached_property
    def _rule_places(self) -> dict[str, list[Place]]:
        """Rule functions applied by data rows that name a requirement (`"rule": name` beside it)."""
        functions = _rule_functions()
        places: dict[str, list[Place]] = {}
        for path in self._files["data"]:
            if path.suffix != ".json":
                continue
            for row in _objects(json.loads(path.read_text(encoding="utf-8"))):
                requirement_id = row.get("requirement")
                if not isinstance(requirement_id, str):
                    continue
                # a rule row names its function; a row of the issue-code registry, the rules emitting the code
                emitted = [e.removeprefix("rule:") for e in row.get("emittedBy", []) if str(e).startswith("rule:")]
                for rule in [row.get("rule"), *emitted]:
                    if not isinstance(rule, str) or rule not in functions:
                        continue
                    verb = "applied by" if rule == row.get("rule") else f"emits {row.get('code')}, in"
                    place = self._place_of(functions[rule], f"rule function {rule!r} ({verb} {path.name})")
                    if place not in places.setdefault(requirement_id, []):
                        places[requirement_id].append(place)
        return places

    @cached_property
    def _enforcing_places(self) -> dict[str, list[Place]]:
        """Where the reference implementation applies the rule data of a requirement: the validator's call on
        report orders, and on write bodies of the writable resources (profiles/resources/*.json "writable")."""
        calls = {
            "writes": self._line_of("reference_impl/writes.py", "validator.validate(", "validates write bodies"),
            "orders": self._line_of("reference_impl/report_orders.py", "validator.iter_issues(", "validates orders"),
        }
        places: dict[str, list[Place]] = {}
        for path in sorted((self.root / "profiles" / "resources").glob("*.json")):
            rules = json.loads(path.read_text(encoding="utf-8"))
            call = (
                calls["orders"]
                if rules.get("resourceType") == "ReportOrder"
                else (calls["writes"] if rules.get("writable") else None)
            )
            if call is None:
                continue
            for row in _objects(rules):
                requirement_id = row.get("requirement")
                if isinstance(requirement_id, str) and call not in places.setdefault(requirement_id, []):
                    places[requirement_id].append(call)
        return places

    def _line_of(self, relative: str, needle: str, label: str) -> Place | None:
        path = self.root / relative
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if needle in line:
                return Place(relative, number, f"{label} with the rule data (profiles.validator)")
        return None

    @cached_property
    def _test_places(self) -> dict[str, list[Place]]:
        places: dict[str, list[Place]] = {}
        for test in cited_tests(self.suite_dir):
            for requirement_id in test.requirements:
                places.setdefault(requirement_id, []).append(
                    Place(self._relative(test.path), test.line, test.nodeid.split("::", 1)[1])
                )
        return places

    @cached_property
    def _fault_places(self) -> dict[str, list[Place]]:
        from conformance.deviations import FAULT, catalogue

        places: dict[str, list[Place]] = {}
        for fault in catalogue(FAULT):
            if fault.requirement:
                places.setdefault(fault.requirement, []).append(
                    self._place_of(fault.install, f"fault {fault.name}: {fault.summary}")
                )
        return places

    @cached_property
    def _operation_places(self) -> list[tuple[Place, tuple[str, ...]]]:
        from profiles.openapi_index import OPENAPI_FILE, operations

        lines = OPENAPI_FILE.read_text(encoding="utf-8").splitlines()
        found = []
        for operation in operations():
            number = next(
                (n for n, line in enumerate(lines, start=1) if f'"operationId": "{operation.operation_id}"' in line), 1
            )
            label = f"{operation.method} {operation.path} ({operation.operation_id}) lists it in x-eris-requirements"
            found.append((Place(self._relative(OPENAPI_FILE), number, label), operation.requirements))
        return found

    @cached_property
    def _handler_places(self) -> list[tuple[Place, tuple[str, ...]]]:
        """The handler of each operation of openapi.json, from the routes of the reference implementation."""
        from profiles.openapi_index import operations
        from reference_impl.app import create_app

        routes = {
            (route.method, route.resource.canonical): route.handler
            for route in create_app().router.routes()
            if route.resource is not None
        }
        found = []
        for operation in operations():
            handler = routes.get((operation.method, operation.path))
            if handler is not None:
                label = f"{handler.__name__} serves {operation.method} {operation.path}"
                found.append((self._place_of(handler, label), operation.requirements))
        return found

    def _place_of(self, function: Callable[..., Any], label: str) -> Place:
        function = inspect.unwrap(function)
        path = Path(inspect.getsourcefile(function) or "?")
        return Place(self._relative(path), inspect.getsourcelines(function)[1], label)

    def _relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def _rule_functions() -> dict[str, Callable[..., Any]]:
    from profiles import standard_rules

    return dict(standard_rules())


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def _shortened(line: str) -> str:
    return line if len(line) <= 100 else line[:99] + "…"


def _unknown(requirement_id: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(requirement_id.upper(), known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `eris requirements` lists them"
    return f"{requirement_id} is not a requirement of the catalogue{hint}"


def _functions_by_line(source: str) -> dict[int, str]:
    """Line -> the name of the innermost function or class around it, for the lines of a Python file."""
    found: dict[int, str] = {}
    found_start: dict[int, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.end_lineno:
            for number in range(node.lineno, node.end_lineno + 1):
                if number not in found or node.lineno > found_start[number]:
                    found[number] = node.name
                    found_start[number] = node.lineno
    return found
