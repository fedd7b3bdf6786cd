"""eris as it is distributed: `python -m build` makes a wheel and an sdist carrying every module and data file of the
packages, and the wheel, installed into a fresh venv, runs `eris --version`, `eris validate` and `eris certify
--help` away from this checkout. tests/ci/test_ci_script.py certifies with that venv's eris."""

from __future__ import annotations

import subprocess
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from installing import outside_the_checkout, run
from project_paths import DATA_DIR, ROOT

from conformance.cli import main

pytestmark = pytest.mark.slow  # builds and installs the wheel

PACKAGES = ("conformance", "profiles", "schemas", "reference_impl", "reports")
SHIPPED = (".py", ".json", ".toml", ".j2", ".css", ".js")
"""Every file of the packages with one of these suffixes is code, contract data or a template a command reads."""


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def shipped(snapshot: Path) -> set[str]:
    return {
        path.relative_to(snapshot).as_posix()
        for package in PACKAGES
        for path in (snapshot / package).rglob("*")
        if path.suffix in SHIPPED and "__pycache__" not in path.parts and "egg-info" not in path.as_posix()
    }


def test_eris_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"eris {version()}\n"


def test_the_wheel_carries_every_module_and_data_file_of_the_packages(
    distributions: dict[str, Path], checkout_commit: tuple[Path, str]
):
    snapshot, _ = checkout_commit
    expected = shipped(snapshot)
    assert {
        "conformance/suite/conftest.py",
        "conformance/catalogue/requirements.toml",
        "profiles/installation.toml",
        "schemas/openapi.json",
        "reference_impl/seed/data/parties.json",
        "conformance/certification/templates/report.html.j2",
        "conformance/certification/templates/report.js",
    } <= expected
    with zipfile.ZipFile(distributions["wheel"]) as wheel:
        names = set(wheel.namelist())
    assert expected - names == set(), "missing from the wheel (pyproject's packages.find and package-data)"
    assert not any(name.startswith("tests/") for name in names)
    # pure Python, the same code on every platform: speed comes from orjson and jsonschema-rs, which ship wheels
    assert distributions["wheel"].name.endswith("-py3-none-any.whl")
    assert not [name for name in names if name.endswith((".so", ".pyd", ".c"))]
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(distributions["wheel"]) as wheel:
        assert "eris = conformance.cli:main" in wheel.read(entry_points).decode()


def test_the_sdist_carries_the_packages_and_the_project_files(
    distributions: dict[str, Path], checkout_commit: tuple[Path, str]
):
    snapshot, _ = checkout_commit
    top = f"eris-{version()}/"
    with tarfile.open(distributions["sdist"]) as sdist:
        names = {name.removeprefix(top) for name in sdist.getnames()}
    assert shipped(snapshot) - names == set()
    assert {"pyproject.toml", "README.md"} <= names


def test_eris_from_the_wheel_versions_validates_and_explains_certify(wheel_bin: Path, tmp_path: Path):
    env = outside_the_checkout(wheel_bin)
    eris = str(wheel_bin / "eris")
    where = run(
        [str(wheel_bin / "python"), "-c", "import conformance; print(conformance.__file__)"], cwd=tmp_path, env=env
    )
    assert Path(where.stdout.strip()).is_relative_to(wheel_bin.parent), "conformance is imported from the checkout"
    assert run([eris, "--version"], cwd=tmp_path, env=env).stdout == f"eris {version()}\n"

    checked = run([eris, "validate", str(DATA_DIR / "examples" / "party-contractor.json")], cwd=tmp_path, env=env)
    assert "1 document(s) checked: 0 invalid, 0 error(s)" in checked.stdout
    refused = subprocess.run(
        [eris, "validate", "-"],
        input='{"resourceType": "Party"}',
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr  # the rules and schemas came with the wheel

    helped = run([eris, "certify", "--help"], cwd=tmp_path, env=env)
    assert "--report-dir" in helped.stdout
