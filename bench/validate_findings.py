"""What a finding costs: `eris validate --jobs 1` over clean payloads and over the same payloads each carrying one
warning, side by side on one core.

    python bench/validate_findings.py [--count 50000] [--repeat 5] [--seed 1] [--against CLONE ...]

The warning is the one an integrator with an incomplete installation description gets on every document: an
identifier in a namespace of this installation that its configuration does not name (identifier-namespace-unknown).
The corpus is bench/corpus.py's served payloads that eris finds nothing about; each warned payload is its clean twin
with the system of its first installation identifier moved to such a namespace, and holds exactly that one finding
(checked before the clock starts). Both are written as NDJSON (not timed).

Each checkout (this one, and each `--against` clone, run through PYTHONPATH) validates both files in turns, `--repeat`
times, as a user runs it (a new process, the text report to /dev/null); a run over one payload gives the start of the
process, which the net figures leave out. Printed: the medians in payloads/s, and how many times a clean payload's
time a warned one takes (goal: at most 3, issue 28).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent))  # after the project: bench/reports.py is no package

from corpus import served
from machine import checkout_state, load_average

from profiles.installation import INSTALLATION_OID_ARC
from profiles.validator import Validator

ERIS = Path(sys.executable).parent / "eris"
GOAL_RATIO = 3.0
AS_INSTALLED = {
    name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
}
"""As validate_cli.py runs it: from bytecode, as installed; PYTHONPATH is set per checkout."""
WARNING = "identifier-namespace-unknown"


def _unnamed_namespace(validator: Validator) -> str:
    """A namespace of this installation that its configuration does not name."""
    installation = validator.contract.installation.number
    keys = [
        int(system.rsplit(".", 1)[1])
        for system in validator.contract.namespaces
        if system.startswith(f"{INSTALLATION_OID_ARC}{installation}.")
    ]
    return f"{INSTALLATION_OID_ARC}{installation}.{max(keys, default=0) + 1000}"


def _warned(document: dict[str, Any], system: str) -> dict[str, Any] | None:
    """The document with the system of its first installation identifier replaced by `system` (None: it has none)."""
    identifiers = document.get("identifier")
    for index, identifier in enumerate(identifiers if isinstance(identifiers, list) else []):
        if isinstance(identifier, dict) and str(identifier.get("system", "")).startswith(INSTALLATION_OID_ARC):
            changed = list(identifiers)
            changed[index] = {**identifier, "system": system}
            return {**document, "identifier": changed}
    return None


def _corpora(count: int, seed: int) -> tuple[list[str], list[str]]:
    """`count` clean payloads and their warned twins, as NDJSON lines."""
    validator = Validator()
    system = _unnamed_namespace(validator)
    clean: list[str] = []
    warned: list[str] = []
    for _, document in served(count * 3, seed):
        twin = _warned(document, system)
        if twin is None or validator.validate(document):
            continue
        issues = validator.validate(twin)
        if [(issue.code, issue.severity.value) for issue in issues] != [(WARNING, "warning")]:
            raise SystemExit(f"a warned payload does not carry exactly one {WARNING} warning: {issues}")
        clean.append(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
        warned.append(json.dumps(twin, ensure_ascii=False, separators=(",", ":")))
        if len(clean) == count:
            return clean, warned
    raise SystemExit(f"the corpus of seed {seed} has fewer than {count} clean payloads with an installation identifier")


def _seconds(path: Path, checkout: str | None) -> float:
    environment = dict(AS_INSTALLED, **({"PYTHONPATH": checkout} if checkout else {}))
    command = [str(ERIS), "validate", "--jobs", "1", str(path)]
    start = time.perf_counter()
    finished = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=environment)
    seconds = time.perf_counter() - start
    if finished.returncode != 0:  # warnings only: exit 0
        raise SystemExit(f"{' '.join(command)} exited with {finished.returncode}")
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=50_000, help="payloads of each file (default 50000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each file a checkout (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--against", action="append", default=[], metavar="CLONE", help="another checkout to run in turns with this one"
    )
    args = parser.parse_args(argv)
    if args.count < 1 or args.repeat < 1:
        parser.error("--count and --repeat must be at least 1")
    for clone in args.against:
        if not (Path(clone) / "profiles").is_dir():
            parser.error(f"--against {clone}: not a checkout of eris (no profiles/ in it)")
    checkouts: list[tuple[str, str | None]] = [("this checkout", None)]
    checkouts += [(clone, str(Path(clone).resolve())) for clone in args.against]

    print(f"eris commit {checkout_state(['conformance', 'profiles', 'schemas'], 'the validator')}")
    print(f"cpus usable: {len(os.sched_getaffinity(0))}; load average before: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="eris-bench-findings-") as scratch:
        files = {name: Path(scratch) / f"{name}.ndjson" for name in ("clean", "warned", "one")}
        clean, warned = _corpora(args.count, args.seed)
        files["clean"].write_text("\n".join(clean) + "\n", encoding="utf-8")
        files["warned"].write_text("\n".join(warned) + "\n", encoding="utf-8")
        files["one"].write_text(clean[0] + "\n", encoding="utf-8")
        print(
            f"corpus: {args.count:,} clean payloads ({files['clean'].stat().st_size / 1e6:.0f} MB) and their twins "
            f"with one {WARNING} warning each; {args.repeat} runs of each a checkout"
        )
        for _, checkout in checkouts:
            _seconds(files["one"], checkout)  # not timed: writes the bytecode, as an install does
        times = {checkout: {name: [] for name in files} for _, checkout in checkouts}
        for turn in range(args.repeat):
            order = checkouts if turn % 2 == 0 else checkouts[::-1]
            for _, checkout in order:
                for name in files if turn % 2 == 0 else reversed(files):
                    times[checkout][name].append(_seconds(files[name], checkout))

    print()
    for label, checkout in checkouts:
        median = {name: statistics.median(runs) for name, runs in times[checkout].items()}
        start = median["one"]
        ratio = median["warned"] / median["clean"]
        net = (median["warned"] - start) / (median["clean"] - start)
        print(
            f"{label}: clean {args.count / median['clean']:,.0f}/s ({median['clean']:.3f} s), "
            f"one warning each {args.count / median['warned']:,.0f}/s ({median['warned']:.3f} s); "
            f"a warned payload costs {ratio:.2f}x a clean one end to end, {net:.2f}x without the start of the "
            f"process ({start:.3f} s) (goal <= {GOAL_RATIO:g}x: {'met' if net <= GOAL_RATIO else 'NOT met'})"
        )
    print(f"load average after: {load_average()} (2 shared cores: other work slows every figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
