"""The layers of docs/architecture.md hold: `lint-imports` keeps every contract of pyproject.toml's
[tool.importlinter], and a wrong import would break one."""

import shutil
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "profiles", "reports", "reference_impl", "conformance")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    command = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    # The copy must be the tree analysed, not the installed checkout: it goes first on the path.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd)}
    return subprocess.run([command, "--no-cache"], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def _copy_of_the_packages(destination: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, destination / package, ignore=shutil.ignore_patterns("*.json", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")
    return destination


def test_every_import_contract_is_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_import_from_a_higher_layer_breaks_the_layers(tmp_path):
    tree = _copy_of_the_packages(tmp_path)
    contract = tree / "profiles" / "contract.py"
    contract.write_text(contract.read_text(encoding="utf-8") + "\nimport reference_impl.store  # noqa\n")
    result = _lint_imports(tree)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Packages: each imports only from the packages below it BROKEN" in result.stdout
    assert "profiles.contract -> reference_impl.store" in result.stdout


def test_an_import_circle_inside_a_package_is_refused(tmp_path):
    tree = _copy_of_the_packages(tmp_path)
    keys = tree / "reports" / "keys.py"
    keys.write_text(keys.read_text(encoding="utf-8") + "\nimport reports.integrator  # noqa\n")
    result = _lint_imports(tree)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "No import circle inside a package BROKEN" in result.stdout


def _modules_of(package: str) -> set[str]:
    """The modules and subpackages directly in a package (a subpackage's own modules are in its layer)."""
    folder = ROOT.joinpath(*package.split("."))
    modules = {path.stem for path in folder.glob("*.py") if path.stem != "__init__"}
    return modules | {path.parent.name for path in folder.glob("*/__init__.py")}


def _layered() -> dict[str, set[str]]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    named: dict[str, set[str]] = defaultdict(set)
    for contract in contracts["contracts"]:
        if contract["type"] == "layers":
            for container in contract.get("containers", []):
                for layer in contract["layers"]:
                    named[container] |= {module.strip().strip("()") for module in layer.split("|")}
    return named


def test_every_module_of_every_package_is_in_a_layer():
    """A module in no layer is checked by no layers contract: any import from it or into it would pass. So for the
    packages and for every package with a layers contract of its own (conformance.run, ...)."""
    layered = _layered()
    outside = [
        f"{package}.{module}"
        for package in sorted(set(PACKAGES) | set(layered))
        for module in sorted(_modules_of(package) - layered[package])
    ]
    assert not outside, f"modules in no layer of pyproject.toml [tool.importlinter]: {outside}"
