"""`eris validate` on input that is not UTF-8: one line naming the input and the byte where it stops being UTF-8,
counted from the start of the input, whichever way the input was read (a small file, a large one, stdin)."""

import json
import subprocess
import sys

import pytest
from project_paths import ROOT

from conformance.cli import main
from conformance.cli.units import SMALL_FILE_BYTES

PARTIES = json.dumps([{"resourceType": "Party", "id": f"p{n}"} for n in range(60_000)]).encode()
SIZES = {"small": (9_000, 20_000), "large": (SMALL_FILE_BYTES + 300_000, len(PARTIES))}
"""(offset of the bad byte, bytes of the file): the bad byte past the first block a reader decodes (8 KiB for a
small file, 1 MiB for a large one), so that an offset counted within a block would be wrong."""


def _with_bad_byte(offset: int, size: int) -> bytes:
    return PARTIES[:offset] + b"\xff" + PARTIES[offset:size]


@pytest.mark.parametrize("size", SIZES)
def test_a_file_names_the_byte_that_is_not_utf8_by_its_offset_in_the_file(tmp_path, capsys, size):
    offset, length = SIZES[size]
    path = tmp_path / "parties.json"
    path.write_bytes(_with_bad_byte(offset, length))
    assert main(["validate", "--jobs", "1", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}: error: cannot be read: not UTF-8 text: byte {offset} is FF (hex) [input-unreadable]" in out


def test_stdin_names_the_byte_that_is_not_utf8_by_its_offset_in_the_input():
    offset, length = SIZES["large"]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "validate", "--jobs", "1", "-"],
        input=_with_bad_byte(offset, length),
        capture_output=True,
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr
    assert f"<stdin>: error: cannot be read: not UTF-8 text: byte {offset} is FF (hex)".encode() in done.stdout


@pytest.mark.parametrize("where", ["file", "stdin", "har"])
def test_utf16_text_is_named_as_such_not_a_traceback(tmp_path, where):
    """A leading FF FE once ended a run read from stdin with `eris: UnicodeDecodeError: ...`, the line of a defect,
    and a HAR was said to hold "a character that begins no JSON value"."""
    document = {"log": {"version": "1.2", "entries": []}} if where == "har" else {"resourceType": "Party", "id": "p1"}
    path = tmp_path / ("traffic.har" if where == "har" else "party.json")
    path.write_text(json.dumps(document), encoding="utf-16")  # with its mark, FF FE
    command = [sys.executable, "-m", "conformance.cli", "validate", "--jobs", "1"]
    command.append("-" if where == "stdin" else str(path))
    stdin = path.read_bytes() if where == "stdin" else None
    done = subprocess.run(command, input=stdin, capture_output=True, cwd=ROOT)
    assert done.returncode == 2 and done.stderr == b"", done.stderr
    expected = "not UTF-8 text: it begins with FF FE, the byte order mark of UTF-16 text (save it as UTF-8)"
    assert expected in done.stdout.decode()
