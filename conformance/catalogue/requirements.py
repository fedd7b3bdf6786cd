"""The requirement catalogue (`conformance/catalogue/requirements.toml`) and which conformance tests cite each row.

Coverage is read from the suite's source with `ast`, not by collecting it with pytest: `eris requirements`
answers without importing the suite, its fixtures or a target.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CATALOGUE",
    "FEATURES",
    "LEVELS",
    "SUITE_DIR",
    "CitedTest",
    "Requirement",
    "cited_tests",
    "coverage",
    "load_catalogue",
    "node_root",
]

CATALOGUE = Path(__file__).with_name("requirements.toml")
SUITE_DIR = Path(__file__).parents[1] / "suite"
LEVELS = ("MUST", "SHOULD", "INFO")
"""MUST: the contract fixes it; SHOULD: it recommends it; INFO: it says it is not shown (never a failure)."""
_ID = re.compile(r"ERIS-[A-Z0-9]+(?:-[A-Z0-9]+)*-[0-9]{3}")
_FIELDS = ("id", "section", "text", "level")
FEATURES = ("notifications", "blob-storage", "local-storage", "smb-storage")
"""Optional features a target declares in its description ([features]): what the contract has an implementation do,
but leaves the means open so that a suite cannot always exercise it (notifications: the push address is not shown;
the storage types blob, local and smb: which of the four codes an implementation delivers to, and the content of
connectionString, are not shown; `[features] storage = ["blob", ...]` declares them)."""


@dataclass(frozen=True)
class Requirement:
    id: str
    section: str
    text: str
    level: str
    feature: str | None = None
    """The optional feature the requirement belongs to (FEATURES); None: every implementation."""
    outside: str | None = None
    """Why no check of a target can see the requirement broken (a failure no request can cause, a rule the contract
    states without a form to check): a MUST that says so does not make a run incomplete when untested, and the
    self-test holds no fault of it."""
    clauses: tuple[str, ...] = ()
    """The things the requirement's sentence names (parameters, fields, namespaces, registries), in the contract's
    words: it passes only when a test exercised each with the target's own data, and held."""


def load_catalogue(path: Path | str = CATALOGUE) -> list[Requirement]:
    """The rows of the catalogue in file order. ValueError (naming the file and the row) for an unreadable
    file, a row that lacks a field or has a wrong one, or an id given twice."""
    try:
        with open(path, "rb") as file:
            document = tomllib.load(file)
    except OSError as error:
        raise ValueError(f"cannot read the requirement catalogue {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path} is not TOML: {error}") from None
    rows = document.get("requirement", [])
    if not isinstance(rows, list):
        raise ValueError(f"{path}: requirement must be an array of tables ([[requirement]])")
    found: list[Requirement] = []
    seen: set[str] = set()
    for position, row in enumerate(rows, start=1):
        where = f"{path}: requirement #{position}"
        if not isinstance(row, dict):
            raise ValueError(f"{where} is not a table")
        for name in _FIELDS:
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise ValueError(f"{where}: {name} must be a non-empty string")
        extra = sorted(set(row) - {*_FIELDS, "feature", "outside", "clauses"})
        if extra:
            raise ValueError(f"{where} ({row['id']}): unknown field(s) {', '.join(extra)}")
        if not _ID.fullmatch(row["id"]):
            raise ValueError(f"{where}: id {row['id']!r} is not of the form ERIS-<AREA>-<NNN>")
        if row["level"] not in LEVELS:
            raise ValueError(f"{where} ({row['id']}): level must be one of {', '.join(LEVELS)}, not {row['level']!r}")
        if "feature" in row and row["feature"] not in FEATURES:
            known = ", ".join(FEATURES)
            raise ValueError(f"{where} ({row['id']}): feature must be one of {known}, not {row['feature']!r}")
        if row["id"] in seen:
            raise ValueError(f"{where}: id {row['id']} is given twice")
        seen.add(row["id"])
        if "outside" in row and not (isinstance(row["outside"], str) and row["outside"].strip()):
            raise ValueError(f"{where} ({row['id']}): outside must say why the requirement cannot be tested")
        clauses = row.get("clauses", [])
        if not (isinstance(clauses, list) and all(isinstance(c, str) and c.strip() for c in clauses)):
            raise ValueError(f"{where} ({row['id']}): clauses must be a list of non-empty strings")
        if len(set(clauses)) != len(clauses):
            raise ValueError(f"{where} ({row['id']}): a clause is given twice")
        found.append(
            Requirement(
                row["id"],
                row["section"],
                row["text"],
                row["level"],
                row.get("feature"),
                row.get("outside"),
                tuple(clauses),
            )
        )
    return found


