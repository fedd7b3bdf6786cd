"""Value sets (the listing, a set by url and its alias system, the version field, 404 for a set not
available, the filters of implementation-defined sets) and naming systems.

Values are taken from what the target serves; the implementation-defined value sets are recognised by
the url of their profiles (profiles/definitions)."""

from __future__ import annotations

from functools import partial
from typing import Any, NoReturn

import pytest

from conformance.evidence.outcomes import data_served
from conformance.harness.plugin import not_exercised
from conformance.suite.support.discovery import Discovery
from conformance.suite.support.reads import (
    NO_SUCH_VALUE,
    codings,
    identifiers,
    ids,
    reference_identifiers,
    token,
)
from conformance.suite.support.typed_values import typed_attributes
from profiles import Contract

VALUE_SETS = "/v1/value-sets"
GRANTS = "/v1/grant-assignments"
FORM = "ERIS-FILTER-004"
CAPABILITIES = "ERIS-ACCESS-003"
ASSIGNMENTS = "ERIS-ACCESS-004"


def _listed(discovery: Discovery) -> list[dict[str, Any]]:
    found = discovery.items(VALUE_SETS)
    if not found:
        not_exercised(f"GET {VALUE_SETS} listed no value set", exercise=data_served(VALUE_SETS))
    return found


@pytest.fixture(scope="module")
def listing(discovery: Discovery) -> list[dict[str, Any]]:
    return _listed(discovery)


def _implementation_defined_sets(
    discovery: Discovery, listing: list[dict[str, Any]], implementation_defined: set[str]
) -> list[dict[str, Any]]:
    """The implementation-defined value sets the target lists, as GET /v1/value-sets?url= serves them."""
    urls = sorted(implementation_defined & {i["url"] for i in listing})
    return [s for sets in discovery.api.concurrently([partial(discovery.value_set, url) for url in urls]) for s in sets]


def _without_implementation_defined(implementation_defined: set[str], carrying: str = "") -> NoReturn:
    if carrying:
        reason = f"no implementation-defined value set that GET {VALUE_SETS} lists carries {carrying}"
    else:
        reason = (
            f"GET {VALUE_SETS} listed none of the implementation-defined value sets of the contract (profiles "
            f"ValueSet: {', '.join(sorted(implementation_defined))})"
        )
    wanted = "an implementation-defined value set" + (f" with {carrying}" if carrying else "")
    not_exercised(reason, exercise=data_served(VALUE_SETS, wanted))


@pytest.fixture(scope="module")
def implementation_defined(contract: Contract) -> set[str]:
    return {p.canonical_url for p in contract.profiles_of("ValueSet") if p.canonical_url}


# -- value sets -----------------------------------------------------------------------------------


@pytest.mark.requirement("ERIS-VS-003", "ERIS-VS-002", "ERIS-VER-002")
def test_the_value_set_listing_gives_url_and_version_of_each_set(
    discovery: Discovery, implementation_defined: set[str]
) -> None:
    listing = _listed(discovery)
    for item in listing:
        discovery.api.judge(item, "ValueSetSummary", where=f"GET {VALUE_SETS} item {item.get('url')}")
        assert "version" in item, f"the listing item {item} has no version"
        if item["url"] in implementation_defined:
            assert item["version"] is None, f"implementation-defined set {item['url']} lists version {item['version']}"


@pytest.mark.requirement("ERIS-VS-004", "ERIS-VS-001", "ERIS-VER-002")
def test_each_listed_value_set_is_served_by_its_url_with_its_version(
    discovery: Discovery, listing: list[dict[str, Any]], implementation_defined: set[str]
) -> None:
    def check(summary: dict[str, Any]) -> None:
        url = summary["url"]
        sets = discovery.value_set(url)
        assert sets, f"GET /v1/value-sets?url={url} (a listed set) answered no ValueSet"
        for value_set in sets:
            assert value_set.get("url") == url, f"GET /v1/value-sets?url={url} answered the set {value_set.get('url')}"
            assert "version" in value_set, f"the value set {url} has no version field"
            # the version of an implementation-defined set is null by rule: checked on each side on its own
            # (the listing above, the set below), so that a wrong one fails its own row, not this one
            if url not in implementation_defined:
                assert value_set["version"] == summary["version"], (
                    f"the value set {url} has version {value_set['version']!r}, the listing says {summary['version']!r}"
                )

    # each set on its own: the first failure in the listing's order is the one reported
    discovery.api.concurrently([partial(check, summary) for summary in listing])


