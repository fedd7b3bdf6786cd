"""What `eris validate` costs a payload in instructions (valgrind's callgrind): clean, with one warning, in the mix,
in each output format. Instructions do not depend on what else runs on the machine, so the ratios of issue 39 can
be read on 2 shared cores whose clock figures move by a third from one minute to the next.

    python bench/validate_instructions.py [--formats text json sarif] [--count 1500] [--seed 1]

For each corpus of bench/warned_corpus.py and each format, a process checks and encodes two units of 1,000 payloads
(not counted: the gates are built on first use, as in any run of more than a few payloads), then `--count` payloads,
then twice `--count`, under callgrind; the difference of the two totals, over `--count`, is a payload's share. Needs
valgrind (apt-get install valgrind); each measurement runs about a minute.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))  # after the project: bench/reports.py is no package

from machine import checkout_state
from warned_corpus import corpora

CORPORA = ("clean", "warned", "mix")
WARM_UP = 2_000
_MEASURED = """
import sys
from profiles.validator import Validator
from conformance.cli.checking import Checker, Lines
from conformance.cli.encoding import UnitEncoder
path, count, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path, "rb").read().split(b"\\n")
encode = UnitEncoder(Checker(Validator()).check, output)
for start in range(0, 2000, 1000):
    encode(Lines(path, 1, b"\\n".join(lines[start : start + 1000])))
for start in range(2000, 2000 + count, 500):
    encode(Lines(path, 1, b"\\n".join(lines[start : min(start + 500, 2000 + count)])))
"""


def _instructions(path: Path, count: int, output: str) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", _MEASURED]
    done = subprocess.run([*command, str(path), str(count), output], capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind reported no total: {done.stderr[-1000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", nargs="+", default=["text", "json", "sarif"], choices=["text", "json", "sarif"])
    parser.add_argument("--count", type=int, default=1_500, help="payloads of a measurement (default 1500)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"eris commit {checkout_state(['conformance', 'profiles', 'schemas'], 'the validator')}")
    with tempfile.TemporaryDirectory(prefix="eris-bench-instructions-") as scratch:
        paths = {name: Path(scratch) / f"{name}.ndjson" for name in CORPORA}
        for name, lines in zip(CORPORA, corpora(WARM_UP + 2 * args.count, args.seed), strict=True):
            paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
        for output in args.formats:
            each = {
                name: (_instructions(path, 2 * args.count, output) - _instructions(path, args.count, output))
                / args.count
                for name, path in paths.items()
            }
            print(
                f"{output:6} instructions a payload: clean {each['clean']:,.0f}, warned {each['warned']:,.0f}, mix "
                f"{each['mix']:,.0f}; a warned payload {each['warned'] / each['clean']:.2f}x a clean one, the mix at "
                f"{each['clean'] / each['mix']:.2f}x the clean rate"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
