"""Writes the tables of docs/selftest.md from the self-test's catalogue, as `eris deviations --format json` prints it.

    python docs/selftest.py            # rewrite the tables between the markers of docs/selftest.md
    python docs/selftest.py --check    # exit 1 when docs/selftest.md differs from what would be written

Only the part between `<!-- selftest-tables -->` and `<!-- /selftest-tables -->` is generated; the prose around
it is written by hand. tests/ci/test_docs.py fails while the file differs from what this script writes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "selftest.md"
BEGIN = "<!-- selftest-tables -->"
END = "<!-- /selftest-tables -->"


def eris_command() -> list[str]:
    """The `eris` of the running interpreter's environment (its module where no script was installed)."""
    script = Path(sys.executable).with_name("eris")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def catalogue() -> list[dict[str, str]]:
    done = subprocess.run(
        [*eris_command(), "deviations", "--format", "json"], capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"eris deviations --format json failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def _cell(text: str) -> str:
    # a | would end the cell, and <party-type> would be read as an HTML tag and hidden
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def tables(deviations: Iterable[Mapping[str, str]]) -> str:
    faults = [d for d in deviations if d["kind"] == "fault"]
    variants = [d for d in deviations if d["kind"] == "variant"]
    others = [d for d in deviations if d["kind"] not in ("fault", "variant")]
    if others:
        raise SystemExit(f"deviations of an unknown kind: {', '.join(d['name'] for d in others)}")
    lines = [
        f"### Faults ({len(faults)})",
        "",
        "| fault | breaks | what it does |",
        "|---|---|---|",
        *(f"| `{d['name']}` | {d['breaks']} | {_cell(d['summary'])} |" for d in faults),
        "",
        f"### Variants ({len(variants)})",
        "",
        "| variant | what it does differently |",
        "|---|---|",
        *(f"| `{d['name']}` | {_cell(d['summary'])} |" for d in variants),
    ]
    return "\n".join(lines)


def page(current: str, deviations: Iterable[Mapping[str, str]]) -> str:
    """`current` with its generated part replaced by the tables of `deviations`."""
    head, begin, rest = current.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{PAGE} has no {BEGIN} ... {END} part to write")
    return f"{head}{BEGIN}\n{tables(deviations)}\n{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether docs/selftest.md is up to date")
    args = parser.parse_args()
    current = PAGE.read_text(encoding="utf-8")
    wanted = page(current, catalogue())
    if args.check:
        if wanted != current:
            print(f"{PAGE} differs from the catalogue: run python docs/selftest.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
