"""The installation a certification runs against: the target description's [installation], and for every value it
leaves out, what the target's reads show (conformance/discovery/published.py), each with where it came from. A value the
target shows two ways is not guessed: the run cannot be made until the description names it."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from conformance.configuration.settings import DEFAULT_MAX_ANSWER_SIZE, DEFAULT_REQUEST_TIMEOUT
from conformance.configuration.target import Target
from conformance.discovery.published import discover, published_namespaces
from profiles import Contract, load_contract
from profiles.installation import declared_names, load_installation

__all__ = ["TargetInstallation", "UndecidedInstallation", "target_installation"]


class UndecidedInstallation(Exception):
    """A value the description leaves out is shown two ways by the target; the message is one line."""


@dataclass(frozen=True)
class TargetInstallation:
    contract: Contract
    notes: tuple[str, ...]
    """Where each value the description leaves out came from, a line each (none when it gives them all)."""


def target_installation(
    target: Target, *, timeout: float = DEFAULT_REQUEST_TIMEOUT, max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE
) -> TargetInstallation:
    """The contract for `target`'s installation, its answers read within `timeout` seconds and `max_answer_size`
    bytes each. ConfigError: the description's [installation] cannot be used; UndecidedInstallation: a value it
    leaves out cannot be told from the target."""
    bounds = _Bounds(timeout=timeout, max_answer_size=max_answer_size)
    example = load_installation(None)
    names = [*example.values, *(f"namespaces.{key}" for key in example.namespace_keys)]
    given = declared_names(target.config_path)
    load_installation(target.config_path)  # a ConfigError names the description's mistake before any read
    missing = [name for name in names if name not in given]
    if not missing:
        contract = load_contract(target.config_path)
        return TargetInstallation(_with_published(contract, target, bounds), ())
    found = discover(target.base_url, token=target.token, **bounds)
    for name in missing:
        conflict = found.conflict_of(name)
        if conflict is not None:
            raise UndecidedInstallation(
                f"the target shows {conflict.describe()}; name {name.removeprefix('namespaces.')} in "
                "[installation] of the target description (eris init writes one)"
            )
    document = _described(target)
    table = document.setdefault("installation", {})
    namespaces = table.setdefault("namespaces", {})
    notes = [f"eris certify: {len(missing)} installation values are not in the target description; from the target:"]
    unseen = []
    for name in missing:
        value = found.value_of(name)
        key = name.removeprefix("namespaces.")
        if value is None:
            unseen.append(key)
            continue
        more = found.more_namespaces.get(key, []) if name.startswith("namespaces.") else []
        if name.startswith("namespaces."):
            namespaces[key] = [value, *more] if more else value
        else:
            table[key] = value
        notes.append(f"  {key} = {', '.join(map(repr, [value, *more]))} (from {found.sources[name]})")
    notes += [
        f"  the target also publishes {system}, of a kind its data do not show: not used" for system in found.unplaced
    ]
    notes += [f"  left out: {second}" for second in found.seconds]
    notes += [f"  warning: {warning}" for warning in found.warnings]
    if unseen:
        notes.append(
            f"  not discovered, the example installation's values taken: {', '.join(unseen)}; what they select may "
            "not be found, and the to-do names them ([installation] in the target description)"
        )
    notes += [f"  {problem}" for problem in found.problems]
    contract = load_contract(document)
    assumed = frozenset(name for name in missing if found.value_of(name) is None)
    contract = replace(contract, installation=replace(contract.installation, assumed=assumed))
    return TargetInstallation(_with_published(contract, target, bounds), tuple(notes))


def _described(target: Target) -> dict[str, Any]:
    if target.config_path is None:
        return {}
    with target.config_path.open("rb") as handle:
        document = tomllib.load(handle)
    installation = document.get("installation", {})
    return {"installation": {**installation, "namespaces": dict(installation.get("namespaces", {}))}}


class _Bounds(TypedDict):
    """What each read of the target may take (seconds, bytes), as discover() and published_namespaces() ask."""

    timeout: float
    max_answer_size: int


def _with_published(contract: Contract, target: Target, bounds: _Bounds) -> Contract:
    """More namespaces of a kind the target publishes (a second inbox) beside those of the installation."""
    published = published_namespaces(contract, target.base_url, token=target.token, **bounds)
    return contract.with_namespaces(published)