def node_root(suite_dir: Path) -> Path:
    """The directory test node ids are relative to: two levels above the suite, so that the packaged suite's
    ids read `conformance/suite/<part>/test_x.py::test_y` wherever eris is installed."""
    return suite_dir.resolve().parent.parent


@dataclass(frozen=True)
class CitedTest:
    """A test of the suite and the requirements it cites, where it is written."""

    nodeid: str
    """Relative to node_root, without parameters."""
    path: Path
    line: int
    requirements: tuple[str, ...]


def cited_tests(suite_dir: Path | str = SUITE_DIR) -> list[CitedTest]:
    """Every test of every `test_*.py` below `suite_dir` with the requirement ids it cites. Marks count on test
    functions, on test classes, and in `pytestmark` of a module or class. ValueError for a suite file that does
    not parse."""
    suite = Path(suite_dir)
    root = node_root(suite)
    found: list[CitedTest] = []
    for path in sorted(suite.rglob("test_*.py")):
        if "__pycache__" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except SyntaxError as error:
            raise ValueError(f"{path}:{error.lineno}: the suite file does not parse: {error.msg}") from None
        except OSError as error:
            raise ValueError(f"cannot read {path}: {error.strerror}") from None
        prefix = path.resolve().relative_to(root).as_posix()
        for name, line, ids in _tests(tree.body, prefix, _constants(tree), inherited=()):
            found.append(CitedTest(name, path, line, ids))
    return found


def coverage(suite_dir: Path | str = SUITE_DIR) -> dict[str, list[str]]:
    """Requirement id -> the tests citing it (node ids without parameters); ids cited but absent from the
    catalogue are included."""
    cited: dict[str, list[str]] = {}
    for test in cited_tests(suite_dir):
        for requirement_id in test.requirements:
            tests = cited.setdefault(requirement_id, [])
            if test.nodeid not in tests:
                tests.append(test.nodeid)
    return cited


def _tests(
    body: list[ast.stmt], prefix: str, constants: dict[str, tuple[str, ...]], inherited: tuple[str, ...]
) -> Iterator[tuple[str, int, tuple[str, ...]]]:
    """(node id, line, requirement ids) of each test in a module or class body, the marks of enclosing scopes
    included, following pytest's default collection (`test*` functions, `Test*` classes)."""
    scope = inherited + _pytestmark(body, constants)
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            yield f"{prefix}::{node.name}", node.lineno, _unique(scope + _decorated(node, constants))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from _tests(node.body, f"{prefix}::{node.name}", constants, scope + _decorated(node, constants))


def _pytestmark(body: list[ast.stmt], constants: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for node in body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            found += _marked(node.value, constants)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "pytestmark":
            found += _marked(node.value, constants) if node.value is not None else ()
    return found


def _decorated(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, constants: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for decorator in node.decorator_list:
        found += _marked(decorator, constants)
    return found


def _marked(expression: ast.AST | None, constants: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Requirement ids of every `requirement` mark inside an expression: a decorator, a list of marks, or
    a `pytest.param(..., marks=...)` of a parametrize (a mark on one case counts for the whole test)."""
    if expression is None:
        return ()
    found: tuple[str, ...] = ()
    for node in ast.walk(expression):
        if isinstance(node, ast.Call) and _is_requirement_mark(node.func):
            for argument in node.args:
                found += _strings(argument, constants)
    return found


def _is_requirement_mark(function: ast.expr) -> bool:
    """`pytest.mark.requirement`, `_pytest.mark.requirement` or `mark.requirement` (from pytest import mark)."""
    if not (isinstance(function, ast.Attribute) and function.attr == "requirement"):
        return False
    owner = function.value
    if isinstance(owner, ast.Name):
        return owner.id == "mark"
    return isinstance(owner, ast.Attribute) and owner.attr == "mark"


def _strings(node: ast.expr, constants: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Name):
        return constants.get(node.id, ())
    if isinstance(node, ast.Starred):
        return _strings(node.value, constants)
    if isinstance(node, ast.Tuple | ast.List):
        return tuple(value for element in node.elts for value in _strings(element, constants))
    return ()


def _constants(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Module-level names bound to a string or a tuple/list of strings: ids a mark may name indirectly."""
    found: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values = _strings(node.value, found)
            if values:
                found[node.targets[0].id] = values
    return found


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))
