"""The pre-commit hook `eris-validate` (.pre-commit-hooks.yaml) as a user runs it: the real pre-commit, the
`.pre-commit-config.yaml` of docs/validate.md pointed at a commit of this checkout, in a git repository of payloads of
the user's installation (`args: [--config, installation.toml]`).

`pre-commit try-repo` would install eris into a fresh environment on every call (it keeps its store in a temporary
folder, whatever PRE_COMMIT_HOME says); `pre-commit run` with that configuration installs it once into
PRE_COMMIT_HOME, which both runs share."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from installing import run
from project_paths import DATA_DIR, ROOT

pytestmark = pytest.mark.slow  # installs the hook with the real pre-commit

EXAMPLE = DATA_DIR / "examples" / "party-contractor.json"
SHIPPED_URL = "https://erp.example.com"
USERS_URL = "https://erp.acme.pl"
INSTALLATION = f"""[installation]
ns_url = "{USERS_URL}/fhir"
vocab_url = "{USERS_URL}/fhir/vocab"
nip_system = "{USERS_URL}/fhir/id/nip"
"""
HOOK_TIMEOUT = 600  # the first run installs eris and its dependencies


def documented_config() -> dict:
    """The `.pre-commit-config.yaml` docs/validate.md shows."""
    page = ROOT / "docs" / "validate.md"
    found = re.search(r"```yaml\n# \.pre-commit-config\.yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert found, "docs/validate.md shows no ```yaml block starting `# .pre-commit-config.yaml`"
    return yaml.safe_load(found.group(1))


def users_payload() -> str:
    """The example Contractor, of the user's installation: valid only with its --config."""
    return EXAMPLE.read_text().replace(SHIPPED_URL, USERS_URL)


@pytest.fixture(scope="module")
def project(checkout_commit: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's git repository with the documented hook configuration, the hook installed."""
    snapshot, commit = checkout_commit
    config = documented_config()
    (repository,) = config["repos"]
    repository.update(repo=str(snapshot), rev=commit)
    folder = tmp_path_factory.mktemp("pre-commit-user")
    (folder / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (folder / "installation.toml").write_text(INSTALLATION)
    run(["git", "init", "-q"], cwd=folder)
    run(["git", "add", ".pre-commit-config.yaml", "installation.toml"], cwd=folder)
    pre_commit(folder, "install-hooks")
    return folder


def pre_commit(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(folder.parent / "pre-commit-home"))
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *arguments],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=HOOK_TIMEOUT,
        check=False,
    )


def test_the_hook_passes_valid_payloads_of_the_users_installation_and_leaves_other_files(project: Path):
    (project / "party.json").write_text(users_payload())
    line = json.dumps(json.loads(users_payload()))
    (project / "parties.ndjson").write_text(f"{line}\n{line}\n")
    (project / "notes.txt").write_text("not a payload\n")
    done = pre_commit(
        project, "run", "eris-validate", "--verbose", "--files", "party.json", "parties.ndjson", "notes.txt"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"eris validate\.+Passed", done.stdout), done.stdout
    assert "3 document(s) checked: 0 invalid, 0 error(s)" in done.stdout  # notes.txt was not given to eris


def test_the_hook_fails_an_invalid_payload_naming_the_finding(project: Path):
    broken = json.loads(users_payload())
    broken["category"][0]["coding"][0]["code"] = "gone"
    (project / "broken.json").write_text(json.dumps(broken, indent=2))
    done = pre_commit(project, "run", "eris-validate", "--files", "broken.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"eris validate\.+Failed", done.stdout), done.stdout
    assert (
        "broken.json:/category/0/coding/0/code: error: code 'gone' is not in value set "
        f"{USERS_URL}/fhir/vocab/party-kind"
    ) in done.stdout
    assert "[binding-code-not-in-value-set]" in done.stdout


def test_the_hook_manifest_is_valid_and_runs_one_process_a_batch():
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "eris-validate"
    assert hook["entry"] == "eris validate --jobs 1"
