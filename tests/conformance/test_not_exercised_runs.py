"""Runs of the real suite: what an incomplete run leaves to do, and skips naming what would exercise them."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from handler_servers import ServesNothing, serving_handler
from project_paths import run_certify

from conformance.certification.judgement import WHOLE_SUITE
from conformance.evidence.outcomes import TO_EXERCISE, what_would_exercise

pytestmark = pytest.mark.slow  # runs of eris certify

RUN_TIMEOUT = 240
WAREHOUSE = "[data] warehouse_document: the identifier (system|value) of a warehouse document"


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_certify("--quiet", *arguments, timeout=RUN_TIMEOUT, cwd=cwd)


def test_a_run_without_the_property_phase_lists_what_would_exercise_it_everywhere(tmp_path):
    """ERIS-GEN-001 is judged by the property phase alone: with --examples 0 its tests are skipped, and every
    output says that --examples N would exercise it; the requirements the selection left out are one more item."""
    out = tmp_path / "out"
    result = _run("--examples", "0", "--requirement", "ERIS-GEN-001", "--report-dir", str(out), cwd=tmp_path)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]

    lines = result.stdout.splitlines()
    off = "every test was skipped: the property phase is off (--examples 0)"
    first = next(n for n, line in enumerate(lines) if line.startswith("  not exercised MUST ") and off in line)
    assert lines[first + 1].startswith("    to exercise: --examples N, more than 0")
    to_do = next(n for n, line in enumerate(lines) if line.startswith("  to do: 2 things would exercise"))
    assert lines[to_do + 1].startswith("    [ ] --examples N, more than 0") and "ERIS-" in lines[to_do + 1]
    assert lines[to_do + 2].startswith(f"    [ ] {WHOLE_SUITE} (")

    summary = json.loads((out / "certification.json").read_text("utf-8"))["summary"]
    assert summary["verdict"] == "incomplete"
    gen = [gap for gap in summary["not_exercised"] if gap["requirement"] == "ERIS-GEN-001"]
    assert len(gen) == 1 and gen[0]["reason"] == "the property phase is off (--examples 0)"
    assert gen[0]["to_exercise"].startswith("--examples N, more than 0")
    assert [item["to_exercise"] for item in summary["to_do"]] == [gen[0]["to_exercise"], WHOLE_SUITE]
    assert "ERIS-GEN-001" in summary["to_do"][0]["requirements"]
    assert "ERIS-GEN-001" not in summary["to_do"][1]["requirements"]  # the property phase alone tests it
    assert {gap["requirement"] for gap in summary["not_exercised"]} == {entry["id"] for entry in summary["incomplete"]}

    page = (out / "report.html").read_text("utf-8")
    items = re.findall(r'<li class="todo-item[^"]*"><span class="todo-what">([^<]*)</span>', page)
    assert items == [gen[0]["to_exercise"], WHOLE_SUITE]


@pytest.fixture
def serves_nothing() -> Iterator[str]:
    with serving_handler(ServesNothing) as url:
        yield url


AUDITED = (
    "test_access",
    "test_notifications",
    "test_resources",
    "test_terminology",
    "test_envelope_and_paging",
)
"""Modules whose skips name what would exercise them (conformance/suite/access, events, robustness has no skip,
master_data/test_resources.py and test_terminology.py, reads/test_envelope_and_paging.py)."""


def test_every_skip_for_want_of_data_names_what_was_looked_for_and_what_would_exercise_it(tmp_path, serves_nothing):
    out = tmp_path / "out"
    selection = " or ".join(AUDITED)
    result = _run(
        "--target", serves_nothing, "--examples", "0", "-k", selection, "--report-dir", str(out), cwd=tmp_path
    )
    assert result.returncode in (1, 3), result.stdout[-3000:] + result.stderr[-3000:]
    document = json.loads((out / "certification.json").read_text("utf-8"))

    messages = _skip_messages(out / "junit.xml")
    assert len(messages) > 50, messages  # the target serves nothing: most tests are skipped
    unnamed = {nodeid: message for nodeid, message in messages.items() if TO_EXERCISE not in message}
    assert unnamed == {}
    exercised = [what_would_exercise(message)[1] for message in messages.values() if TO_EXERCISE in message]
    assert "data served by GET /v1/grant-assignments: any item" in exercised
    assert any(item.startswith("[features] notifications = true") for item in exercised)

    # a feature not declared is not applicable, never a to-do
    not_applicable = {r["id"] for r in document["requirements"] if r["status"] == "not-applicable"}
    assert "ERIS-EVT-001" in not_applicable
    for item in document["summary"]["to_do"]:
        assert not set(item["requirements"]) & not_applicable
        assert not item["to_exercise"].startswith("[features] notifications")
    # the same data wanted by tests of several modules is one item
    to_do = {item["to_exercise"]: item["requirements"] for item in document["summary"]["to_do"]}
    assert {"ERIS-PARTY-001", "ERIS-LIMIT-001"} <= set(to_do["data served by GET /v1/parties: any item"])


def _skip_messages(junit: Path) -> dict[str, str]:
    """Skip messages of the run's tests by node id (pytest's junit.xml keeps them whole)."""
    import xml.etree.ElementTree as ElementTree

    messages = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            messages[f"{case.get('classname')}::{case.get('name')}"] = skipped.get("message") or ""
    return messages


def test_a_data_entry_the_target_answers_404_for_is_not_exercised_and_named(tmp_path):
    """A typo in the vendor's own [data] is not the target's failure: the warehouse document that
    warehouse-documents-not-listed hides from every read, named with a wrong value, is answered 404 by PATCH. The
    run is incomplete, and its message names the entry and its value, so that the vendor tells a typo from a
    defect."""
    from conformance.configuration.target import load_target
    from conformance.run.embedded import EmbeddedReference

    out = tmp_path / "out"
    with EmbeddedReference(("warehouse-documents-not-listed",)) as server:
        named = load_target(server.description).data["warehouse_document"]
        wrong = f"{named.partition('|')[0]}|NO-SUCH-DOCUMENT-eris"
        description = tmp_path / "target.toml"
        text = server.description.read_text("utf-8")
        description.write_text(text.replace(json.dumps(named), json.dumps(wrong)), "utf-8")
        result = _run(
            "--config",
            str(description),
            "--examples",
            "0",
            "-k",
            "test_patch_changes_the_status_of_a_warehouse_document",
            "--report-dir",
            str(out),
            cwd=tmp_path,
        )
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    document = json.loads((out / "certification.json").read_text("utf-8"))
    assert document["summary"]["failed_must"] == []
    gaps = {gap["requirement"]: gap for gap in document["summary"]["not_exercised"]}
    gap = gaps["ERIS-DOC-W-001"]
    assert f'[data] warehouse_document = "{wrong}"' in gap["reason"], gap
    assert "answered 404 to PATCH /v1/document-references" in gap["reason"], gap
    assert gap["to_exercise"].startswith(WAREHOUSE), gap
