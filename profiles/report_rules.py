"""The rule kinds of the report order (POST /v1/reports): none can be stated as JSON Schema, so the clean gate runs
their explanations after its pass (profiles/rules.py, RuleKind.after_pass)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from profiles.contract import Contract
from profiles.identifier_formats import FORMATS
from profiles.rules import Finding, RuleContext, RuleKind

_PEM_HEADERS = ("-----BEGIN PUBLIC KEY-----", "-----BEGIN RSA PUBLIC KEY-----")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_LEAP_SECOND = re.compile(r"(T\d\d:\d\d:)60(?=\D|$)", re.IGNORECASE)


@lru_cache(maxsize=512)
def _public_key_problem(pem: str, recommended_bits: int) -> Finding | None:
    """At most one finding per key: the first thing wrong with it. Cached: orders reuse keys."""
    text = pem.strip()
    if "-----BEGIN CERTIFICATE-----" in text:
        return Finding(
            "report-public-key-is-certificate",
            "publicKeyPem holds a certificate, not a public key; send the key itself "
            "(for example: openssl x509 -pubkey -noout -in cert.pem)",
        )
    if "PRIVATE KEY-----" in text:
        return Finding(
            "report-public-key-is-private",
            "publicKeyPem holds a PRIVATE key; send only the public key, and make a new key pair: "
            "this one is no longer secret",
        )
    if not text.startswith(_PEM_HEADERS):
        return Finding(
            "report-public-key-not-pem",
            "publicKeyPem must be a PEM block starting with -----BEGIN PUBLIC KEY----- "
            "or -----BEGIN RSA PUBLIC KEY-----",
        )
    # imported here: eris validate starts 6-8 ms sooner, and most inputs hold no report order
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(text.encode("ascii"))
    except Exception as error:  # ValueError, or UnsupportedAlgorithm for some malformed DER
        return Finding("report-public-key-unreadable", f"publicKeyPem cannot be read as a public key: {error}")
    if not isinstance(key, RSAPublicKey):
        return Finding(
            "report-public-key-not-rsa",
            f"publicKeyPem is a {type(key).__name__.removeprefix('_')} key; the contract needs an RSA key",
        )
    if key.key_size < recommended_bits:
        return Finding(
            "report-public-key-below-recommended-size",
            f"the RSA key has {key.key_size} bits; {recommended_bits} bits are recommended",
        )
    return None


class PublicKeyPem(RuleKind):
    name = "public-key-pem"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if isinstance(value, str):
            problem = _public_key_problem(value, ctx.contract.limits.recommended_rsa_bits)
            if problem is not None:
                yield problem

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> None:
        return None  # a key's reading and its size


def parse_datetime(value: str) -> datetime:
    """An ISO 8601 date-time as Python reads it; a leap second (second 60, which ISO 8601 allows and
    Python's datetime does not) is read as second 59. ValueError when it is not one."""
    return datetime.fromisoformat(_LEAP_SECOND.sub(r"\g<1>59", value))


class UtcDatetime(RuleKind):
    name = "utc-datetime"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, str):
            return
        try:
            moment = parse_datetime(value)
        except ValueError:
            yield Finding("report-runat-invalid", f"{value!r} is not an ISO 8601 date-time (e.g. 2026-11-21T08:00:00Z)")
            return
        if "T" not in value.upper() and " " not in value:
            yield Finding("report-runat-invalid", f"{value!r} is a date without a time; runAt is a date-time")
        elif moment.tzinfo is None:
            yield Finding("report-runat-not-utc", f"{value!r} has no time zone; runAt is in UTC: end it with Z")
        elif moment.utcoffset() != timedelta(0):
            yield Finding(
                "report-runat-not-utc", f"{value!r} is not in UTC (offset {moment.strftime('%z')}); end it with Z"
            )

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> None:
        return None  # what Python's datetime reads


def unchosen_report(order: Mapping[str, Any], operations: Mapping[str, Any]) -> Finding | None:
    """Why `order` chooses none of the reports `operations`, or None when it chooses one: the cases of the
    contract's 404 (reportId missing, only groupId, an unknown reportId). The message says only why; the
    validator adds what follows, the service answers 404 with it. A reportId that is not a string is the
    schema's to report."""
    chosen = order.get("reportId")
    if chosen is None:
        why = "only groupId is given; groupId does not choose a report" if "groupId" in order else "no reportId"
        return Finding("report-id-missing", why)
    if isinstance(chosen, str) and chosen not in operations:
        known = ", ".join(sorted(operations))
        return Finding(
            "report-id-unknown",
            f"reportId {chosen!r} is not a report of the contract ({known})",
            ("reportId",),
        )
    return None


class ReportId(RuleKind):
    name = "report-id"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, dict):
            return
        finding = unchosen_report(value, ctx.contract.operations)
        if finding is None:
            return
        if finding.code == "report-id-missing":
            yield finding._replace(message=f"{finding.message}: the service answers 404 without reportId")
        else:
            yield finding._replace(
                message=f"{finding.message}; the service answers 404 unless the installation has a producer for it"
            )

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> None:
        return None  # unchosen_report, which the reference implementation answers by


def _parameter_problem(definition: Mapping[str, Any], raw: Any) -> Finding | None:
    name = definition["name"]
    if not isinstance(raw, str):
        return None  # the schema reports a parameter that is not a string
    if definition["type"] == "integer":
        if len(raw) > 20 or not _INTEGER.match(raw.strip()):
            return Finding(
                "report-parameter-not-integer",
                f"parameter {name} must be an integer written as a string, not {raw!r}",
                (name,),
            )
        number = int(raw)
        low, high = definition.get("minimum"), definition.get("maximum")
        if (low is not None and number < low) or (high is not None and number > high):
            return Finding(
                "report-parameter-out-of-range",
                f"parameter {name} is {number}; it must be from {low} to {high}",
                (name,),
            )
    elif "format" in definition:
        check, shape = FORMATS[definition["format"]]
        if not check(raw):
            return Finding(
                f"report-parameter-{definition['format']}-invalid",
                f"parameter {name} {raw!r} is not {shape}",
                (name,),
            )
    return None


class ReportParameters(RuleKind):
    name = "report-parameters"

    @staticmethod
    def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        if not isinstance(value, dict):
            return
        chosen = value.get("reportId")
        operation = ctx.contract.operations.get(chosen) if isinstance(chosen, str) else None
        if operation is None:
            return
        parameters = value.get("parameters")
        if not isinstance(parameters, dict):
            if parameters is None:
                names = ", ".join(p["name"] for p in operation["parameter"] if p.get("required"))
                yield Finding("report-parameter-missing", f"report {operation['id']} needs parameters {names}")
            return
        for definition in operation["parameter"]:
            name = definition["name"]
            if name not in parameters:
                if definition.get("required"):
                    yield Finding(
                        "report-parameter-missing", f"report {operation['id']} needs parameter {name}", ("parameters",)
                    )
                continue
            problem = _parameter_problem(definition, parameters[name])
            if problem is not None:
                yield problem._replace(at=("parameters", *problem.at))

    @classmethod
    def value_schema(cls, contract: Contract, spec: Mapping[str, Any]) -> None:
        return None  # integers written as strings, their ranges, registry formats


REPORT_KINDS: tuple[type[RuleKind], ...] = (PublicKeyPem, UtcDatetime, ReportId, ReportParameters)
