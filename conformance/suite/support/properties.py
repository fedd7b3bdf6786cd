"""Helpers of the property phase's stateful sequences (test_properties.py): Contractor write bodies drawn from
the contract data, the state machine that sends schemathesis' linked steps through the suite's client and checks
that a read after a write finds what was written, and a seed for hypothesis' stateful runner."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import hypothesis.core
from hypothesis import reject
from hypothesis import strategies as st
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.transport import Response
from schemathesis.generation.stateful.state_machine import APIStateMachine, StepInput, StepOutput

from conformance.configuration.target import Target
from conformance.evidence.outcomes import Blocked
from conformance.generation.properties import described, judge, send
from conformance.harness.plugin import Api, Findings, SuiteCouldNotSend
from conformance.suite.support.writes import contractor_body, display_name, identifiers, installation_systems
from profiles import Contract
from profiles.openapi_index import list_read
from profiles.validator import Validator

PARTIES = "/v1/parties"
_WRITE_REQUIREMENTS = {"POST": "ERIS-PARTY-012", "PATCH": "ERIS-PARTY-015"}


@contextlib.contextmanager
def forced_seed(seed: int) -> Iterator[None]:
    """hypothesis' stateful runner takes no `@seed`: give it the run's seed the way `--hypothesis-seed` does."""
    before = hypothesis.core.global_force_seed
    # hypothesis leaves it unannotated (None): its pytest plugin sets an int there just so
    hypothesis.core.global_force_seed = seed  # type: ignore[assignment]
    try:
        yield
    finally:
        hypothesis.core.global_force_seed = before


_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40)


def contractor_writes(contract: Contract, owner_nip: str) -> st.SearchStrategy[dict[str, Any]]:
    """Contractor write bodies of the owner `owner_nip`: a name and a comment drawn as any printable text, the
    profile recognised by category, by meta.profile or both, the register namespace with the value omitted."""
    return st.builds(
        lambda name, comment, by: contractor_body(contract, name, by=by, owner_nip=owner_nip, comment=comment),
        _texts,
        _texts,
        st.sampled_from(("category", "meta", "both")),
    )


class PartyLedger:
    """Sends /v1/parties steps through the suite's client, judges every answer into `findings`, remembers what
    each accepted write wrote, and checks that a read by an identifier of a written party finds it as written."""

    def __init__(
        self,
        api: Api,
        target: Target,
        contract: Contract,
        validator: Validator,
        findings: Findings,
        requirements: dict[str, str],
    ) -> None:
        self.api, self.target, self.validator, self.findings = api, target, validator, findings
        self.requirements = requirements
        self.installation = installation_systems(contract)
        self.written: dict[str, tuple[str, dict[str, Any]]] = {}
        """identifier token -> (method of the last write, body written)."""
        self.accepted_writes = 0
        """POST answers 200."""
        self.addressable_writes = 0
        """POST answers 200 whose party has an identifier (system and value) in an installation namespace."""
        self.reads_after: dict[str, int] = {}
        """method of the write -> reads of a party it wrote."""
        self.sent = 0
        """Steps the target answered."""
        self.unsent: list[str] = []
        """Why the suite's client could not send a step (its own doing, not the target's)."""

    def step(self, case: Any) -> Any | None:
        """The step sent and judged; None when it could not be sent, or its answer passed the run's bounds (that
        is recorded against the operation's requirement)."""
        try:
            sent = send(self.api, case, self.target.token)
        except SuiteCouldNotSend as error:
            self.unsent.append(str(error))
            return None
        except Blocked:
            return None
        self.sent += 1
        try:
            for finding in judge(sent, validator=self.validator, api=self.api):
                self.findings.add(finding.requirement, f"[{finding.check}] {finding.message}")
        except Blocked:
            return None
        self._remember_write(case, sent)
        self._check_read_after_write(case, sent)
        return sent

    def _remember_write(self, case: Any, sent: Any) -> None:
        method = case.method.upper()
        if method not in _WRITE_REQUIREMENTS or sent.response.status_code != 200:
            return
        try:
            party = sent.response.json()
        except ValueError:
            return
        if not isinstance(party, dict):
            return
        assigned = identifiers(party, self.installation)
        if method == "POST":
            self.accepted_writes += 1
            self.addressable_writes += bool(assigned)
        for system, value in assigned:
            self.written[f"{system}|{value}"] = (method, case.body)

    def _check_read_after_write(self, case: Any, sent: Any) -> None:
        token = (case.query or {}).get("identifier")
        asked = set(case.query or {}) - {"offset"}  # the links state the offset (see openapi.json)
        if case.method.upper() != "GET" or asked != {"identifier"} or token not in self.written:
            return
        method, body = self.written[token]
        self.reads_after[method] = self.reads_after.get(method, 0) + 1
        if strangers := _without_the_identifier(sent, token):
            # the read answered what it was not asked for: the identifier filter's defect, not the write's
            self.findings.add(
                list_read(PARTIES).filters["identifier"].requirement or _WRITE_REQUIREMENTS[method],
                f"[identifier_filter] {described(sent, f'answered parties without identifier={token}: {strangers}')}",
            )
            return
        problem = _read_back_problem(sent, token, body)
        system = token.partition("|")[0]
        if problem and (broken := self.api.identifier_filter_fails(PARTIES, system)):
            # a read by this identifier form finds no party at all: the filter's defect, not the write's
            self.findings.add(list_read(PARTIES).filters["identifier"].requirement or "ERIS-PARTY-012", broken)
            return
        if problem:
            self.findings.add(
                _WRITE_REQUIREMENTS[method],
                f"[read_after_write] {described(sent, f'after {method} {PARTIES}: {problem}')}",
            )

    def verdict(self) -> None:
        """Findings about the sequences as a whole: writes that could not be read back at all (nothing when the
        target answered no step: the test says why it was not exercised)."""
        if not self.sent:
            return
        if not self.accepted_writes:
            self.findings.add("ERIS-PARTY-012", "no Contractor write of the sequences was answered 200")
        elif not self.addressable_writes:
            self.findings.add(
                "ERIS-PARTY-012",
                f"{self.accepted_writes} Contractor writes were answered 200, none with an assigned identifier "
                "(system and value) in an installation namespace to read it back by",
            )


