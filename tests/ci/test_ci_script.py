"""docs/ci/certify.sh, the step the CI templates of docs/ci/ run, run as those templates run it: eris from the
wheel on PATH (tests/ci/test_wheel.py), the reference implementation started by ERIS_START and described by the
target.toml it writes, the certification folder kept with eris' outputs and the logs; and its exit status, eris
certify's own (0 conformant, 1 non-conformant, 2 could not run, 3 incomplete).

The script stops what it started by its process group; a run that leaves it running fails (and is cleaned up)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from installing import outside_the_checkout
from project_paths import ROOT
from store_fixtures import REQUIRED

from conformance.stores import startable_stores

pytestmark = pytest.mark.slow  # each test here runs docs/ci/certify.sh

SCRIPT = ROOT / "docs" / "ci" / "certify.sh"
OUTPUTS = ("certification.json", "report.html", "traffic.har", "junit.xml", "certify.log", "implementation.log")
TEMPLATES = {
    name: yaml.safe_load((ROOT / "docs" / "ci" / name).read_text()) for name in ("github-actions.yml", "gitlab-ci.yml")
}
EXAMPLE_START = "eris serve --port 8080 --db :memory: --write-config target.toml"
# the templates' example, on a free port: the tests may run beside other servers
START = EXAMPLE_START.replace("--port 8080", "--port 0")
CERTIFY_TIMEOUT = 600
QUICK = ("--requirement", "ERIS-LIMIT-001", "--examples", "0", "--quiet")
"""A run of a few tests: enough to see the gate, never conformant (the other requirements are left out)."""


def certify_sh(workspace: Path, bin_dir: Path, *arguments: str, **variables: str) -> subprocess.CompletedProcess[str]:
    """The script's run; fails when it left the implementation running (stopped here then, by its process group)."""
    env = outside_the_checkout(bin_dir)
    env.pop("GITHUB_STEP_SUMMARY", None)
    env.update({"ERIS_TARGET": "target.toml", "ERIS_START": START, "ERIS_PYTHON": str(bin_dir / "python"), **variables})
    done = subprocess.run(
        ["bash", str(SCRIPT), *arguments],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=CERTIFY_TIMEOUT,
        check=False,
    )
    started = re.search(r"started the implementation \(pid (\d+)\)", done.stdout)
    if started:
        try:
            os.killpg(int(started.group(1)), signal.SIGKILL)
        except ProcessLookupError:
            pass
        else:
            pytest.fail(f"certify.sh left the implementation running (pid {started.group(1)}):\n{done.stdout}")
    return done


def assert_stopped(report_dir: Path) -> None:
    """The implementation the script started was stopped, not killed (certify_sh saw it gone)."""
    assert "eris serve: stopping" in (report_dir / "implementation.log").read_text()


@pytest.mark.system
def test_certify_sh_certifies_the_reference_implementation_with_the_wheels_eris(wheel_bin: Path, tmp_path: Path):
    missing = {"blob", "smb"} - set(startable_stores())
    if missing:  # the reference declares both: without their stores the verdict is incomplete
        message = f"the suite needs Azurite and Samba for the reference's {', '.join(sorted(missing))} deliveries"
        pytest.fail(f"ERIS_REQUIRE_STORES=1 but {message}") if REQUIRED else pytest.skip(message)
    done = certify_sh(tmp_path, wheel_bin, "--examples", "3")  # a property phase, as conformant needs, kept short
    report_dir = tmp_path / "certification"
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "certify.sh: exit 0, conformant" in done.stdout
    for name in OUTPUTS:
        assert (report_dir / name).stat().st_size > 0, name
    certification = json.loads((report_dir / "certification.json").read_text())
    assert certification["summary"]["verdict"] == "conformant"
    assert "eris certify: CONFORMANT" in (report_dir / "certify.log").read_text()
    assert_stopped(report_dir)


@pytest.fixture
def checkout_bin() -> Path:
    """This checkout's eris: the gate's quick runs need no wheel."""
    return Path(sys.executable).parent


def test_a_failed_must_requirement_fails_the_job_with_1_and_keeps_the_certification(checkout_bin: Path, tmp_path: Path):
    done = certify_sh(tmp_path, checkout_bin, *QUICK, ERIS_START=f"{START} --fault default-count-not-20")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr
    assert "certify.sh: exit 1, non-conformant" in done.stdout
    for name in OUTPUTS:
        assert (tmp_path / "certification" / name).exists(), name
    certification = json.loads((tmp_path / "certification" / "certification.json").read_text())
    assert certification["summary"]["verdict"] == "non-conformant"
    assert {"id": "ERIS-LIMIT-001", "status": "failed"}.items() <= next(
        requirement for requirement in certification["requirements"] if requirement["id"] == "ERIS-LIMIT-001"
    ).items()
    assert_stopped(tmp_path / "certification")


@pytest.mark.parametrize(("allowed", "status"), [("", 3), ("1", 0)])
def test_an_incomplete_certification_is_3_and_passes_when_allowed(
    checkout_bin: Path, tmp_path: Path, allowed: str, status: int
):
    done = certify_sh(tmp_path, checkout_bin, *QUICK, ERIS_ALLOW_INCOMPLETE=allowed)
    assert done.returncode == status, done.stdout[-3000:] + done.stderr
    assert "certify.sh: exit 3, incomplete" in done.stdout
    assert ("ERIS_ALLOW_INCOMPLETE=1: the incomplete certification passes the gate" in done.stdout) == bool(allowed)
    assert_stopped(tmp_path / "certification")


def test_an_implementation_that_does_not_start_is_2_with_its_output(checkout_bin: Path, tmp_path: Path):
    done = certify_sh(tmp_path, checkout_bin, ERIS_START=f"{START} --seed nonsense")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the implementation stopped before it answered" in done.stderr
    assert "--seed" in done.stderr  # the end of its output, eris serve's reason


def test_a_target_that_does_not_answer_is_2(checkout_bin: Path, tmp_path: Path):
    done = certify_sh(tmp_path, checkout_bin, ERIS_TARGET="http://127.0.0.1:9", ERIS_START="")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "certify.sh: exit 2, the certification could not be made" in done.stdout
    assert "cannot be reached" in done.stdout  # eris certify's reason, kept in certify.log too
    assert "cannot be reached" in (tmp_path / "certification" / "certify.log").read_text()


def test_the_templates_run_the_script_on_the_example_and_keep_the_certification():
    github = TEMPLATES["github-actions.yml"]["jobs"]["certify"]
    gitlab = TEMPLATES["gitlab-ci.yml"]["eris-certify"]
    for variables in (github["env"], gitlab["variables"]):
        assert variables["ERIS_START"] == EXAMPLE_START  # what the tests above run
        assert variables["ERIS_TARGET"] == "target.toml"
        assert variables["ERIS_REPORT_DIR"] == "certification"
    assert [step["run"] for step in github["steps"] if step.get("name") == "Certify"] == ["bash ci/eris-certify.sh"]
    assert gitlab["script"] == ["bash ci/eris-certify.sh"]
    (kept,) = [step for step in github["steps"] if step.get("uses", "").startswith("actions/upload-artifact")]
    assert kept["if"] == "always()" and kept["with"]["path"] == "certification/"
    assert gitlab["artifacts"]["when"] == "always" and gitlab["artifacts"]["paths"] == ["certification/"]
    assert gitlab["artifacts"]["reports"]["junit"] == "certification/junit.xml"
