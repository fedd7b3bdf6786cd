"""Real servers of the reference implementation as another installation would run it: other placeholder values,
other namespace keys, NamingSystems in a shape of their own, data of two installations; and tokens for them."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

from serve_fixtures import RunningServer, seeded_settings

from conformance.deviations import extensions
from reference_impl.app import APPLICATION_KEYS, ServerSettings
from reference_impl.seed import seed_resources
from reference_impl.tokens import REPORT_RIGHT, mint_token

OWN_SHAPE = "naming-systems-of-own-shape"
OTHER_INSTALLATION = """
[installation]
ns_url = "https://erp.acme.pl/fhir"
vocab_url = "https://erp.acme.pl/fhir/terminology"
nip_system = "urn:acme:nip"
regon_system = "urn:acme:regon"
eu_vat_system = "urn:acme:vat"
pesel_system = "urn:acme:pesel"
installation = "42"
[installation.namespaces]
contractor = "21"
contractor-warehouse = "22"
employee = "23"
asset-holder = "24"
fixed-asset-document = "25"
document-reference = "26"
capability = "27"
fixed-asset = "28"
location = "29"
cost-center = "30"
"""
"""Every one of the 17 values differs from the shipped example installation (profiles/installation.toml)."""


GATEWAY_LIMIT = {f.name: f.default for f in fields(ServerSettings) if f.name in ("rate_per_second", "rate_burst")}
"""The reference implementation's own gateway limit: a certification reaches it (ERIS-ERR-307), as `eris serve`'s."""


def two_installations(other: str) -> Callable[[Any], list[dict[str, Any]]]:
    """The seed data set, and a copy of its first Employee identified in installation `other`."""

    def seed(contract: Any) -> list[dict[str, Any]]:
        resources = seed_resources(contract)
        employee_system = contract.installation_namespace_key("employee")
        employee = next(r for r in resources if str(r.get("id")).startswith("party-employee-"))
        stranger = copy.deepcopy(employee)
        stranger["id"] = "party-employee-of-another-installation"
        for identifier in stranger["identifier"]:
            if identifier["system"] == employee_system:
                number = contract.installation.number
                identifier["system"] = employee_system.replace(f".{number}.", f".{other}.", 1)
        return [*resources, stranger]

    return seed


@contextmanager
def serving(
    config: Path | None = None,
    *,
    variants: tuple[str, ...] = (),
    seed: Callable[[Any], list[dict[str, Any]]] = seed_resources,
) -> Iterator[RunningServer]:
    """The reference implementation of installation `config` with `variants` (conformance/deviations)."""
    config_path = None if config is None else str(config)
    settings = seeded_settings(config=config_path, seed=seed, extensions=extensions(variants), **GATEWAY_LIMIT)
    server = RunningServer(settings)
    try:
        yield server
    finally:
        server.stop()


def tokens(server: RunningServer) -> tuple[str, str]:
    """A token with the retrospective-report right and one without it, as `eris token` mints them."""
    keys = server.app[APPLICATION_KEYS]

    def mint(subject: str, rights: list[str]) -> str:
        return mint_token(keys.private_key, subject=subject, rights=rights, key_id=keys.key_id)

    return mint("vendor", [REPORT_RIGHT]), mint("vendor-no-right", [])
