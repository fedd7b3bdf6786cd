"""The clean gate's walk of registry identifiers (RegistryIdentifiers, profiles/identifier_rules.py) holds a document
exactly when the explanation of the rule kind it is the gate of, identifier-format, finds nothing at the same paths: on
generated identifiers and documents."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from profiles.contract import RESOURCE, load_contract
from profiles.identifier_rules import IdentifierFormat, RegistryIdentifiers
from profiles.paths import values_at

CONTRACT = load_contract()
REGISTRY_SYSTEMS = sorted(ns.system for ns in CONTRACT.namespaces.values() if ns.format is not None)
PATHS = [("identifier",), ("owner", "identifier")]

digits = st.text(st.sampled_from("0123456789"), min_size=8, max_size=15)
number_like = (
    digits
    | st.sampled_from(["5260250274", "526-025-02-74", "123456785", "12345678512347", "44051401359", "PL5260250274"])
    | st.text(st.sampled_from("0123456789-"), max_size=16)
    | st.text(st.sampled_from("0123456789٩²x "), max_size=14)  # Unicode digits, spaces, letters
    | st.text(max_size=12)
)
systems = st.sampled_from([*REGISTRY_SYSTEMS, "urn:other", ""]) | st.integers() | st.none() | st.lists(st.text())
identifier = st.fixed_dictionaries(
    {}, optional={"system": systems, "value": number_like | st.integers() | st.none(), "type": st.text(max_size=3)}
)
identifiers = identifier | st.lists(identifier, max_size=3) | st.none() | st.text(max_size=3) | st.integers()
owner = st.fixed_dictionaries({}, optional={"identifier": identifiers, "reference": st.text(max_size=5)})
documents = st.fixed_dictionaries(
    {"resourceType": st.just("Party")},
    optional={
        "identifier": identifiers,
        "owner": owner | st.lists(owner | st.integers(), max_size=3) | st.text(max_size=3),
    },
)


def _rule_finds_nothing(document: dict, paths: list[tuple[str, ...]]) -> bool:
    context = SimpleNamespace(contract=CONTRACT, context=RESOURCE, applied_profiles=(), document=document)
    return not any(
        next(iter(IdentifierFormat.explain(context, value, {})), None) is not None
        for tokens in paths
        for value, _ in values_at(document, tokens)
    )


@given(document=documents, paths=st.sampled_from([PATHS, PATHS[:1], PATHS[1:], [("owner", "identifier", "x")]]))
def test_the_walk_holds_where_identifier_format_finds_nothing(document, paths):
    assert RegistryIdentifiers(CONTRACT, paths)(document) is _rule_finds_nothing(document, paths)


def test_a_registry_identifier_with_a_wrong_check_digit_anywhere_is_found():
    walk = RegistryIdentifiers(CONTRACT, PATHS)
    nip = next(s for s in REGISTRY_SYSTEMS if s.endswith("nip"))
    good, bad = {"system": nip, "value": "5260250274"}, {"system": nip, "value": "5260250275"}
    assert walk({"identifier": [good], "owner": {"identifier": good}})
    assert not walk({"identifier": [good, bad]})
    assert not walk({"identifier": bad})
    assert not walk({"owner": [{"identifier": good}, {"identifier": [good, bad]}]})
    assert walk({"owner": {"identifier": {"system": nip, "value": 5260250275}}})  # not a string: the schema's finding
