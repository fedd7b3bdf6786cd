"""Throughput of the eris validator, against plain jsonschema on the same schema files.

    python bench/validate.py [--count 100000] [--seed 1] [--baseline-sample 3000] [--repeat 3]
    python bench/validate.py --profile

Builds a corpus of mixed payloads in memory (bench/corpus.py; not timed), then times what `eris validate` does for
each payload (schemas plus profile rules: `Validator.gate_refused` over 16 payloads at a time, and
`Validator.explain` for the payloads the gate refuses, after the other payloads of their unit of 1,000) over the
whole corpus in this process, then `Validator.validate` one payload at a time (as a program calling the API does),
and `jsonschema.Draft202012Validator(...).iter_errors` consumed fully over a sample of it. Documents are Python objects
already: parsing JSON text is not part of any figure.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date
from importlib.metadata import version
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import generate_labelled
from machine import checkout_state, load_average

from profiles.validator import Validator
from schemas import load_schemas

TARGET_RATE = 30_000
TARGET_RATIO = 30
PROFILE_COUNT = 20_000
UNIT = 1_000
"""Documents of one unit of eris validate (a 1 MiB span of NDJSON holds ~1,100 of these)."""
LINES_TOGETHER = 16
"""Payloads parsed and gated together (conformance.cli.checking.LINES_TOGETHER)."""

Corpus = list[tuple[str, dict[str, Any], str]]


def _eris_pass(validator: Validator, corpus: Corpus) -> int:
    """Validate every document as eris validate does (conformance/cli/checking.py): the clean gates of 16 payloads at a
    time in one call (Validator.gate_refused; a report order, which has no resourceType and so needs
    --resource-type, one at a time), and those refused explained after the others of their unit; the number of
    documents with at least one error."""
    gate_refused, passes_gate, explain = validator.gate_refused, validator.passes_gate, validator.explain
    with_errors = 0
    for start in range(0, len(corpus), UNIT):
        unit = corpus[start : start + UNIT]
        served = [document for _, document, _ in unit if "resourceType" in document]
        refused = [
            (None, served[at + index])
            for at in range(0, len(served), LINES_TOGETHER)
            for index in gate_refused(served[at : at + LINES_TOGETHER])
        ]
        refused += [
            (resource_type, document)
            for resource_type, document, _ in unit
            if "resourceType" not in document and not passes_gate(document, resource_type=resource_type)
        ]
        for resource_type, document in refused:
            issues = explain(document, resource_type=resource_type)
            if issues and any(issue.is_error for issue in issues):
                with_errors += 1
    return with_errors


def _one_at_a_time(validator: Validator, corpus: Corpus) -> int:
    """Validator.validate of each document in turn, as a program calling the API does."""
    validate = validator.validate
    with_errors = 0
    for resource_type, document, _ in corpus:
        issues = validate(document, resource_type=resource_type)
        if issues and any(issue.is_error for issue in issues):
            with_errors += 1
    return with_errors


def _eris_schema_errors(validator: Validator, corpus: Corpus) -> int:
    """The number of documents for which eris reports a structure (JSON Schema) error."""
    return sum(
        1
        for resource_type, document, _ in corpus
        if any(
            issue.is_error and issue.code.startswith("schema-")
            for issue in validator.iter_issues(document, resource_type=resource_type)
        )
    )


def _structure_pass(validator: Validator, corpus: Corpus) -> int:
    """The structure step of eris alone (jsonschema-rs through SchemaStore), for the breakdown."""
    resources = validator.contract.resources
    iter_issues = validator.schemas.iter_issues
    with_errors = 0
    for resource_type, document, _ in corpus:
        rules = resources[resource_type]
        if list(iter_issues(rules.schema, document, rules.requirement)):
            with_errors += 1
    return with_errors


def _jsonschema_validators(validator: Validator) -> dict[str, jsonschema.Draft202012Validator]:
    """One plain-jsonschema validator per resource type, sharing one registry of every schema file."""
    documents = load_schemas()
    registry = (
        Registry()
        .with_resources((schema["$id"], Resource.from_contents(schema)) for schema in documents.values())
        .crawl()
    )
    by_schema: dict[str, jsonschema.Draft202012Validator] = {}
    by_type = {}
    for resource_type, rules in validator.contract.resources.items():
        if rules.schema:
            name = rules.schema.removesuffix(".schema.json")
            if name not in by_schema:
                by_schema[name] = jsonschema.Draft202012Validator(documents[name], registry=registry)
            by_type[resource_type] = by_schema[name]
    return by_type


def _jsonschema_pass(validators: dict[str, jsonschema.Draft202012Validator], corpus: Corpus) -> int:
    with_errors = 0
    for resource_type, document, _ in corpus:
        errors = list(validators[resource_type].iter_errors(document))
        if errors:
            with_errors += 1
    return with_errors


def _timed(run: Callable[[], int], size: int, repeat: int) -> tuple[list[float], int]:
    """Documents per second of each of `repeat` runs, and the error count (the same every run)."""
    rates, counts = [], set()
    for _ in range(repeat):
        start = time.perf_counter()
        counts.add(run())
        rates.append(size / (time.perf_counter() - start))
    if len(counts) != 1:
        raise SystemExit(f"runs disagree on the number of documents with errors: {sorted(counts)}")
    return rates, counts.pop()


def _sample(corpus: Corpus, size: int) -> Corpus:
    """Every k-th document: the same mix as the corpus, and the same documents on every run."""
    if size >= len(corpus):
        return corpus
    step = len(corpus) / size
    return [corpus[int(i * step)] for i in range(size)]


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _environment() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    commit = checkout_state(["conformance", "profiles", "schemas"], "the engine or its data")
    return [
        f"eris {version('eris')}, commit {commit}",
        f"python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}",
        f"jsonschema {version('jsonschema')}, referencing {version('referencing')}, "
        f"jsonschema-rs {version('jsonschema_rs')}",
        f"cpus: {os.cpu_count()} (usable by this process: {usable}); load average {load_average()}; "
        f"date {date.today().isoformat()}",
    ]


def _describe(corpus: Corpus) -> list[str]:
    sizes = sorted(len(json.dumps(document, ensure_ascii=False).encode()) for _, document, _ in corpus)
    mutated = sum(1 for *_, mutation in corpus if mutation)
    types = Counter(resource_type for resource_type, *_ in corpus)
    mix = ", ".join(f"{name} {count}" for name, count in types.most_common())
    return [
        f"corpus: {len(corpus):,} documents, {mutated:,} mutated to be slightly invalid ({mutated / len(corpus):.1%})",
        f"sizes (bytes of compact JSON): median {sizes[len(sizes) // 2]:,}, "
        f"5%-95% {sizes[len(sizes) // 20]:,}-{sizes[len(sizes) * 19 // 20]:,}, "
        f"max {sizes[-1]:,}, mean {sum(sizes) / len(sizes):,.0f}",
        f"mix: {mix}",
    ]


def _profile(validator: Validator, corpus: Corpus) -> None:
    subset = corpus[:PROFILE_COUNT]  # the whole corpus, unless it was built larger
    profiler = cProfile.Profile()
    profiler.enable()
    _eris_pass(validator, subset)
    profiler.disable()
    print(f"\ncProfile of eris over {len(subset):,} documents (profiling slows it several times)")
    for order, count in (("cumulative", 25), ("tottime", 15)):
        print(f"\n-- top {count} by {order} time --")
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.strip_dirs().sort_stats(order).print_stats(count)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="documents in the corpus (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the corpus (default 1)")
    parser.add_argument(
        "--baseline-sample", type=int, default=3_000, help="documents for plain jsonschema (default 3000)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each engine (default 3)")
    parser.add_argument(
        "--profile",
        action="store_true",
        help=f"cProfile eris over {PROFILE_COUNT:,} documents (instead of --count) and print the top functions",
    )
    args = parser.parse_args(argv)
    if args.count < 1 or args.repeat < 1 or args.baseline_sample < 1:
        parser.error("--count, --repeat and --baseline-sample must be positive")

    for line in _environment():
        print(line)
    started = time.perf_counter()
    corpus = list(generate_labelled(PROFILE_COUNT if args.profile else args.count, args.seed))
    print(f"corpus built in {time.perf_counter() - started:.1f} s (seed {args.seed}; not timed)")
    for line in _describe(corpus):
        print(line)

    validator = Validator()
    _eris_pass(validator, corpus[:2_000])  # compiles every schema once; not timed
    # The corpus is long-lived: keep the cyclic collector from walking it during the timed runs.
    gc.collect()
    gc.freeze()

    if args.profile:
        _profile(validator, corpus)
        return 0

    mutated = sum(1 for *_, mutation in corpus if mutation)
    rates, eris_errors = _timed(lambda: _eris_pass(validator, corpus), len(corpus), args.repeat)
    eris_rate = statistics.median(rates)
    print()
    print(
        f"eris (schemas + profile rules): median {_rate(eris_rate)} resources/s over {len(corpus):,} documents, "
        f"{args.repeat} runs (min {_rate(min(rates))}, max {_rate(max(rates))})"
    )
    print(f"eris: {eris_errors:,} documents with errors ({mutated:,} were mutated)")
    one_rates, one_errors = _timed(lambda: _one_at_a_time(validator, corpus), len(corpus), args.repeat)
    print(
        f"eris, Validator.validate one payload at a time (a refused one explained at once): median "
        f"{_rate(statistics.median(one_rates))} resources/s ({one_errors:,} documents with errors)"
    )
    structure_rates, structure_errors = _timed(lambda: _structure_pass(validator, corpus), len(corpus), 1)
    print(
        f"breakdown: the structure step alone (jsonschema-rs) runs at {_rate(structure_rates[0])} resources/s "
        f"({structure_errors:,} documents with schema errors), so profile rules and the engine around them take "
        f"{1 - eris_rate / structure_rates[0]:.0%} of eris's time"
    )

    sample = _sample(corpus, args.baseline_sample)
    baseline = _jsonschema_validators(validator)
    _jsonschema_pass(baseline, sample[:50])  # first lookups through the registry; not timed
    js_rates, js_errors = _timed(lambda: _jsonschema_pass(baseline, sample), len(sample), args.repeat)
    js_rate = statistics.median(js_rates)
    sample_mutated = sum(1 for *_, mutation in sample if mutation)
    sample_eris = _eris_pass(validator, sample)
    sample_eris_schema = _eris_schema_errors(validator, sample)
    print(
        f"plain jsonschema (schemas only): median {_rate(js_rate)} resources/s over a sample of {len(sample):,}, "
        f"{args.repeat} runs (min {_rate(min(js_rates))}, max {_rate(max(js_rates))})"
    )
    print(
        f"on that sample ({sample_mutated:,} mutated): jsonschema {js_errors:,} documents with errors; "
        f"eris {sample_eris:,}, of which {sample_eris_schema:,} with schema errors (the rest break profile rules only)"
    )
    ratio = eris_rate / js_rate
    print()
    print(
        f"eris / jsonschema: {ratio:,.0f}x (target >= {TARGET_RATIO}x: {'met' if ratio >= TARGET_RATIO else 'NOT met'})"
    )
    print(
        f"eris rate: {_rate(eris_rate)} resources/s "
        f"(target >= {_rate(TARGET_RATE)}: {'met' if eris_rate >= TARGET_RATE else 'NOT met'})"
    )
    print(f"load average after the runs: {load_average()} (2 shared cores: other work slows both engines)")
    unflagged = _unflagged(validator, corpus)
    if unflagged:  # some mutations are warnings by the registry of issue codes (a foreign installation's namespace)
        print(f"warning: eris reports no error and no warning about {unflagged:,} of the {mutated:,} mutated documents")
    return 0


def _unflagged(validator: Validator, corpus: Corpus) -> int:
    """Mutated documents about which eris reports neither an error nor a warning (there should be none)."""
    return sum(
        1
        for resource_type, document, mutation in corpus
        if mutation
        and not any(
            issue.severity.value in ("error", "warning")
            for issue in validator.validate(document, resource_type=resource_type)
        )
    )


if __name__ == "__main__":
    sys.exit(main())
