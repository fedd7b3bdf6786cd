"""Registers the conformance plugin for a run of the suite from a checkout that was never installed:
`python -m pytest conformance/suite --eris-target target.toml`. An installed eris registers it through its
pytest11 entry point already, and a plugin module may be registered only once."""

from importlib.metadata import entry_points

if not any(entry.value == "conformance.harness.plugin" for entry in entry_points(group="pytest11")):
    pytest_plugins = ("conformance.harness.plugin",)
