"""`eris certify` against targets that misbehave at the transport: peak memory and time (issue 27, point 5).

    python bench/bounded_run.py [--scenario huge|bomb|many|hang ...] [--size-gib 3] [--bomb-gib 2]
                                [--hang-after 300]

The reference implementation is served on a free port behind a proxy (tests/conformance/hostile_targets.py):

- **huge**: GET /v1/cost-centers, /v1/fixed-assets and /v1/locations answer a JSON envelope of `--size-gib` GiB;
- **bomb**: the same reads answer a gzip body that inflates to `--bomb-gib` GiB (about 2 MiB on the wire);
- **many**: the same reads answer an envelope just under the answer size limit (31 MiB) of small items, which a
  client parses, and validates (about 680,000 items, each breaking the contract);
- **hang**: the proxy stops answering at its `--hang-after`th request.

Each run is `eris certify --target <proxy>` with the default bounds, under `/usr/bin/time -v`. Prints the exit code,
the wall time, the peak resident memory of `eris certify` (Maximum resident set size), the failed requirements and,
for the hang, the seconds from the proxy's last answer to the end of the run.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import checkout_state, load_average

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "conformance")] + [
    entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench"
]

from hostile_targets import REQUESTS, bomb, hostile_proxy, huge, many_items, served  # noqa: E402
from serve_fixtures import running, seeded_settings  # noqa: E402

GiB = 1 << 30
HOSTILE_READS = ("/v1/cost-centers", "/v1/fixed-assets", "/v1/locations")
RUN_TIMEOUT = 1800


def _eris() -> list[str]:
    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def certify(target: str) -> dict:
    """One `eris certify --target` under /usr/bin/time -v: exit, seconds, peak RSS, failed requirements, reason."""
    with tempfile.TemporaryDirectory(prefix="eris-bench-bounded-") as folder:
        started = time.monotonic()
        done = subprocess.run(
            ["/usr/bin/time", "-v", *_eris(), "certify", "--target", target, "--report-dir", folder, "-q"],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        ended = time.monotonic()
        peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        path = Path(folder) / "certification.json"
        document = json.loads(path.read_text()) if path.exists() else {}
        outputs = sorted(p.name for p in Path(folder).iterdir())
    reason = [line for line in done.stderr.splitlines() if line.startswith("eris: ")]
    return {
        "exit": done.returncode,
        "seconds": ended - started,
        "ended": ended,
        "peak_mib": int(peak.group(1)) / 1024 if peak else None,
        "failed": document.get("summary", {}).get("failed_must", []),
        "verdict": document.get("summary", {}).get("verdict"),
        "outputs": outputs,
        "reason": reason[-1] if reason else "",
    }


def scenario(name: str, options: argparse.Namespace, upstream: str) -> None:
    if name == "hang":
        proxy_app = hostile_proxy(upstream, answered=options.hang_after)
    else:
        answer = {
            "huge": lambda: huge(int(options.size_gib * GiB)),
            "bomb": lambda: bomb(int(options.bomb_gib * GiB)),
            "many": lambda: many_items(31 << 20),
        }[name]()
        proxy_app = hostile_proxy(upstream, answers=dict.fromkeys(HOSTILE_READS, answer))
    with served(proxy_app) as proxy:
        found = certify(proxy.url)
        state = proxy.app[REQUESTS]
    print(
        f"{name}: exit {found['exit']}, {found['seconds']:.1f} s, peak RSS {found['peak_mib']:.0f} MiB, "
        f"verdict {found['verdict']}, failed MUST {found['failed']}, outputs {found['outputs']}"
    )
    if name == "hang" and "answered_at" in state:
        print(
            f"  {state['seen']} requests, the last answered {found['ended'] - state['answered_at']:.1f} s before "
            "the run ended"
        )
    if found["reason"]:
        print(f"  {found['reason'][:400]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", choices=("huge", "bomb", "many", "hang"))
    parser.add_argument("--size-gib", type=float, default=3.0)
    parser.add_argument("--bomb-gib", type=float, default=2.0)
    parser.add_argument("--hang-after", type=int, default=300)
    options = parser.parse_args()
    print(f"checkout {checkout_state(['conformance'], 'conformance/')}, load {load_average()}")
    with (
        tempfile.TemporaryDirectory(prefix="eris-bench-deliveries-") as deliveries,
        running(seeded_settings(local_root=deliveries)) as reference,
    ):
        for name in options.scenario or ["huge", "bomb", "many", "hang"]:
            scenario(name, options, reference.url)


if __name__ == "__main__":
    main()
