"""The kinds of payload the strategies draw: every resource type of the contract, with each of its
profiles and without one where it may go without, as served; and every write of openapi.json."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance.generation.strategies.recognition import recognition_severity
from conformance.generation.strategies.reports import report_order
from conformance.generation.strategies.resources import payloads
from conformance.generation.strategies.writes import WriteOperation, valid_write, write_operations
from profiles import Contract
from profiles.validator import RESOURCE

_REPORT_ORDER = "ReportOrder"
"""The one type drawn from its operation definitions rather than from resource rules (reports.py)."""


@dataclass(frozen=True)
class PayloadKind:
    """A resource type as served (with a profile or none), or the body of one write operation."""

    resource_type: str
    profile: str | None
    context: str
    operation: WriteOperation | None = None

    @property
    def name(self) -> str:
        """A short id for test reports: `Party[Contractor]`, `Location`, `createParty`."""
        if self.operation is not None:
            return self.operation.operation_id
        return f"{self.resource_type}[{self.profile}]" if self.profile else self.resource_type

    def validate_options(self) -> dict[str, Any]:
        """The keyword arguments of `Validator.validate` that check a payload of this kind."""
        return {"resource_type": self.resource_type, "context": self.context}


def payload_kinds(contract: Contract) -> tuple[PayloadKind, ...]:
    """Every kind the strategies cover, for tests to parametrize over."""
    kinds = []
    for resource_type in sorted(contract.resources):
        if recognition_severity(contract, resource_type, RESOURCE) != "error":
            kinds.append(PayloadKind(resource_type, None, RESOURCE))
        kinds.extend(PayloadKind(resource_type, p.name, RESOURCE) for p in contract.profiles_of(resource_type))
    kinds.extend(PayloadKind(o.resource_type, o.profile, o.context, o) for o in write_operations(contract))
    return tuple(kinds)


def valid_resource(contract: Contract, resource_type: str, *, profile: str | None = None) -> st.SearchStrategy[dict]:
    """Payloads of `resource_type` as the service serves them (no error in context resource).

    `profile` (a name of profiles/definitions) draws payloads of that profile; without it, payloads of
    no profile, or of any of the type's profiles where the type must have one (Party)."""
    if resource_type == _REPORT_ORDER:
        if profile is not None:
            raise ValueError(f"{resource_type} has no profiles")
        return report_order(contract)
    return payloads(contract, resource_type, profile=profile, context=RESOURCE)


_BUILT: dict[tuple[int, PayloadKind], tuple[Contract, st.SearchStrategy[dict]]] = {}


def valid_payload(contract: Contract, kind: PayloadKind) -> st.SearchStrategy[dict]:
    """Payloads of `kind` that the validator accepts with `kind.validate_options()`.

    Built once per contract and kind: a strategy tree of a resource takes a while to build, and the
    mutations ask for the same ones again and again."""
    key = (id(contract), kind)
    built = _BUILT.get(key)
    if built is None or built[0] is not contract:
        if kind.operation is not None:
            strategy = valid_write(contract, kind.operation)
        else:
            strategy = valid_resource(contract, kind.resource_type, profile=kind.profile)
        built = _BUILT[key] = (contract, strategy)
    return built[1]


def sample_payloads(contract: Contract, per_kind: int = 1) -> list[tuple[PayloadKind, dict]]:
    """A fixed sample of valid payloads, `per_kind` of every kind: the same on every call (drawn
    derandomized), for tests that want concrete seeds rather than a strategy."""
    drawn: list[tuple[PayloadKind, dict]] = []
    for kind in payload_kinds(contract):
        drawn.extend((kind, payload) for payload in _drawn(valid_payload(contract, kind), per_kind))
    return drawn


def _drawn(strategy: st.SearchStrategy[dict], count: int) -> list[dict]:
    found: list[dict] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(payload: dict) -> None:
        found.append(payload)

    collect()
    return found[:count]
