"""The fixtures of the target and its contract: `target` (the target description), `contract` (the contract for
the target's installation, what the description leaves out read from the target) and `validator`. A plugin module
registered by plugin.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from conformance.configuration.target import Target, TargetError, load_target
from profiles import Contract

if TYPE_CHECKING:  # imported where the fixture is made: a run that needs none does not pay for it
    from profiles.validator import Validator

__all__ = ["contract", "target", "validator"]


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    try:
        return load_target(
            pytestconfig.getoption("eris_target"),
            base_url=pytestconfig.getoption("eris_base_url"),
            token=pytestconfig.getoption("eris_token"),
            delivery_timeout=pytestconfig.getoption("eris_delivery_timeout"),
        )
    except TargetError as error:
        pytest.exit(f"eris: {error}", returncode=2)


@pytest.fixture(scope="session")
def contract(target: Target, pytestconfig: pytest.Config) -> Contract:
    """The contract for the target's installation: the description's [installation], what it leaves out read
    from the target (conformance/discovery/target_installation.py), and more namespaces of a kind the target
    publishes."""
    from conformance.discovery.published import TargetStoppedAnswering
    from conformance.discovery.target_installation import UndecidedInstallation, target_installation
    from profiles import ConfigError

    try:
        found = target_installation(
            target,
            timeout=pytestconfig.getoption("eris_request_timeout"),
            max_answer_size=pytestconfig.getoption("eris_max_answer_size"),
        )
    except (ConfigError, UndecidedInstallation) as error:
        pytest.exit(f"eris: {error}", returncode=2)
    except TargetStoppedAnswering as error:
        pytest.exit(f"eris: the target stopped answering while its installation was read: {error}", returncode=2)
    _tell_once(pytestconfig, found.notes)
    return found.contract


def _tell_once(config: pytest.Config, lines: tuple[str, ...]) -> None:
    """`lines` on the run's stderr, past pytest's capture, once a run (not again from every worker)."""
    import contextlib
    import sys

    if not lines or getattr(config, "workerinput", {}).get("workerid", "gw0") != "gw0":
        return
    capture = config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        print("\n".join(lines), file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def validator(contract: Contract) -> Validator:
    from profiles.validator import Validator

    return Validator(contract)
