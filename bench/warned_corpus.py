"""Payloads with one warning each, and a realistic mix, from the served payloads of bench/corpus.py.

An integrator's export carries warnings the contract tolerates: an identifier in a namespace of another installation,
or in a key of this installation that its configuration does not name, a reference to a Party by a namespace that is
no reference key (PESEL), a NIP whose check digit fails. `twins(document)` gives a payload's twins, each with one of
those changes (the caller checks that a twin holds exactly the one warning); `corpora` gives the clean payloads, their
warned twins and a mix in which `share` of the payloads are warned, as NDJSON lines.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from corpus import served
from payload_parts import pesel

from profiles import load_installation
from profiles.installation import INSTALLATION_OID_ARC
from profiles.validator import Validator

__all__ = ["MIX_SHARE", "WARNINGS", "corpora", "twins"]

Document = dict[str, Any]
MIX_SHARE = 0.22
"""Share of warned payloads in the realistic mix (issue 39)."""
WARNINGS = (
    "identifier-installation-foreign",
    "identifier-namespace-unknown",
    "reference-identifier-not-key",
    "identifier-nip-invalid",
)
_PLACEHOLDERS = load_installation().placeholders()


def _installation_identifier(document: Document) -> int | None:
    identifiers = document.get("identifier")
    for index, identifier in enumerate(identifiers if isinstance(identifiers, list) else []):
        if isinstance(identifier, dict) and str(identifier.get("system", "")).startswith(INSTALLATION_OID_ARC):
            return index
    return None


def _foreign(document: Document, rng: random.Random) -> Document | None:
    """Its first installation identifier in the same key of another installation (one more digit to its arc)."""
    index = _installation_identifier(document)
    if index is None:
        return None
    twin = copy.deepcopy(document)
    installation, key = twin["identifier"][index]["system"].removeprefix(INSTALLATION_OID_ARC).split(".", 1)
    twin["identifier"][index]["system"] = f"{INSTALLATION_OID_ARC}{installation}9.{key}"
    return twin


def _unnamed_key(document: Document, rng: random.Random) -> Document | None:
    """Its first installation identifier in a key of this installation that the configuration does not name."""
    index = _installation_identifier(document)
    if index is None:
        return None
    twin = copy.deepcopy(document)
    twin["identifier"][index]["system"] = f"{INSTALLATION_OID_ARC}{_PLACEHOLDERS['installation']}.999999"
    return twin


def _owner_by_pesel(document: Document, rng: random.Random) -> Document | None:
    if not isinstance(document.get("owner"), list) or not document["owner"]:
        return None
    twin = copy.deepcopy(document)
    identifier = {"system": _PLACEHOLDERS["pesel_system"], "value": pesel(rng)}
    twin["owner"] = [{"type": "Party", "identifier": identifier}]
    return twin


def _nip_check_digit(document: Document, rng: random.Random) -> Document | None:
    identifiers = document.get("identifier")
    for index, identifier in enumerate(identifiers if isinstance(identifiers, list) else []):
        if isinstance(identifier, dict) and identifier.get("system") == _PLACEHOLDERS["nip_system"]:
            twin = copy.deepcopy(document)
            value = identifier["value"]
            twin["identifier"][index]["value"] = value[:-1] + str((int(value[-1]) + 1) % 10)
            return twin
    return None


_CHANGES: tuple[Callable[[Document, random.Random], Document | None], ...] = (
    _foreign,
    _unnamed_key,
    _owner_by_pesel,
    _nip_check_digit,
)


def twins(document: Document, rng: random.Random) -> list[Document]:
    """The document's twins, one a change that applies to it, in the order of WARNINGS."""
    return [twin for change in _CHANGES if (twin := change(document, rng)) is not None]


def _line(document: Document) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def corpora(count: int, seed: int = 1, share: float = MIX_SHARE) -> tuple[list[str], list[str], list[str]]:
    """`count` served payloads eris finds nothing about, their twins with exactly one warning each (the changes taken
    in turns among those that apply), and the mix: each payload warned with probability `share`. NDJSON lines."""
    validator = Validator()
    rng = random.Random(seed)
    clean: list[str] = []
    warned: list[str] = []
    mix: list[str] = []
    for _, document in served(count * 3, seed):
        if validator.validate(document):
            continue
        candidates = []
        for twin in twins(document, rng):
            issues = validator.validate(twin)
            if len(issues) == 1 and issues[0].code in WARNINGS and issues[0].severity.value == "warning":
                candidates.append(twin)
        if not candidates:
            continue
        twin = candidates[len(clean) % len(candidates)]
        clean.append(_line(document))
        warned.append(_line(twin))
        mix.append(warned[-1] if rng.random() < share else clean[-1])
        if len(clean) == count:
            return clean, warned, mix
    raise SystemExit(f"the corpus of seed {seed} has fewer than {count} clean payloads with a warned twin")
