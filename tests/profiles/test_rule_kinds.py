"""Every rule kind is defined once, with both halves (profiles/rules.py), so that every resource type, in every context
and with any of its profiles forced, has a clean gate that passes its clean payloads; and a payload the gate refuses is
explained by the parts of it that failed, not by every rule again. (tests/profiles/test_fast_path.py holds the two
halves to the same answers.)"""

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from case_files import load_tests
from hypothesis import HealthCheck, Phase, find, settings

from conformance.generation.strategies import payload_kinds, valid_payload
from profiles.contract import CONTEXTS, RESOURCE
from profiles.rule_set import standard_kinds
from profiles.rules import Finding, RuleContext, RuleKind
from profiles.validator import Validator

VALIDATOR = Validator()
EXPLAINED = Validator(VALIDATOR.contract, VALIDATOR.schemas, fast_path=False)
CONTRACT = VALIDATOR.contract


def _gated_contexts() -> Iterator[Any]:
    for name in sorted(CONTRACT.resources):
        for context in CONTEXTS:
            yield pytest.param(name, context, None, id=f"{name}-{context}")
            for profile in CONTRACT.profiles_of(name):
                yield pytest.param(name, context, profile.name, id=f"{name}[{profile.name}]-{context}")


@pytest.mark.parametrize(("resource_type", "context", "profile"), list(_gated_contexts()))
def test_every_resource_type_and_profile_has_a_clean_gate(resource_type, context, profile):
    gate = VALIDATOR.clean_gate(resource_type, context=context, profile=profile)
    assert gate is not None
    unstated = [spec["rule"] for _, specs in gate.after_pass for spec in specs]
    assert not [name for name in unstated if VALIDATOR.kinds[name].reads_profiles]  # they know no profile


def _kinds_as_drawn_and_forced() -> Iterator[Any]:
    for kind in payload_kinds(CONTRACT):
        yield pytest.param(kind, False, id=kind.name)
        if kind.profile is not None:
            yield pytest.param(kind, True, id=f"{kind.name}-forced")


@pytest.mark.parametrize(("kind", "forced"), list(_kinds_as_drawn_and_forced()))
def test_the_gate_of_every_kind_of_payload_passes_a_clean_one(kind, forced):
    """A type whose gate refused everything (a rule no schema states, once made the whole type's gate fall away)
    would still give the right answers, each payload explained in full, at several times the cost. Validated as drawn,
    and with the kind's profile forced (`eris validate --profile`)."""
    options = kind.validate_options() | ({"profile": kind.profile} if forced else {})

    def clean_and_passed(payload: dict[str, Any]) -> bool:
        return not EXPLAINED.validate(payload, **options) and VALIDATOR.passes_gate(payload, **options)

    find(
        valid_payload(CONTRACT, kind),
        clean_and_passed,
        # the profile's budget (tests/budgets.py): a clean payload is found among the first few
        settings=settings(database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)),
    )


def test_the_gate_passes_the_clean_case_payloads_but_where_it_is_conservative():
    refused = [
        case_test.id
        for case_test in load_tests()
        if not EXPLAINED.validate(case_test.data, **case_test.options())
        and not VALIDATOR.passes_gate(case_test.data, **case_test.options())
    ]
    # one identifier must be in the namespaces of one of the recognised profiles, not of any of them; a reference in
    # a namespace that is a key for some profiles asks the explanation which
    assert refused == [
        "party/employer-reference-key.json:an Employer owned through another id of the employee namespace is valid",
        "party/recognition-several.json:a Party that is both contractor and asset holder by category is valid",
    ]


def test_a_rule_kind_cannot_leave_out_how_the_gate_holds_it():
    with pytest.raises(TypeError, match="how the clean gate holds it"):

        class _Unstated(RuleKind):
            name = "unstated"

            @staticmethod
            def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
                yield from ()


def test_a_kind_that_reads_the_profiles_is_not_checked_after_the_pass():
    class _ByProfile(RuleKind):
        name = "by-profile"
        reads_profiles = True

        @staticmethod
        def explain(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
            yield from ()

        @classmethod
        def value_schema(cls, contract: Any, spec: Mapping[str, Any]) -> None:
            return None

    with pytest.raises(ValueError, match="reads the recognised profiles"):
        _ByProfile.after_pass(CONTRACT, RESOURCE, [{"rule": "by-profile", "path": "identifier"}])


def test_every_standard_kind_states_its_rule_or_is_checked_after_the_pass():
    for name, kind in standard_kinds().items():
        assert kind.name == name
        assert kind.explain is not RuleKind.explain, name


def _clean_party() -> dict[str, Any]:
    return next(
        case_test.data
        for case_test in load_tests()
        if case_test.file == "party/contractor.json" and not EXPLAINED.validate(case_test.data)
    )


def test_a_refused_payload_is_explained_by_the_rows_whose_parts_failed(monkeypatch):
    """One namespace warning, as an integrator with an incomplete installation description gets on every document:
    the structure is not read again, and only the rule row of the identifier's namespace is explained."""
    party = _clean_party()
    installation_systems = [
        i for i, identifier in enumerate(party["identifier"]) if identifier["system"].startswith("urn:oid:")
    ]
    warned = {**party, "identifier": list(party["identifier"])}
    unknown = f"urn:oid:1.2.616.1.113769.4.{CONTRACT.installation.number}.999"
    warned["identifier"][installation_systems[0]] = {**party["identifier"][installation_systems[0]], "system": unknown}
    expected = EXPLAINED.validate(warned)
    assert [issue.code for issue in expected] == ["identifier-namespace-unknown"]

    explained = []
    validator = Validator(CONTRACT, VALIDATOR.schemas)
    for name, function in validator.rules.items():
        monkeypatch.setitem(validator.rules, name, _recording(name, function, explained))  # type: ignore[index]
    monkeypatch.setattr(validator.schemas, "check", _not_asked)
    assert not validator.passes_gate(warned)
    assert validator.explain(warned) == expected
    assert set(explained) == {"installation-identifier"}  # of its row at identifier only
    explained.clear()
    assert validator.explain(party) == []
    assert explained == []


def _recording(name: str, function: Any, explained: list[str]) -> Any:
    def recorded(ctx: RuleContext, value: Any, spec: Mapping[str, Any]) -> Iterator[Finding]:
        explained.append(name)
        return function(ctx, value, spec)

    return recorded


def _not_asked(*args: Any) -> Any:
    raise AssertionError("the structure was read again, though its part of the gate passed")


def test_every_row_of_an_element_that_fails_is_explained():
    """Two rule rows of one element broken (a Party's identifiers: one without a value, one in a namespace the
    installation does not name): the gate asks the rows of an element together, then one by one, and each broken row
    is explained, the last of them as well as the first."""
    party = _clean_party()
    unknown = f"urn:oid:1.2.616.1.113769.4.{CONTRACT.installation.number}.999"
    first, second = party["identifier"][:2]
    broken = {**party, "identifier": [{**first, "system": unknown}, {"system": second["system"]}]}
    expected = EXPLAINED.validate(broken)
    assert [(issue.code, issue.location) for issue in expected] == [
        ("identifier-namespace-unknown", "/identifier/0/system"),
        ("required-element-missing", "/identifier/1"),
    ]
    assert VALIDATOR.validate(broken) == expected