def party_sequences(machine: type[APIStateMachine], ledger: PartyLedger) -> type[APIStateMachine]:
    """A subclass of schemathesis' state machine for /v1/parties whose steps go through `ledger`. A step that
    follows a link sends only what the link gave: a read by the assigned identifier is that and nothing else."""

    class PartySequences(machine):  # type: ignore[misc, valid-type]  # the schema's machine: a base known at run time
        def step(self, input: StepInput) -> StepOutput:
            case = input.case
            if input.transition is not None and input.is_applied:
                linked = {name for location, name in input.applied_parameters if location == ParameterLocation.QUERY}
                if linked:
                    case.query = {name: value for name, value in (case.query or {}).items() if name in linked}
                    if case.method.upper() == "GET":  # the links state the offset; its default is LIMIT-002's
                        case.query.setdefault("offset", "0")
            sent = ledger.step(case)
            if sent is None:
                reject()  # nothing the target answered to go on from
            return StepOutput(Response.from_any(sent.response), case)

    return PartySequences


def walk_links(schema: Any, ledger: PartyLedger, document: dict[str, Any], case: Any, bodies: dict[str, Any]) -> None:
    """Send `case`, then every operation its answer links to (OpenAPI links of openapi.json, followed in name
    order, depth first), with the link's parameters and `bodies[operationId]` as body."""
    sent = ledger.step(case)
    if sent is None:
        return
    operation = document["paths"][case.path][case.method.lower()]
    links = operation["responses"].get(str(sent.response.status_code), {}).get("links", {})
    if not links:
        return
    answer = sent.response.json()
    for _, link in sorted(links.items()):
        parameters = link_parameters(link, answer)
        if parameters is None:
            continue
        path, method = _operation_of(document, link["operationId"])
        body = bodies.get(link["operationId"])
        following = schema[path][method].Case(query=parameters, **({"body": body} if body is not None else {}))
        walk_links(schema, ledger, document, following, bodies)


def _operation_of(document: dict[str, Any], operation_id: str) -> tuple[str, str]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return path, method.upper()
    raise KeyError(f"no operation has the operationId {operation_id!r}")


def _without_the_identifier(sent: Any, token: str) -> list[Any]:
    """The ids (at most 5) of the parties a read by identifier=`token` answered without that identifier."""
    try:
        items = sent.response.json().get("items") if sent.response.status_code == 200 else None
    except (ValueError, AttributeError):
        return []
    system, _, value = token.partition("|")
    return [
        item.get("id") for item in items or [] if isinstance(item, dict) and (system, value) not in identifiers(item)
    ][:5]


def _read_back_problem(sent: Any, token: str, body: dict[str, Any]) -> str | None:
    if sent.response.status_code != 200:
        return f"the read by identifier={token} answered {sent.response.status_code}"
    try:
        items = sent.response.json().get("items")
    except (ValueError, AttributeError):
        return "the read did not answer a JSON envelope"
    system, _, value = token.partition("|")
    found = [item for item in items or [] if isinstance(item, dict) and (system, value) in identifiers(item)]
    if len(found) != 1:
        return f"the read by identifier={token} found {len(found)} parties with that identifier, not 1"
    party = found[0]
    if display_name(party) != display_name(body):
        return f"the party read has the name {display_name(party)!r}, not the {display_name(body)!r} written"
    if "comment" in body and party.get("comment") != body["comment"]:
        return f"the party read has the comment {party.get('comment')!r}, not the {body['comment']!r} written"
    return None


def _pointer(document: Any, pointer: str) -> Any:
    node = document
    for step in pointer.lstrip("/").split("/") if pointer.strip("/") else []:
        step = step.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        elif isinstance(node, dict) and step in node:
            node = node[step]
        else:
            return None
    return node


def link_parameters(link: dict[str, Any], answer: Any) -> dict[str, str] | None:
    """The parameters an OpenAPI link gives, its `{$response.body#/...}` expressions evaluated on `answer`;
    None when one of them does not resolve."""
    resolved: dict[str, str] = {}
    for name, expression in link.get("parameters", {}).items():
        missing = False

        def value_of(match: re.Match[str]) -> str:
            nonlocal missing
            value = _pointer(answer, match.group(1))
            missing = missing or value is None or isinstance(value, dict | list)
            return str(value)

        resolved[name] = re.sub(r"\{\$response\.body#([^}]*)\}", value_of, expression)
        if missing:
            return None
    return resolved
