"""The property phase sends the same requests for the same seed (issue 41): in another run, with other workers, and
in `eris verify`'s re-check, whichever modules of eris each process has loaded."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conformance.cli import main

PROPERTIES = ["-k", "test_properties", "--examples", "4", "--seed", "5"]
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def property_requests(folder: Path) -> list[tuple[str, str, str, str]]:
    """(test, method, path and query, body) of each request of the property phase in folder's traffic.har, sorted.
    The ids the target assigned are masked: schemathesis' stateful steps send them back, and the embedded reference
    draws them anew in each run (a replay answers the recorded ones)."""
    har = json.loads((folder / "traffic.har").read_text())
    requests = []
    for entry in har["log"]["entries"]:
        if "test_properties" not in entry["_eris_test"] or entry["_eris_direction"] == "inbound":
            continue
        request, url = entry["request"], urlsplit(entry["request"]["url"])
        body = (request.get("postData") or {}).get("text", "")
        target = url.path + (f"?{url.query}" if url.query else "")
        requests.append((entry["_eris_test"], request["method"], target, _UUID.sub("<id>", body)))
    return sorted(requests)


_DRAWS = textwrap.dedent(
    """
    import json, sys
    from hypothesis import Phase, given, seed, settings, strategies as st
    from conformance.generation.drawn_constants import without_local_constants

    if sys.argv[1] == "without":
        without_local_constants()

    def draws():
        drawn = []

        @seed(7)
        @settings(max_examples=300, database=None, phases=[Phase.generate])
        @given(st.text())
        def draw(text):
            drawn.append(text)

        draw()
        return drawn

    before = draws()
    import conformance.run.verify, conformance.run.certify, reference_impl, profiles  # more of eris: local modules
    print(json.dumps(sum(a != b for a, b in zip(before, draws()))))
    """
)


@pytest.mark.parametrize(("constants", "same"), [("without", True), ("with", False)])
def test_a_draw_is_the_same_whichever_modules_are_loaded(constants: str, same: bool) -> None:
    """hypothesis mixes in constants of the loaded local modules unless the suite turns that off; with it on the
    same seed draws other values once more of eris is imported (the "with" case shows the test can tell)."""
    done = subprocess.run(
        [sys.executable, "-c", _DRAWS, constants], capture_output=True, text=True, timeout=120, check=True
    )
    assert (json.loads(done.stdout) == 0) is same, done.stdout


@pytest.mark.slow  # three runs of the property phase against the embedded reference, and a re-check
def test_the_same_seed_sends_the_same_generated_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second, rechecked = tmp_path / "first", tmp_path / "second", tmp_path / "rechecked"
    assert main(["certify", *PROPERTIES, "--report-dir", str(first)]) in (0, 3)
    assert main(["certify", *PROPERTIES, "--workers", "1", "--report-dir", str(second)]) in (0, 3)
    capsys.readouterr()
    sent = property_requests(first)
    assert len(sent) > 50
    assert property_requests(second) == sent
    code = main(["verify", str(first), "--report-dir", str(rechecked)])
    out = capsys.readouterr().out
    assert property_requests(rechecked) == sent
    assert code == 0, out
