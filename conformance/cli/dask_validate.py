"""`eris validate` beyond one machine: NDJSON checked by the workers of a Dask cluster, one report gathered.

    import dask.bag as db
    from distributed import Client
    from conformance.cli.dask_validate import validate_bag, write_report

    client = Client("tcp://scheduler:8786")
    lines = db.read_text("s3://exports/2026-11/*.ndjson", include_path=True, errors="surrogateescape")
    results = validate_bag(lines, config="installation.toml").compute()
    tally = write_report(results, "sarif", open("eris.sarif", "w"))

Each partition is checked by `validate_partition` with the same code as `eris validate` (conformance.cli.checking),
and `write_report` writes the partitions' findings in partition order, so a cluster's report is the one
`eris validate` writes over the same files: docs/validate-at-scale.md. Needs the `dask` extra
(`pip install 'eris[dask]'`); this module imports nothing of Dask itself, so that a worker needs only eris.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import lru_cache
from itertools import groupby
from typing import Any, TextIO

from conformance.cli.checking import Checked, Checker, Lines
from conformance.cli.common import suite_version
from conformance.cli.output import WRITERS, Tally
from profiles.validator import RESOURCE, WRITE, Validator

__all__ = ["validate_bag", "validate_partition", "write_report"]

_UNNAMED = "<partition>"


def validate_partition(
    lines: Iterable[str | tuple[str, str]],
    *,
    config: str | None = None,
    strict: bool = False,
    resource_type: str | None = None,
    profile: str | None = None,
    write: bool = False,
) -> list[Checked]:
    """The findings of one partition of NDJSON lines, as a one-item list (what `Bag.map_partitions` expects).

    `lines` are the items of `dask.bag.read_text(...)`: with `include_path=True`, (line, path) pairs, and each path's
    lines are numbered from 1 (so let each file be a partition, or several: not a block of one, `blocksize`, whose
    numbers would restart); without it, plain lines of a source named "<partition>". The options are those of
    `eris validate` (--config, --strict, --resource-type, --profile, --write)."""
    checker = _checker(config, strict, resource_type, profile, write)
    found = Checked()
    for source, run in groupby(lines, key=_source):
        text = "".join(line if isinstance(line, str) else line[0] for line in run).removeprefix("\ufeff")
        # read_text(errors="surrogateescape") keeps bytes that are not UTF-8: back to those bytes, refused as such
        checked = checker.check(Lines(source, 1, text.encode("utf-8", "surrogateescape")))
        found.clean += checked.clean
        found.reported.extend(checked.reported)
    return [found]


def validate_bag(lines: Any, **options: Any) -> Any:
    """A bag of one `Checked` per partition of `lines` (a bag of NDJSON lines), in partition order."""
    return lines.map_partitions(validate_partition, **options)


def write_report(results: Iterable[Checked], output: str = "text", stream: TextIO | None = None) -> Tally:
    """Write the report of `eris validate --format output` from the partitions' results, in their order; return
    the counts (documents, invalid, unreadable, errors...)."""
    writer = WRITERS[output](sys.stdout if stream is None else stream, suite_version())
    for checked in results:
        writer.checked(checked)
    writer.finish()
    return writer.tally


def _source(line: str | tuple[str, str]) -> str:
    return _UNNAMED if isinstance(line, str) else line[1]


@lru_cache(maxsize=4)
def _checker(config: str | None, strict: bool, resource_type: str | None, profile: str | None, write: bool) -> Checker:
    """One validator per worker process and options: built by the first partition, kept for the others."""
    return Checker(Validator.for_config(config, strict=strict), resource_type, profile, WRITE if write else RESOURCE)
