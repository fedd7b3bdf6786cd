"""The digests a certification records, so that a re-check knows it runs the same suite on the same contract over
the same traffic: of the suite's code, of the contract data, and of a file."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import conformance
import profiles
import schemas

__all__ = ["contract_digest", "file_digest", "suite_code_digest"]

_CHUNK = 1 << 20
_CONTRACT_DATA = (".json", ".toml")
_CODE = (".py", ".toml")


def file_digest(path: Path) -> str:
    """`sha256:<hex>` of the file's bytes, read in chunks (a traffic.har holds megabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def suite_code_digest() -> str:
    """Of the suite as installed: the conformance package (its tests, plugin and catalogue) and the rule functions of
    profiles/ it judges answers with. A suite edited in place keeps its version number, not this digest."""
    return _tree_digest([(_folder(conformance), _CODE), (_folder(profiles), (".py",))])


def contract_digest() -> str:
    """Of the contract data the suite checks against: the schemas and the profiles' data files."""
    return _tree_digest([(_folder(schemas), _CONTRACT_DATA), (_folder(profiles), _CONTRACT_DATA)])


def _folder(package: object) -> Path:
    return Path(next(iter(package.__path__)))  # type: ignore[attr-defined]


def _tree_digest(trees: Iterable[tuple[Path, tuple[str, ...]]]) -> str:
    """One line `<package>/<relative path> <sha256>` a file, sorted, then hashed: the same files give the same digest
    wherever they are installed, and a renamed file changes it."""
    lines = []
    for root, suffixes in trees:
        for path in root.rglob("*"):
            if path.suffix in suffixes and path.is_file() and "__pycache__" not in path.parts:
                name = f"{root.name}/{path.relative_to(root).as_posix()}"
                lines.append(f"{name} {hashlib.sha256(path.read_bytes()).hexdigest()}\n")
    return "sha256:" + hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()
