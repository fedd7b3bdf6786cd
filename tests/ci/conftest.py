"""What the tests of eris as its users install it share (tests/ci/): this checkout as a git repository of one commit,
the wheel and sdist `python -m build` makes of it, and a fresh venv holding that wheel.

Each is made once a session; the fresh venv takes its dependencies from this one (wheel_bin), and the pre-commit
hook's installation downloads its own."""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path

import pytest
from installing import run
from project_paths import ROOT

BUILD_TIMEOUT = 300
INSTALL_TIMEOUT = 600


@pytest.fixture(scope="session")
def checkout_commit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The files of this checkout, tracked ones and new ones git does not ignore, as they are on disk, committed into
    a repository of their own: (its folder, the commit). pre-commit installs a hook from a commit, and `pre-commit
    try-repo` adds only the changes of tracked files, so a module not committed yet would be missing."""
    snapshot = tmp_path_factory.mktemp("checkout") / "eris"
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is listed too
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git = ["git", "-c", "user.name=eris tests", "-c", "user.email=tests@eris.invalid", "-c", "commit.gpgsign=false"]
    run([*git, "init", "-q"], cwd=snapshot)
    run([*git, "add", "-A"], cwd=snapshot)
    run([*git, "commit", "-q", "-m", "the checkout under test"], cwd=snapshot)
    return snapshot, run(["git", "rev-parse", "HEAD"], cwd=snapshot).stdout.strip()


@pytest.fixture(scope="session")
def distributions(checkout_commit: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`python -m build` of the checkout (from the copy: the build writes eris.egg-info into its source folder):
    {"wheel": ..., "sdist": ...}."""
    snapshot, _ = checkout_commit
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(snapshot)], timeout=BUILD_TIMEOUT)
    (wheel,) = out.glob("eris-*.whl")
    (sdist,) = out.glob("eris-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="session")
def wheel_bin(distributions: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv (`python -m venv`) into which pip installed the wheel alone. Its dependencies
    are this venv's, reached through a path entry (a .pth line: the .pth files of that folder, this checkout's
    editable install among them, are not read): downloading and unpacking them again cost most of a minute of
    CPU. `pip check` then proves that the wheel's declared dependencies are all there."""
    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=INSTALL_TIMEOUT)
    python = str(venv / "bin" / "python")
    own_site = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip()
    dependencies = sysconfig.get_path("purelib")
    (Path(own_site) / "eris-test-dependencies.pth").write_text(f"{dependencies}\n", encoding="utf-8")
    # our environment passes on as it is: pip's index settings (PIP_* and pip.conf) reach the new venv's pip
    run([python, "-m", "pip", "install", "-q", "--no-deps", str(distributions["wheel"])], timeout=INSTALL_TIMEOUT)
    run([python, "-m", "pip", "check"], timeout=INSTALL_TIMEOUT)
    return venv / "bin"
