"""The codes of a coded element, whatever form it takes where the contract leaves the form open: a bare
code, a Coding ({system, code}) or a CodeableConcept ({coding: [...]}). An Attribute's `code` is such an
element: "Structure of ... Attribute: not shown", and `attribute[]` is "filtered as code|value"."""

from __future__ import annotations

from typing import Any

__all__ = ["codes_of", "same_form"]


def codes_of(element: Any) -> list[str]:
    """Every code `element` carries, in order; [] for anything that carries none."""
    if isinstance(element, str):
        return [element]
    if not isinstance(element, dict):
        return []
    if "coding" in element:
        codings = element["coding"] if isinstance(element["coding"], list) else []
        return [c["code"] for c in codings if isinstance(c, dict) and isinstance(c.get("code"), str)]
    code = element.get("code")
    return [code] if isinstance(code, str) else []


def same_form(example: Any, code: str) -> Any:
    """`code` written in the form of `example` (a coded element as a target serves it): what a client
    writes back to a target that chose a Coding or a CodeableConcept for an element of open structure."""
    if isinstance(example, dict) and "coding" in example:
        codings = example["coding"] if isinstance(example["coding"], list) else []
        system = next((c.get("system") for c in codings if isinstance(c, dict) and c.get("system")), None)
        return {"coding": [{"code": code} | ({"system": system} if system else {})]}
    if isinstance(example, dict):
        return {"code": code} | ({"system": example["system"]} if isinstance(example.get("system"), str) else {})
    return code
