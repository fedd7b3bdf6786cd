"""Filter values in the forms the contract leaves open, taken from what the target's items carry.

- attribute values of any JSON type: "attribute[] are typed extra fields: each has a code and a value, and is
  filtered as code|value". A string is sent as it is; a number or a boolean in its JSON text (`42`, `12.5`, `true`),
  and a served value matches a filter value when its text is that. An object or an array has no text the contract
  shows: such an attribute is left out, not guessed at.
- `usage` of a NamingSystem: "allowed values of usage and the shape of its items: not shown". Served as a string, a
  code, a Coding, an object or an array of any of these: each shape gives its candidate values.
- `contained` of a Location ("Searchable by ... contained", form not shown): what the items show of each contained
  resource, its identifiers as system|value, and its id.
- participant "(internal Party namespace)": a participant that references a PartyRole stands for the Party that
  plays it (GET /v1/party-roles names each role's `party`): that Party's identifiers in the installation's namespaces.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from conformance.suite.support.reads import Item, Pair, as_list, as_object, identifiers, token
from profiles.coded import codes_of

if TYPE_CHECKING:
    from conformance.suite.support.discovery import Discovery

TYPE_NAMES = {str: "string", bool: "boolean", int: "number", float: "number"}
"""The JSON type of an attribute value a filter can send (bool before int: a boolean is no number here)."""


def json_type(value: Any) -> str | None:
    """ "string", "number" or "boolean"; None for null, an object or an array (no form shown to send them in)."""
    return TYPE_NAMES.get(type(value))


def json_text(value: Any) -> str | None:
    """The text a filter sends for a served value: a string as is, a number or a boolean as JSON writes it."""
    kind = json_type(value)
    if kind is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


def typed_attributes(item: Item) -> list[Pair]:
    """(code, value as text) of every attribute whose value is a string, a number or a boolean. The code may be a
    bare code, a Coding or a CodeableConcept (Attribute's structure is not shown); a code holding "|" cannot be told
    from its value in code|value, and is left out."""
    return [pair for pair, _ in typed_attributes_with_types(item)]


def typed_attributes_with_types(item: Item) -> list[tuple[Pair, str]]:
    """`typed_attributes` with the JSON type each value was served in."""
    found = []
    for attribute in as_list(item.get("attribute")):
        if not isinstance(attribute, dict):
            continue
        raw = attribute.get("value")
        text, kind = json_text(raw), json_type(raw)
        if text is None or kind is None:
            continue
        found += [((code, text), kind) for code in codes_of(attribute.get("code")) if "|" not in code]
    return found


# -- usage ---------------------------------------------------------------------------------------------------


def usage_candidates(usage: Any) -> list[str]:
    """The filter values the `usage` of one NamingSystem shows, in each shape it may take: a string as is; a
    Coding's code and system|code; a CodeableConcept's codings likewise; an object's string members (a
    resourceType, a profile URL); and each item of an array."""
    found: list[str] = []
    for entry in as_list(usage):
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            codings = [c for c in as_list(entry.get("coding")) if isinstance(c, dict)] or [entry]
            for coding in codings:
                code, system = coding.get("code"), coding.get("system")
                if isinstance(code, str):
                    found += [code, *([token(system, code)] if isinstance(system, str) else [])]
            found += [value for name, value in entry.items() if isinstance(value, str) and name not in ("system",)]
    return [value for value in dict.fromkeys(found) if value and value.count("|") <= 1]


def usage_strings(usage: Any) -> set[str]:
    """Every text anywhere in a `usage`, and the system|code of its codings: a filter value that is none of them is
    not what this usage says, whatever its shape."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.add(node)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, dict):
            if isinstance(node.get("system"), str) and isinstance(node.get("code"), str):
                found.add(token(node["system"], node["code"]))
            for value in node.values():
                walk(value)

    walk(usage)
    return found


# -- contained -----------------------------------------------------------------------------------------------


def contained_values(item: Item) -> list[str]:
    """What the item shows of each resource in its contained[]: its identifiers as system|value, and its id."""
    found: list[str] = []
    for resource in as_list(item.get("contained")):
        if not isinstance(resource, dict):
            continue
        found += [token(*pair) for pair in identifiers(resource)]
        if isinstance(resource.get("id"), str):
            found.append(resource["id"])
    return [value for value in dict.fromkeys(found) if value and value.count("|") <= 1]


# -- participant in the internal Party namespace -------------------------------------------------------------


def installation_prefix(installation: str) -> str:
    return f"urn:oid:1.2.616.1.113769.4.{installation}."


def played_party(roles: list[Item], role: Pair) -> Pair | None:
    """The identifier by which the PartyRole named `role` references its Party (`party`), if the target lists it."""
    for candidate in roles:
        if role in identifiers(candidate):
            reference = as_object(candidate.get("party"))
            named = as_object(reference.get("identifier"))
            if isinstance(named.get("system"), str) and isinstance(named.get("value"), str):
                return named["system"], named["value"]
    return None


def internal_party_identifiers(discovery: Discovery, participants: list[Pair]) -> list[Pair]:
    """The values a participant filter "(internal Party namespace)" takes for these participant references: each
    one already in an installation namespace, then, for one that names a PartyRole, the identifiers in an
    installation namespace that are reference keys of the Party the role plays; the one the role's `party` names
    first."""
    prefix = installation_prefix(discovery.contract.installation.number)
    roles = discovery.items("/v1/party-roles")
    found: list[Pair] = []
    for pair in participants:
        if pair[0].startswith(prefix):
            found.append(pair)
        party = discovery.party(pair)
        if party is None:
            continue
        profiles = discovery.validator.recognised_profiles(party, "Party")
        keys = [
            key
            for key in identifiers(party)
            if key[0].startswith(prefix) and discovery.contract.is_reference_key(key[0], profiles)
        ]
        named = played_party(roles, pair)
        found += sorted(keys, key=lambda key: key != named)
    return list(dict.fromkeys(found))
