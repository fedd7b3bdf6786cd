"""Installation placeholders: the shipped defaults, overridden by a TOML file's [installation]."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULTS_FILE = Path(__file__).with_name("installation.toml")
INSTALLATION_OID_ARC = "urn:oid:1.2.616.1.113769.4."
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_REQUIRED_KEYS = (
    "ns_url",
    "vocab_url",
    "nip_system",
    "regon_system",
    "eu_vat_system",
    "pesel_system",
    "installation",
)


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Installation:
    """The placeholder values of one installation of the contract."""

    values: Mapping[str, str]
    namespace_keys: Mapping[str, str]
    more_namespace_keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Further <key> arcs of a namespace kind, given as a list (`document-reference = [6, 11]`: a second inbox);
    the first of the list is the placeholder's value."""
    assumed: frozenset[str] = frozenset()
    """The names (`nip_system`, `namespaces.contractor`, ...) whose value is the shipped example's, taken because
    neither the configuration nor the target gave one: data selected by them may not be found for that reason."""

    @property
    def number(self) -> str:
        return self.values["installation"]

    def placeholders(self) -> dict[str, str]:
        flat = dict(self.values)
        flat.update({f"namespaces.{name}": key for name, key in self.namespace_keys.items()})
        return flat

    def substitute(self, data: Any) -> Any:
        """Return `data` with every {placeholder} in its strings replaced by this installation's value."""
        table = self.placeholders()

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in table:
                raise ConfigError(f"unknown placeholder {{{name}}}")
            return table[name]

        def walk(node: Any) -> Any:
            if isinstance(node, str):
                return _PLACEHOLDER.sub(replace, node) if "{" in node else node
            if isinstance(node, list):
                return [walk(item) for item in node]
            if isinstance(node, dict):
                return {key: walk(value) for key, value in node.items()}
            return node

        return walk(data)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror}") from None


def _document(config: Path | str | Mapping[str, Any]) -> Mapping[str, Any]:
    return config if isinstance(config, Mapping) else _read_toml(Path(config))


def declared_names(config: Path | str | Mapping[str, Any] | None) -> frozenset[str]:
    """The placeholders (`installation`, ...) and namespace keys (`namespaces.contractor`, ...) that the
    [installation] table of `config` gives: what a run need not find out from the target."""
    if config is None:
        return frozenset()
    table = _document(config).get("installation", {})
    if not isinstance(table, Mapping):
        return frozenset()
    namespaces = table.get("namespaces", {})
    keys = namespaces if isinstance(namespaces, Mapping) else {}
    return frozenset([*(name for name in table if name != "namespaces"), *(f"namespaces.{key}" for key in keys)])


def load_installation(config: Path | str | Mapping[str, Any] | None = None) -> Installation:
    """The shipped defaults, with the [installation] table of `config` laid over them: a TOML file, or a document
    already read (a mapping holding an `installation` table, as a run that completes a description makes)."""
    table = dict(_read_toml(DEFAULTS_FILE)["installation"])
    namespaces = dict(table.pop("namespaces"))
    if config is not None:
        override = _document(config).get("installation", {})
        if isinstance(config, Mapping):
            config = "the installation given"
        if not isinstance(override, dict):
            raise ConfigError(f"{config}: [installation] must be a table")
        override = dict(override)
        extra_namespaces = override.pop("namespaces", {})
        if not isinstance(extra_namespaces, dict):
            raise ConfigError(f"{config}: [installation.namespaces] must be a table")
        for key, value in override.items():
            if key not in _REQUIRED_KEYS:
                raise ConfigError(f"{config}: unknown key installation.{key}; known: {', '.join(_REQUIRED_KEYS)}")
            table[key] = value
        namespaces.update(extra_namespaces)
    more: dict[str, tuple[str, ...]] = {}
    for key, value in list(namespaces.items()):
        if isinstance(value, list) and value:
            namespaces[key], more[key] = value[0], tuple(str(arc) for arc in value[1:])
    for key, value in [*table.items(), *namespaces.items(), *((k, a) for k, arcs in more.items() for a in arcs)]:
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise ConfigError(f"installation value {key!r} must be a string or a list of them, not {value!r}")
    values = {key: str(value) for key, value in table.items()}
    keys = {name: str(value) for name, value in namespaces.items()}
    arcs = [*keys.items(), *((k, a) for k, more_arcs in more.items() for a in more_arcs)]
    for name, value in [("installation", values["installation"]), *arcs]:
        if not (value.isascii() and value.isdigit()):
            raise ConfigError(f"installation arc {name!r} must be a number, not {value!r}")
    return Installation(values=values, namespace_keys=keys, more_namespace_keys=more)