@pytest.mark.requirement("ERIS-VS-002", "ERIS-VER-002")
def test_implementation_defined_value_sets_are_served_with_version_null(
    discovery: Discovery, listing: list[dict[str, Any]], implementation_defined: set[str]
) -> None:
    served = _implementation_defined_sets(discovery, listing, implementation_defined)
    if not served:
        _without_implementation_defined(implementation_defined)
    versioned = [(s.get("url"), s.get("version")) for s in served if s.get("version") is not None]
    assert not versioned, f"implementation-defined value sets served with a version: {versioned}"


@pytest.mark.requirement("ERIS-VS-004")
def test_system_is_an_alias_of_url(discovery: Discovery, listing: list[dict[str, Any]]) -> None:
    def check(summary: dict[str, Any]) -> None:
        by_url = discovery.value_set(summary["url"])
        by_system = discovery.api.read(VALUE_SETS, {"system": summary["url"]}, resource_type="ValueSet")
        assert _summaries(by_system) == _summaries(by_url), (
            f"GET /v1/value-sets?system={summary['url']} differs from ?url="
        )

    discovery.api.concurrently([partial(check, summary) for summary in listing])


def _summaries(value_sets: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(s.get("id"), s.get("url"), s.get("version")) for s in value_sets]


@pytest.mark.requirement("ERIS-VS-004")
@pytest.mark.parametrize(
    "parameter",
    # the Errors part names url=...; by system it is the alias (VS-004) that answers so
    [pytest.param("url", marks=pytest.mark.requirement("ERIS-ERR-103"), id="url"), "system"],
)
def test_a_value_set_not_available_is_a_404(discovery: Discovery, parameter: str) -> None:
    url = f"{discovery.vocab_url}/{NO_SUCH_VALUE}"
    response = discovery.api.get(VALUE_SETS, {parameter: url})
    assert response.status_code == 404, f"GET /v1/value-sets?{parameter}={url} answered {response.status_code}"


SET_VALUES = {
    "id": "an id",
    "owner": "an owner",
    "status": "a status",
    "attribute": "an attribute with a string, number or boolean value",
}
"""What the filter by each parameter needs a set to carry."""


def _set_values(value_set: dict[str, Any], parameter: str) -> list[str]:
    if parameter == "id":
        return [value_set["id"]] if isinstance(value_set.get("id"), str) else []
    if parameter == "owner":
        return [token(*pair) for pair in reference_identifiers(value_set.get("owner"))]
    if parameter == "status":
        return [token(*pair) for pair in codings(value_set.get("status"))]
    return [token(*pair) for pair in typed_attributes(value_set)]


def _set_matches(discovery: Discovery, value_set: dict[str, Any], parameter: str, value: str) -> bool:
    if parameter in ("id", "status", "attribute"):
        return value in _set_values(value_set, parameter)
    system, _, rest = value.partition("|")
    return any(discovery.same_party((system, rest), pair) for pair in reference_identifiers(value_set.get("owner")))


