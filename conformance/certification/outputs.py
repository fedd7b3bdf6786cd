"""Writing a certification's files: certification.json, report.html and traffic.har, each whole or not at all."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from conformance.certification.document import to_json
from conformance.certification.har import har_entries, har_log
from conformance.certification.html_report import to_html
from conformance.certification.judgement import Certification

__all__ = ["write_outputs"]


def write_outputs(certification: Certification, directory: Path | str) -> dict[str, Path]:
    """Write certification.json, report.html and traffic.har into `directory` (created if missing); each
    file appears whole or not at all. Returns the paths by name. OSError when the directory is not writable."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    documents = {
        "certification.json": [json.dumps(to_json(certification), indent=2, ensure_ascii=False) + "\n"],
        "report.html": [to_html(certification)],
        "traffic.har": _har_parts(certification),
    }
    written = {}
    for name, parts in documents.items():
        written[name] = _write_whole(folder / name, parts)
    return written


def _har_parts(certification: Certification) -> Iterator[str]:
    """traffic.har in parts, one entry each: the whole text of thousands of exchanges is never held at once."""
    log = json.dumps(har_log(certification), indent=1, ensure_ascii=False).replace("\n", "\n ")
    yield '{\n "log": ' + log.removesuffix("\n }") + ',\n  "entries": ['
    separator = "\n"
    for entry in har_entries(certification):
        # not textwrap.indent: its line breaks include U+0085 and U+2028, which JSON keeps raw inside a body's text,
        # and an indent there changed the recorded body; json.dumps writes a raw "\n" only between members
        yield separator + "   " + json.dumps(entry, indent=1, ensure_ascii=False).replace("\n", "\n   ")
        separator = ",\n"
    yield ("]" if separator == "\n" else "\n  ]") + "\n }\n}\n"  # as json.dumps(..., indent=1) writes it


def _write_whole(path: Path, parts: Iterable[str]) -> Path:
    # Written beside the file, then renamed into place: a reader never sees half a report. (A plain open,
    # not NamedTemporaryFile, so that the file gets the usual permissions of the umask.)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        # a lone surrogate quoted from a target's answer (JSON may escape one) is written as its escape, \ud800:
        # in a JSON string that is the same escape, in HTML readable text
        with partial.open("w", encoding="utf-8", errors="backslashreplace") as file:
            for part in parts:
                file.write(part)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
