"""Writing a certification's files: certification.json, report.html and traffic.har, each whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conformance.certification.document import to_json
from conformance.certification.har import to_har
from conformance.certification.html_report import to_html
from conformance.certification.judgement import Certification

__all__ = ["write_outputs"]


def write_outputs(certification: Certification, directory: Path | str) -> dict[str, Path]:
    """Write certification.json, report.html and traffic.har into `directory` (created if missing); each
    file appears whole or not at all. Returns the paths by name. OSError when the directory is not writable."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    documents = {
        "certification.json": json.dumps(to_json(certification), indent=2, ensure_ascii=False) + "\n",
        "report.html": to_html(certification),
        "traffic.har": json.dumps(to_har(certification), indent=1, ensure_ascii=False) + "\n",
    }
    written = {}
    for name, text in documents.items():
        written[name] = _write_whole(folder / name, text)
    return written


def _write_whole(path: Path, text: str) -> Path:
    # Written beside the file, then renamed into place: a reader never sees half a report. (A plain open,
    # not NamedTemporaryFile, so that the file gets the usual permissions of the umask.)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        # a lone surrogate quoted from a target's answer (JSON may escape one) is written as its escape, \ud800:
        # in a JSON string that is the same escape, in HTML readable text
        partial.write_text(text, encoding="utf-8", errors="backslashreplace")
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
