"""The clean gate of profiles/clean_gate.py compiled: its pass, the check of its rows apart, the checks after them,
and, for a document it refuses, which of its parts failed (the rule rows to explain, and whether the structure and
recognition must be).

A document whose pass held and whose rows checked apart did not (the common warnings of an export: a namespace of
another installation, a reference by a non-key identifier) is asked those rows one by one: it took the same pass as a
clean document, and nothing else of the gate is asked again. A document whose pass held and whose rows apart held too
(only the checks after them refused it: a NIP's check digit) is asked only those checks.

A document the pass refused is searched part by part, about ten checks of the engine. Such documents mostly fail for
the same few causes (the same code out of a value set): a cause found again is remembered, and a document is first
tried against the causes seen last, one check that every other part holds, and one for each row of the cause, instead
of the search. Where the pass refuses most documents, the loop asks the causes before the gate
(`CompiledGate.cause_of`), and a document a cause holds needs nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from profiles.clean_gate import CleanGate, rows_schema
from profiles.rules import DocumentCheck
from profiles.structure import SchemaStore

__all__ = [
    "APART_REFUSED",
    "APART_SETS_TRIED",
    "CAUSES_KEPT",
    "CAUSES_TRIED",
    "Cause",
    "CompiledGate",
    "GateLeavingOut",
    "Refusal",
    "Rows",
]

Rows = frozenset[int] | set[int]
"""Rule rows by id(): those whose part of the gate a document failed."""
CAUSES_TRIED = 4
"""Causes a refused document is tried against before the search, the one found last first."""
CAUSES_KEPT = 16
"""Causes compiled, a gate: each costs its compilation (milliseconds) and the memory of a gate."""
_SEEN_BEFORE_KEPT = 2
"""How often the search finds a cause before it is compiled: a cause seen once may never come again."""
_COUNTED = 1024
"""Causes counted at most, a gate (the count starts again beyond)."""
_Failed = tuple[Rows, bool]
_ApartSet = tuple[DocumentCheck, _Failed]
APART_SETS_TRIED = 2
"""Sets of the rows checked apart that a document they refused is tried against first, one check each."""
_APART_SETS_KEPT = 64
GateLeavingOut = Callable[[frozenset[int]], CleanGate]


class CompiledGate:
    """A compiled clean gate: its pass, the check of its rows apart, the checks after them, and (compiled when it first
    refuses a document) the checks of its parts that say which of them a refused document failed."""

    __slots__ = ("_leaving_out", "_parts", "_schemas", "_structure", "apart", "definition", "holds", "is_valid")

    def __init__(
        self, schemas: SchemaStore, definition: CleanGate, structure: str, leaving_out: GateLeavingOut
    ) -> None:
        """`leaving_out`: the gate again, the parts of the rows it is given (by id) left out of its pass."""
        self.definition = definition
        self.is_valid: DocumentCheck = schemas.compile(definition.schema).is_valid
        apart = [definition.rows[index] for index in definition.apart]
        self.apart: DocumentCheck | None = schemas.compile(rows_schema(apart)).is_valid if apart else None
        checks = tuple(check for check, _ in definition.after_pass)
        self.holds: DocumentCheck | None = (
            None if not checks else checks[0] if len(checks) == 1 else partial(_all_hold, checks)
        )
        self._schemas = schemas
        self._structure = structure
        self._leaving_out = leaving_out
        self._parts: _GateParts | None = None

    def passes(self, document: dict[str, Any]) -> bool:
        return self.refusal(document) is None

    def refusal(self, document: dict[str, Any]) -> Refusal | None:
        """None where the gate passes `document`; else what its refusal found (APART_REFUSED: the pass held and the
        rows checked apart did not; True: both held and a check after them refused; False: the pass refused, or the
        engine cannot read the document and the explanation says why)."""
        try:
            if not self.is_valid(document):
                return False
            if self.apart is not None and not self.apart(document):
                return APART_REFUSED
        except (ValueError, RecursionError):
            return False
        return None if self.holds is None or self.holds(document) else True

    def failed_parts(self, document: dict[str, Any], *, known: Refusal = False) -> _Failed | None:
        """The rule rows whose parts of the gate `document` fails, with the rows of the checks after the pass that
        fail, and whether the profiles must be recognised (recognition fails, or one of those rows depends on the
        profiles); None when its structure fails or cannot be read: then the structure and every row are explained.
        `known`: what the loop found of the refusal (Refusal), which is not asked again."""
        parts = self._parts or self._compile()
        try:
            if known is True:
                return parts.after_pass_held(document)
            if known is False:
                return parts.failed(document)
            if isinstance(known, Cause):
                return parts.of_cause(known, document)
            return parts.apart_failed(document)
        except (ValueError, RecursionError):
            return None

    def cause_of(self, document: dict[str, Any]) -> Cause | None:
        """The first of the causes remembered (those tried first) whose check `document` holds, if any: it fails that
        cause's rows and holds every other part of the pass, a refusal known in one check instead of the gate's."""
        if self._parts is None:
            return None
        try:
            for cause in self._parts.causes[:CAUSES_TRIED]:
                if cause.holds(document):
                    return cause
        except (ValueError, RecursionError):
            pass  # the gate's pass is asked, and the explanation says why
        return None

    def _compile(self) -> _GateParts:
        self._parts = _GateParts(self._schemas, self.definition, self._structure, self._leaving_out)
        return self._parts


class Cause:
    """Rows of a gate that fail together, and the check that a document fails each of them and holds every other part
    of the gate (the structure and recognition with them); `failed` and `by_profiles`, the failed parts of such a
    document whose checks after the pass find nothing: one object for all of them, which the rule plans look their
    rows up by."""

    __slots__ = ("by_profiles", "failed", "holds", "rows")

    def __init__(self, rows: tuple[int, ...], holds: DocumentCheck, failed: frozenset[int], by_profiles: bool) -> None:
        self.rows, self.holds = rows, holds
        self.failed, self.by_profiles = failed, by_profiles


class _ApartRefused:
    __slots__ = ()

    def __repr__(self) -> str:
        return "APART_REFUSED"


APART_REFUSED = _ApartRefused()
"""The refusal of a document whose pass held and whose rows checked apart (CleanGate.apart) did not."""
Refusal = bool | Cause | _ApartRefused
"""What the loop of the gates found of a refusal: False, nothing; APART_REFUSED, the pass held and some of the rows
checked apart failed; True, those held too (a check after them refused the document); a Cause, the document fails its
rows and holds every other part of the gate."""


class _GateParts:
    """The checks of a gate's parts, asked of a document the gate refused. The structure and recognition are asked
    together first (most refused documents pass both); the rows by element (the rows of one top-level element share
    its walk; those that depend on the profiles together), and one by one only in a group that fails, the last of them
    not at all when the others pass: one failing row among twenty costs about one pass over their parts. (Asked by
    halves they cost twice as much; through iter_errors, which reads every part for its errors, three times.)"""

    __slots__ = (
        "_after_pass",
        "_apart",
        "_apart_sets",
        "_apart_tried",
        "_by_profiles",
        "_groups",
        "_leaving_out",
        "_row_checks",
        "_rows",
        "_schemas",
        "_seen",
        "_structure",
        "causes",
    )

    def __init__(
        self, schemas: SchemaStore, definition: CleanGate, structure: str, leaving_out: GateLeavingOut
    ) -> None:
        compile_, rows = schemas.compile, definition.rows
        self._schemas, self._rows = schemas, rows
        self._by_profiles = frozenset(id(spec) for spec in definition.by_profiles)
        by_element: dict[str | None, list[int]] = {}
        for index, (spec, _) in enumerate(rows):
            # the rows that ask which profiles are recognised cost more than most: asked apart from the others
            element = None if id(spec) in self._by_profiles else spec["path"].split(".", 1)[0]
            by_element.setdefault(element, []).append(index)
        self._groups = tuple(
            (compile_(rows_schema([rows[index] for index in group])).is_valid, tuple(group[:-1]), group[-1])
            for group in by_element.values()
        )
        self._row_checks: list[DocumentCheck | None] = [None] * len(rows)
        self._after_pass = tuple(
            (check, tuple(id(spec) for spec in unstated)) for check, unstated in definition.after_pass
        )
        only_structure = {"$ref": structure}
        both = {"allOf": [only_structure, definition.recognition]}
        self._structure = (compile_(both).is_valid, compile_(only_structure).is_valid)
        self._leaving_out = leaving_out
        self._apart = definition.apart
        self._apart_sets: dict[tuple[int, ...], _ApartSet] = {}
        """Each set of the rows checked apart that documents failed: the check that a document fails exactly those,
        and the failed parts of such a document (one object for all of them, which the rule plans look their rows up
        by)."""
        self._apart_tried: list[_ApartSet] = []
        """The sets found last, first."""
        self.causes: list[Cause] = []
        """The causes compiled, the one found last first."""
        self._seen: dict[tuple[int, ...], int] = {}

    def failed(self, document: dict[str, Any]) -> _Failed | None:
        """failed_parts(), whose errors of the engine (ValueError, RecursionError) it lets through."""
        for cause in self.causes[:CAUSES_TRIED]:
            if cause.holds(document):
                return self.of_cause(cause, document)
        found = self._search(document)
        if found is not None and found[0] is not None:
            self._seen_again(found[0])
        return None if found is None else found[1]

    def after_pass_held(self, document: dict[str, Any]) -> _Failed:
        """The failed parts of a document whose pass held: the rows of the checks after the pass that fail (the
        structure, recognition and every row a schema states held with the pass)."""
        failed = self._after_pass_failed(document)
        return failed, not self._by_profiles.isdisjoint(failed)

    def apart_failed(self, document: dict[str, Any]) -> _Failed:
        """The failed parts of a document whose pass held and whose rows checked apart did not: those of them that
        fail, and the checks after the pass that fail. The sets of those rows found last are tried first, one check
        each; else the rows are asked one by one (the last without a check when the others hold)."""
        failed_apart = next((found for check, found in self._apart_tried if check(document)), None)
        if failed_apart is None:
            failed_apart = self._apart_set(self._apart_rows_failed(document))
        failed = self._after_pass_failed(document)
        if not failed:
            return failed_apart
        failed.update(failed_apart[0])
        return failed, not self._by_profiles.isdisjoint(failed)

    def _apart_rows_failed(self, document: dict[str, Any]) -> tuple[int, ...]:
        *asked, last = self._apart
        row_check = self._row_check
        rows = tuple(index for index in asked if not row_check(index)(document))
        if not rows or not row_check(last)(document):
            rows += (last,)
        return rows

    def _apart_set(self, rows: tuple[int, ...]) -> _Failed:
        """The failed parts of a document that fails exactly these of the rows checked apart, and the check of that
        set, tried first from now on."""
        found = self._apart_sets.get(rows)
        if found is None:
            if len(self._apart_sets) >= _APART_SETS_KEPT:
                self._apart_sets.clear()
            failing = [{"not": self._rows[index][1]} for index in rows]
            holding = rows_schema([self._rows[index] for index in self._apart if index not in rows])
            check = self._schemas.compile({"allOf": [*failing, holding]}).is_valid
            ids = frozenset(id(self._rows[index][0]) for index in rows)
            found = self._apart_sets[rows] = (check, (ids, not self._by_profiles.isdisjoint(ids)))
        tried = self._apart_tried
        if found in tried:
            tried.remove(found)
        tried.insert(0, found)
        del tried[APART_SETS_TRIED:]
        return found[1]

    def of_cause(self, cause: Cause, document: dict[str, Any]) -> _Failed:
        """The failed parts of a document that fails the cause's rows and whose other parts hold, the structure and
        recognition with them: those rows and the checks after the pass that fail."""
        failed = self._after_pass_failed(document)
        if not failed:
            return cause.failed, cause.by_profiles
        failed.update(cause.failed)
        return failed, not self._by_profiles.isdisjoint(failed)

    def _search(self, document: dict[str, Any]) -> tuple[tuple[int, ...] | None, _Failed] | None:
        """The failed parts found part by part, and the rows among them that a schema states (None when recognition
        fails too: no cause to remember, as every document it refuses is searched for its recognition's issues)."""
        with_recognition, alone = self._structure
        recognised_cleanly = with_recognition(document)  # the structure holds, and recognition has nothing to report
        if not recognised_cleanly and not alone(document):
            return None
        failed = self._after_pass_failed(document)
        rows, row_check = self._rows, self._row_check
        failed_rows: list[int] = []
        for group_check, asked, last in self._groups:
            if group_check(document):
                continue
            found = False
            for index in asked:
                if not row_check(index)(document):
                    failed_rows.append(index)
                    found = True
            if not found or not row_check(last)(document):
                failed_rows.append(last)
        failed.update(id(rows[index][0]) for index in failed_rows)
        by_profiles = not recognised_cleanly or not self._by_profiles.isdisjoint(failed)
        return (tuple(failed_rows) if recognised_cleanly else None), (failed, by_profiles)

    def _after_pass_failed(self, document: dict[str, Any]) -> set[int]:
        failed: set[int] = set()
        for check, unstated in self._after_pass:
            if not check(document):
                failed.update(unstated)
        return failed

    def _seen_again(self, rows: tuple[int, ...]) -> None:
        """Counts a cause the search found; compiles it once it comes again (and while fewer than CAUSES_KEPT are)."""
        seen = self._seen
        if len(seen) >= _COUNTED:
            seen.clear()
        count = seen[rows] = seen.get(rows, 0) + 1
        if count != _SEEN_BEFORE_KEPT or len(self.causes) >= CAUSES_KEPT:
            return
        # the gate's own pass without the cause's rows (not a join of the other rows' parts: that walked the
        # document in more pieces, and cost twice the pass), after the cause's rows: a cause that is not the
        # document's costs the check of its rows, most often
        others = self._leaving_out(frozenset(id(self._rows[index][0]) for index in rows))
        failing = [{"not": self._rows[index][1]} for index in rows]
        apart = [self._rows[index][1] for index in self._apart if index not in rows]
        check = self._schemas.compile({"allOf": [*failing, others.schema, *apart]}).is_valid
        failed = frozenset(id(self._rows[index][0]) for index in rows)
        cause = Cause(rows, check, failed, not self._by_profiles.isdisjoint(failed))
        if rows:
            self.causes.insert(0, cause)
        else:  # refused by the checks after the pass alone: its check is the whole pass, tried last
            self.causes.append(cause)

    def _row_check(self, index: int) -> DocumentCheck:
        check = self._row_checks[index]
        if check is None:
            check = self._row_checks[index] = self._schemas.compile(rows_schema([self._rows[index]])).is_valid
        return check


def _all_hold(checks: tuple[DocumentCheck, ...], document: dict[str, Any]) -> bool:
    return all(check(document) for check in checks)
