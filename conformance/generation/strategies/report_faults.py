"""Faults of report orders, found from the operation definitions of `profiles/operations` and the
report rules: an integer parameter out of range or not an integer, a certificate or a private key
instead of the public key, a run time not in UTC, no reportId."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from conformance.generation.strategies.fault_support import Broken, Draw, pick
from conformance.generation.strategies.keys import certificate_pem, private_key_pem
from conformance.generation.strategies.kinds import PayloadKind
from profiles import Contract


def _operation(contract: Contract, kind: PayloadKind, payload: dict) -> Mapping[str, Any] | None:
    report_id = payload.get("reportId")
    if kind.resource_type != "ReportOrder" or not isinstance(payload.get("parameters"), dict):
        return None
    return contract.operations.get(report_id) if isinstance(report_id, str) else None


def _integer_parameters(contract: Contract, kind: PayloadKind, payload: dict, bound: str | None = None) -> list:
    operation = _operation(contract, kind, payload)
    if operation is None:
        return []
    return [
        p
        for p in operation["parameter"]
        if p["type"] == "integer" and p["name"] in payload["parameters"] and (bound is None or bound in p)
    ]


_FAR = 10**6
"""How far out of range a parameter goes: far enough to be plainly out, short enough to stay a number
the validator reads as one (it takes written integers of at most 20 characters)."""


def parameter_above_maximum(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    definition = pick(draw, _integer_parameters(contract, kind, payload, "maximum"))
    if definition is None:
        return None
    value = draw(st.just(definition["maximum"] + 1) | st.integers(definition["maximum"] + 1, _FAR))
    payload["parameters"][definition["name"]] = str(value)
    return Broken(
        payload,
        "report-parameter-out-of-range",
        ("parameters", definition["name"]),
        f"{definition['name']} {value}, above its maximum {definition['maximum']}",
    )


def parameter_below_minimum(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    definition = pick(draw, _integer_parameters(contract, kind, payload, "minimum"))
    if definition is None:
        return None
    value = draw(st.just(definition["minimum"] - 1) | st.integers(-_FAR, definition["minimum"] - 1))
    payload["parameters"][definition["name"]] = str(value)
    return Broken(
        payload,
        "report-parameter-out-of-range",
        ("parameters", definition["name"]),
        f"{definition['name']} {value}, below its minimum {definition['minimum']}",
    )


def _not_integers() -> st.SearchStrategy[str]:
    decimals = st.integers(0, 9999).map(lambda n: f"{n}.5")
    words = st.text(string.ascii_letters, min_size=1, max_size=8)
    return st.one_of(decimals, words, st.just(""))


def parameter_not_integer(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    definition = pick(draw, _integer_parameters(contract, kind, payload))
    if definition is None:
        return None
    value = draw(_not_integers())
    payload["parameters"][definition["name"]] = value
    return Broken(
        payload,
        "report-parameter-not-integer",
        ("parameters", definition["name"]),
        f"{definition['name']} {value!r} is not an integer",
    )


def _public_key_replaced(kind: PayloadKind, payload: dict, pem: str, code: str, what: str) -> Broken | None:
    if kind.resource_type != "ReportOrder" or "publicKeyPem" not in payload:
        return None
    payload["publicKeyPem"] = pem
    return Broken(payload, code, ("publicKeyPem",), f"publicKeyPem holds {what}")


def public_key_is_certificate(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    return _public_key_replaced(
        kind, payload, certificate_pem(), "report-public-key-is-certificate", "a self-signed certificate"
    )


def public_key_is_private(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    return _public_key_replaced(kind, payload, private_key_pem(), "report-public-key-is-private", "a private key")


def run_at_not_utc(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    if kind.resource_type != "ReportOrder" or not isinstance(payload.get("runAt"), str):
        return None
    offset = draw(st.sampled_from(["+02:00", "-05:30", ""]))  # another zone, or none at all
    payload["runAt"] = payload["runAt"].removesuffix("Z").removesuffix("+00:00") + offset
    return Broken(payload, "report-runat-not-utc", ("runAt",), f"runAt {payload['runAt']!r} is not in UTC")


def report_id_missing(draw: Draw, contract: Contract, kind: PayloadKind, payload: dict) -> Broken | None:
    if kind.resource_type != "ReportOrder" or "reportId" not in payload:
        return None
    del payload["reportId"]
    return Broken(payload, "report-id-missing", (), "reportId removed")
