"""Deliberate deviations of the reference implementation, for measuring the conformance suite itself.

A **fault** breaks exactly one MUST requirement of the contract: a certification of the server running it must
fail, and name that requirement among its failures. A **variant** does differently something the contract
leaves open (an error body, the order of items, a repeated delivery): a certification must still pass.

They live beside the suite, not in the reference implementation (which cannot import them: the layers of
pyproject.toml), and are installed only when named (`eris serve --fault NAME`, `--variant NAME`, `eris certify`).
Each deviation is a function that changes a built application before it starts, through what aiohttp lets anyone
add to an application (a middleware, a route, a startup step) and the seams reference_impl.app declares.

    from conformance.deviations import catalogue, extensions
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FAULT",
    "VARIANT",
    "Deviation",
    "UnknownDeviation",
    "catalogue",
    "declared_data",
    "deviation",
    "extensions",
    "lookup",
]

FAULT, VARIANT = "fault", "variant"
_MODULES = (
    "reads",
    "resources",
    "writes",
    "authentication",
    "reports",
    "report_runs",
    "variants",
    "open_choices",
    "served_shapes",
    "contract_reads",
    "order_answers",
    "filters_ignored",
    "served_data",
    "write_choices",
    "filter_forms",
    "filter_matches",
    "installation_data",
)
_REGISTRY: dict[str, Deviation] = {}

Installer = Callable[[Any, Any], None]
"""install(app, settings): change the application (web.Application) before it starts: an extension of
reference_impl.app, through the seams that module declares."""

DataOf = Callable[[Any], dict[str, str]]
"""data(app): the [data] entries (conformance.configuration.target.DATA_ENTRIES) a certification of the server running
the deviation needs, read from the started application (web.Application): what no read of the contract shows there."""


@dataclass(frozen=True)
class Deviation:
    name: str
    kind: str
    """FAULT or VARIANT."""
    summary: str
    """One sentence: what this server then does differently."""
    requirement: str | None
    """The MUST requirement a fault breaks; None for a variant."""
    install: Installer
    data: DataOf | None = None
    """The [data] entries the target description of this server must carry; None: none."""


class UnknownDeviation(ValueError):
    """A name that is no fault or variant of the catalogue; the message lists the known ones."""


def deviation(
    name: str, summary: str, *, breaks: str | None = None, data: DataOf | None = None
) -> Callable[[Installer], Installer]:
    """Register the decorated installer as a fault breaking requirement `breaks`, or a variant without it;
    `data` gives the [data] entries a description of the server needs."""

    def register(install: Installer) -> Installer:
        if name in _REGISTRY:
            raise ValueError(f"two deviations are named {name!r}")
        _REGISTRY[name] = Deviation(name, FAULT if breaks else VARIANT, summary, breaks, install, data)
        return install

    return register


def catalogue(kind: str | None = None) -> list[Deviation]:
    """Every deviation (of `kind`, when given), faults and variants each in the order they are declared."""
    for module in _MODULES:
        importlib.import_module(f"{__name__}.{module}")
    found = list(_REGISTRY.values())
    return [d for d in found if kind is None or d.kind == kind]


def lookup(name: str) -> Deviation:
    known = {d.name: d for d in catalogue()}
    if name not in known:
        faults = ", ".join(d.name for d in known.values() if d.kind == FAULT)
        variants = ", ".join(d.name for d in known.values() if d.kind == VARIANT)
        raise UnknownDeviation(f"no deviation is named {name!r}; faults: {faults}; variants: {variants}")
    return known[name]


def extensions(names: tuple[str, ...] | list[str]) -> tuple[Installer, ...]:
    """The named deviations as extensions of the application (reference_impl.app.ServerSettings.extensions);
    UnknownDeviation for a name not in the catalogue."""
    return tuple(lookup(name).install for name in names)


def declared_data(app: Any, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """The [data] entries the named deviations need, read from the started application `app`."""
    entries: dict[str, str] = {}
    for deviation_ in [lookup(name) for name in names]:
        if deviation_.data is not None:
            entries |= deviation_.data(app)
    return entries
