"""The clean gate: one jsonschema-rs pass that accepts a payload only when the validator would report nothing about it
at all, so that such a payload never reaches Python's rule functions.

It holds the structure, profile recognition (the meta.profile claims, their evidence, a profile where the context needs
one, only writable profiles in a write: profiles/recognition.py states its part beside its explanation), and the schema
of every rule row, the rows of each profile under "if the profile is recognised" (profiles/rules.py: each rule kind
states its own). The rows no schema can state (the check
digits of registry identifiers, the report order's key and dates) are checked after the pass, in Python
(`CleanGate.after_pass`); a kind that reads the recognised profiles always has a schema. So every resource type, in
every context and with any profile forced, has a gate.

The rows of the kinds whose findings exports commonly carry (RuleKind.checked_apart: a namespace of another
installation, a reference by a non-key identifier) are left out of the pass and checked by a second, small schema
after it (`CleanGate.apart`): a payload that fails only them takes the same pass as a clean one, and that small check
says which rows to explain.

A payload the gate refuses is explained by the parts of the gate that failed: its structure is read again only when
the structure fails, and of its rule rows (`CleanGate.rows`, each with its own part of the gate) only those whose parts
fail are explained (profiles/compiled_gate.py finds them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from profiles.contract import Contract, Profile, ResourceRules
from profiles.recognition import any_recognised_schema, recognised_schema, recognition_schema
from profiles.rules import DocumentCheck, GateProfiles, RuleKind, Schema
from profiles.schema_merge import merged

__all__ = ["CleanGate", "Row", "clean_gate", "rows_schema"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"

Row = tuple[Mapping[str, Any], Schema]
"""A rule row, and its part of the gate: a schema over the whole document that holds where the row finds nothing."""


@dataclass(frozen=True)
class CleanGate:
    schema: Schema
    """The pass: the structure, recognition, and every row of `rows` but those checked apart (their parts joined by
    profiles.schema_merge). Compile it with the schema store (it refers to the structure by $id)."""
    rows: tuple[Row, ...]
    """The rows that a schema states, in the order of the resource type's rows then of each profile's; a profile's
    row holds where its profile is not recognised."""
    apart: tuple[int, ...]
    """The rows of `rows` (by index) that the gate checks apart, after the pass: those of the kinds whose findings
    exports commonly carry (RuleKind.checked_apart). The gate passes a document only when their parts hold too."""
    after_pass: tuple[tuple[DocumentCheck, tuple[Mapping[str, Any], ...]], ...]
    """The rows no schema states, by kind, and the check of each kind's rows: the gate passes a document only when
    every check holds too."""
    recognition: Schema
    """The parts of profile recognition alone: where they hold, recognition has nothing to report."""
    by_profiles: tuple[Mapping[str, Any], ...]
    """The rows whose explanation depends on the profiles recognised: the rows of the profiles, and those of kinds that
    read them."""


def rows_schema(rows: Iterable[Row]) -> Schema:
    """One schema that holds where each of the rows' parts holds: the gate of these rows alone."""
    return merged({"$schema": _DIALECT, "allOf": [schema for _, schema in rows]})


def clean_gate(
    contract: Contract,
    rules: ResourceRules,
    context: str,
    structure: str,
    kinds: Mapping[str, type[RuleKind]],
    *,
    forced: Profile | None = None,
    merge: bool = True,
    leaving_out: frozenset[int] = frozenset(),
) -> CleanGate:
    """The gate of one resource type in one context (`structure`: the $id of its schema; `kinds`: the rule kinds by
    name; `forced`: a profile the caller validates against whatever the payload claims); its pass joined by
    profiles.schema_merge unless `merge` is false (the same verdict, slower). `leaving_out`: rule rows (by id) whose
    parts the pass leaves out too, the pass of a document whose other parts hold (profiles/compiled_gate.py)."""
    candidates = contract.profiles_of(rules.resource_type)
    recognised = {profile: {} if profile is forced else recognised_schema(profile) for profile in candidates}
    any_recognised = {} if forced is not None else any_recognised_schema(candidates)
    profiles = GateProfiles(recognised, any_recognised)
    required = context in rules.profile_required_in and forced is None
    required_schema = any_recognised if required else None
    recognition = recognition_schema(rules, context, candidates, recognised, required_schema, forced)
    parts: list[Schema | bool] = [{"$ref": structure}, *recognition]
    rows: list[Row] = []
    unstated: dict[str, list[Mapping[str, Any]]] = {}
    by_profiles = []
    apart: list[int] = []
    for spec in _checking(rules.rules, context):
        schema = kinds[spec["rule"]].document_schema(contract, spec, profiles)
        if kinds[spec["rule"]].reads_profiles:
            by_profiles.append(spec)
        if schema is None:
            unstated.setdefault(spec["rule"], []).append(spec)
            continue
        if kinds[spec["rule"]].checked_apart:
            apart.append(len(rows))
        elif id(spec) not in leaving_out:
            parts.append(schema)
        rows.append((spec, schema))
    for profile in candidates:
        of_profile = []
        for spec in _checking(profile.rules, context):
            schema = kinds[spec["rule"]].document_schema(contract, spec, profiles)
            by_profiles.append(spec)
            if schema is None:  # checked after the pass whatever the profiles: more than the rule, never less
                unstated.setdefault(spec["rule"], []).append(spec)
                continue
            if kinds[spec["rule"]].checked_apart:
                apart.append(len(rows))
            elif id(spec) not in leaving_out:
                of_profile.append(schema)
            rows.append((spec, {"if": recognised[profile], "then": schema}))
        if of_profile:  # in the pass, the profile asked once for all its rows
            parts.append({"if": recognised[profile], "then": {"allOf": of_profile}})
    after_pass = tuple(
        (kinds[name].after_pass(contract, context, specs), tuple(specs)) for name, specs in unstated.items()
    )
    schema = {"$schema": _DIALECT, "allOf": parts}
    return CleanGate(
        merged(schema) if merge else schema,
        tuple(rows),
        tuple(apart),
        after_pass,
        merged({"$schema": _DIALECT, "allOf": recognition}),
        tuple(by_profiles),
    )


def _checking(specs: tuple[Mapping[str, Any], ...], context: str) -> list[Mapping[str, Any]]:
    """The rows that check something in `context` (an example binding only illustrates codes)."""
    return [s for s in specs if context in s.get("contexts", (context,)) and s.get("strength") != "example"]
