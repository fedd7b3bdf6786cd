"""The coded filters' vocabularies as the tests of conformance/suite/reads/test_filters.py meet them: the cases of
the filters declaring vocabularies (profiles/resources, filterVocabularies), the codings items carry, a code of a
vocabulary from the value set the target serves, and the 400 that must name the parameter of a refused vocabulary."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from conformance.harness.plugin import Findings
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import ListRead, as_list, codings, list_reads, names_parameter
from profiles import load_contract

__all__ = [
    "REFUSED_CODED_FILTERS",
    "a_code_of",
    "all_codings",
    "assert_400_naming",
    "codes_carried",
    "declared_vocabulary_cases",
    "echoes_of",
    "list_read_of",
]

REFUSED_CODED_FILTERS = {
    ("/v1/parties", "type"): "ERIS-FILTER-001",
    ("/v1/parties", "status"): "ERIS-FILTER-001",
    ("/v1/document-references", "type"): "ERIS-FILTER-002",
}
"""Coded filters whose value, taken from an item, is refused: a vocabulary declared for them turned down."""


def declared_vocabulary_cases(cases: list[Any]) -> list[Any]:
    """The cases, once checked against profiles/resources: each coded filter with declared vocabularies."""
    declared = {(t, p) for t, rules in load_contract().resources.items() for p in rules.filter_vocabularies}
    listed = {tuple(case.values) for case in cases}
    assert listed == declared, f"vocabulary cases {sorted(listed)} are not the declared filters {sorted(declared)}"
    return cases


def list_read_of(resource_type: str) -> ListRead:
    return next(read for read in list_reads() if read.resource_type == resource_type)


def codes_carried(discovery: Discovery, read: ListRead, element: str) -> list[tuple[str, str]]:
    return [pair for item in discovery.items(read.path) for pair in codings(item.get(element))]


def echoes_of(value: str) -> list[str]:
    system = value.partition("|")[0]
    return [value, system, quote(value, safe=""), quote(system, safe=""), quote(value), quote(system)]


def assert_400_naming(
    discovery: Discovery, read: ListRead, parameter: str, value: str, findings: Findings, refused_by: str
) -> None:
    """A 400 ("A vocabulary outside them gives 400": `refused_by`, the requirement of the refusal) "that names
    the parameter" (ERIS-ERR-101)."""
    response = discovery.api.get(read.path, {parameter: value})
    shown = f"GET {read.path}?{parameter}={value}"
    if response.status_code != 400:
        findings.add(refused_by, f"{shown} (a vocabulary not declared for it) answered {response.status_code}")
    elif not names_parameter(response, parameter, echoes_of(value)):
        findings.add(
            "ERIS-ERR-101", f"{shown} answered 400 without naming the parameter {parameter!r}: {response.text[:300]}"
        )


def all_codings(node: Any) -> list[tuple[str, str]]:
    """(system, code) of every Coding anywhere in a resource."""
    if isinstance(node, list):
        return [pair for value in node for pair in all_codings(value)]
    if not isinstance(node, dict):
        return []
    found = codings(node) if "coding" in node else []
    return found + [pair for key, value in node.items() if key != "coding" for pair in all_codings(value)]


def a_code_of(discovery: Discovery, vocabulary: str) -> str | None:
    """A code of `vocabulary`, from the value set of that url if the target serves one."""
    response = discovery.api.get("/v1/value-sets", {"url": vocabulary})
    if response.status_code != 200:
        return None
    # a member without a value may be served as null (a form the contract leaves open)
    for value_set in as_list(response.json().get("items")):
        compose = value_set.get("compose") if isinstance(value_set, dict) else None
        for include in as_list(compose.get("include") if isinstance(compose, dict) else None):
            if not isinstance(include, dict) or include.get("system") != vocabulary:
                continue
            for concept in as_list(include.get("concept")):
                if isinstance(concept, dict) and isinstance(concept.get("code"), str):
                    return concept["code"]
    return None