@pytest.mark.requirement("ERIS-VS-005")
@pytest.mark.parametrize("parameter", ["id", "owner", "status", "attribute"])
def test_a_filter_of_implementation_defined_sets_finds_the_set_and_no_other(
    discovery: Discovery, listing: list[dict[str, Any]], implementation_defined: set[str], parameter: str
) -> None:
    sets = _implementation_defined_sets(discovery, listing, implementation_defined)
    carried = [(s, value) for s in sets for value in _set_values(s, parameter)[:1]]
    if not carried:
        _without_implementation_defined(implementation_defined, SET_VALUES[parameter])

    def check(value_set: dict[str, Any], value: str) -> None:
        url = value_set["url"]
        shown = f"GET /v1/value-sets?url={url}&{parameter}={value}"
        found = discovery.api.read(VALUE_SETS, {"url": url, parameter: value}, resource_type="ValueSet")
        assert value_set.get("id") in ids(found), f"{shown} did not find the set it came from"
        wrong = [s.get("id") for s in found if not _set_matches(discovery, s, parameter, value)]
        assert not wrong, f"{shown} answered sets that do not match: {wrong}"
        # a value another set carries and this one does not: the set must not come back (an empty
        # envelope or a 404, "not available" with that filter, are both read so)
        other = next((v for s, v in carried if not _set_matches(discovery, value_set, parameter, v)), None)
        if other is not None:
            response = discovery.api.get(VALUE_SETS, {"url": url, parameter: other})
            shown = f"GET /v1/value-sets?url={url}&{parameter}={other}"
            assert response.status_code in (200, 404), f"{shown} answered {response.status_code}"
            answered = response.json().get("items", []) if response.status_code == 200 else []
            for position, item in enumerate(answered):
                discovery.api.judge(item, "ValueSet", where=f"{shown} items[{position}]")
            wrong = [s.get("id") for s in answered if not _set_matches(discovery, s, parameter, other)]
            assert not wrong, f"{shown} answered sets that do not match: {wrong}"

    discovery.api.concurrently([partial(check, value_set, value) for value_set, value in carried])


# -- naming systems -------------------------------------------------------------------------------


def _strings(node: Any) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, list):
        return {s for value in node for s in _strings(value)}
    if isinstance(node, dict):
        return {s for value in node.values() for s in _strings(value)}
    return set()


@pytest.mark.requirement("ERIS-NS-001", "ERIS-PARTY-007")
def test_the_installation_namespaces_of_parties_are_published_as_naming_systems(discovery: Discovery) -> None:
    prefix = f"urn:oid:1.2.616.1.113769.4.{discovery.contract.installation.number}."
    systems = {system for party in discovery.parties for system, _ in identifiers(party)}
    used = sorted(system for system in systems if system.startswith(prefix))
    if not used:
        not_exercised(
            f"GET /v1/parties served no party with an identifier in an installation namespace ({prefix}<key>, of "
            "the installation number of the target description)",
            exercise=data_served("/v1/parties", f"a party with an identifier in a namespace {prefix}<key>"),
        )
    # The shape of a NamingSystem beyond "the key, the actual system, and the reference key" is not
    # shown: the system only has to be one of its values.
    published = _strings(discovery.items("/v1/naming-systems"))
    missing = [system for system in used if system not in published]
    assert not missing, f"installation namespaces of parties that no NamingSystem names: {missing}"


@pytest.mark.requirement("ERIS-NS-001")
def test_each_naming_system_states_its_key_system_and_whether_it_is_a_reference_key(discovery: Discovery) -> None:
    """ "Identifier namespaces of the installation: the key, the actual system, and the reference key." The
    member names are not shown, so each is looked for by value: a key (a string that is no URI), a URI, and a
    yes/no (a boolean, or a member whose name speaks of a reference key)."""
    items = discovery.items("/v1/naming-systems")
    if not items:
        not_exercised("GET /v1/naming-systems served no naming system", exercise=data_served("/v1/naming-systems"))
    lacking = []
    for item in items:
        values = [v for name, v in item.items() if name not in ("owner", "meta", "contained", "attribute")]
        strings = _strings(values)
        said = any(isinstance(v, bool) for v in values) or any("reference" in name.lower() for name in item)
        uris = {s for s in strings if s.startswith(("urn:", "http://", "https://"))}
        if not (strings - uris and uris and said):
            lacking.append(item.get("id"))
    assert not lacking, f"naming systems without a namespace key, a system URI or the reference key: {lacking}"
