"""`eris validate` keeps the memory it frees for its next unit (conformance/cli/allocator.py): the page faults of a
run over several units, counted in a fresh process with and without the thresholds, the report the same."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from project_paths import ROOT

from conformance.cli import main
from conformance.cli import validate as validate_command
from conformance.cli.units import LINES_BYTES

EXAMPLES = ROOT / "tests" / "data" / "examples"
_RUN = """
import json, resource, sys
from conformance.cli import main
from conformance.cli import validate as command
if sys.argv[1] == "default":
    command.keep_freed_memory = lambda: False
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
main(["validate", "--jobs", "1", "--output", sys.argv[3], sys.argv[2]])
print(json.dumps({"faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
"""


def _faults(mode: str, ndjson: Path, tmp_path: Path) -> int:
    command = [sys.executable, "-c", _RUN, mode, str(ndjson), str(tmp_path / f"{mode}.txt")]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])["faults"]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's (mallopt)")
def test_eris_validate_no_longer_faults_its_units_in_again(tmp_path: Path) -> None:
    examples = [json.loads((EXAMPLES / name).read_text()) for name in ("party-contractor.json", "notification.json")]
    payloads = ({**examples[n % 2], "id": f"p-{n}"} for n in range(24_000))
    ndjson = tmp_path / "payloads.ndjson"
    # one in twenty with an element the schema does not know: refused by the gate, explained at the end of its unit
    lines = (json.dumps(p if n % 20 else {**p, "unknown": n}) + "\n" for n, p in enumerate(payloads))
    ndjson.write_text("".join(lines))
    assert ndjson.stat().st_size > 6 * LINES_BYTES  # several units: each one's memory freed and taken again
    default, kept = _faults("default", ndjson, tmp_path), _faults("kept", ndjson, tmp_path)
    assert (tmp_path / "default.txt").read_text() == (tmp_path / "kept.txt").read_text()
    assert kept < default * 0.6, (default, kept)


def test_eris_validate_sets_the_thresholds_before_it_checks(tmp_path, monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(validate_command, "keep_freed_memory", lambda: calls.append("kept") or True)
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"resourceType": "Party"}))
    main(["validate", "--jobs", "1", str(payload)])
    assert calls == ["kept"]
