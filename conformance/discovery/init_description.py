"""The target description `eris init` writes: what was discovered, each value with the read it came from; what was
not, or could not be decided, commented out with the example installation's value or the candidates seen; the
[data] table's entries, commented, with what each names; the token lines, the receiver and the features to fill in."""

from __future__ import annotations

import json
import textwrap

from conformance.configuration.target import DATA_ENTRIES
from conformance.discovery.installation_evidence import Conflict, Discovery, cite
from profiles import Contract, load_contract

__all__ = ["target_toml"]

_WIDTH = 116


def target_toml(base_url: str, discovery: Discovery, contract: Contract | None = None) -> str:
    """A commented target description of the target at `base_url`."""
    contract = contract or load_contract(None)
    names = [*contract.installation.values, *(f"namespaces.{key}" for key in contract.installation.namespace_keys)]
    undecided = [name for name in names if discovery.conflict_of(name) is not None]
    missing = [name for name in names if discovery.value_of(name) is None and name not in undecided]
    lines = [f"# written by eris init from what {base_url} publishes; see docs/certify-your-implementation.md"]
    lines += [f"# {problem}" for problem in discovery.problems]
    for conflict in discovery.conflicts:
        lines += _comment(f"conflict, not decided: {conflict.describe()}")
    for second in discovery.seconds:
        lines += _comment(f"left out: {second}")
    for warning in discovery.warnings:
        lines += _comment(f"warning: {warning}")
    if missing:
        lines.append(f"# not discovered (check the commented defaults): {', '.join(missing)}")
    lines += [
        "[target]",
        f"base_url = {_quoted(base_url.rstrip('/'))}",
        '# token = "..."                        # a Bearer token holding the retrospective-report right',
        '# token_without_report_right = "..."   # a valid token without it: enables the 403 check',
        "",
        "[installation]",
    ]
    for name, default in contract.installation.values.items():
        lines += _entry(discovery, name, name, default)
    lines += ["", "[installation.namespaces]"]
    for key, default in contract.installation.namespace_keys.items():
        more = contract.installation.more_namespace_keys.get(key, ())
        lines += _entry(discovery, f"namespaces.{key}", key, default, more)
    for system in discovery.unplaced:
        lines += _comment(
            f"the target also publishes {system} (GET /v1/naming-systems), of a kind its data do not show: add its "
            "last arc to the list of its kind (a second register: contractor = [first, that arc])"
        )
    lines += ["", "[data]"]
    lines += _comment(
        "Test data the contract's reads do not reveal. Give an entry when a run lists it among what would exercise a "
        "requirement not exercised."
    )
    for entry, description in DATA_ENTRIES.items():
        lines += _comment(description)
        lines.append(f'# {entry} = "<system>|<value>"')
    lines += [
        "",
        "[receiver]                  # where the suite listens for report deliveries and notifications",
        'host = "127.0.0.1"',
        "port = 0                    # 0: any free port; notifications need a fixed one, given to the target",
        '# public_url = "https://tunnel.example/eris"   # how the target reaches the receiver',
        "",
        "[features]",
        "notifications = false       # true when the target pushes Notification resources to the receiver",
        "",
    ]
    return "\n".join(lines)


def _entry(discovery: Discovery, name: str, key: str, default: str, default_more: tuple[str, ...] = ()) -> list[str]:
    conflict = discovery.conflict_of(name)
    if conflict is not None:
        return _candidates(conflict, name, key)
    value = discovery.value_of(name)
    if value is None:
        return [f"# {key} = {_value(default, default_more)}   # not discovered: the example installation's value"]
    more = discovery.more_namespaces.get(key, []) if name.startswith("namespaces.") else []
    return [f"{key} = {_value(value, more)}   # from {discovery.sources[name]}"]


def _value(first: str, more: list[str] | tuple[str, ...]) -> str:
    """A string, or a list of them where a kind has more than one namespace."""
    return _quoted(first) if not more else "[" + ", ".join(map(_quoted, [first, *more])) + "]"


def _candidates(conflict: Conflict, name: str, key: str) -> list[str]:
    lines = [f"# {key}: not decided, write the right one (see the conflict above)"]
    for candidate in conflict.candidates:
        if candidate.name == name:
            lines.append(f"# {key} = {_quoted(candidate.value)}   # seen in {cite(candidate.sources)}")
    return lines


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, _WIDTH, initial_indent="# ", subsequent_indent="#   ", break_on_hyphens=False)


def _quoted(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value)
