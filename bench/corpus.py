"""A deterministic corpus of contract payloads for the validator benchmark.

`generate(n, seed)` yields `(resource_type, document)`: a mix of the payloads an integrator
validates (Party of the four profiles, Location, DocumentReference of both profiles, the
fixed-asset resources, GrantAssignment, Capability, ValueSet, Notification, report orders), each
roughly 300 to 1,500 bytes of JSON. About 5% are slightly invalid: one mutation each, chosen so
that the eris validator reports at least one error for it (some only a profile rule can see,
some the JSON Schemas see too). `generate_labelled` also yields the mutation's name ("" for a
valid document), so a benchmark can check the verdicts.

payload_makers.py makes the payloads, payload_mutations.py makes them invalid; this module mixes them.

The same seed gives the same corpus, with one exception: the RSA public key of the report
orders is generated once per process (key generation cannot be seeded); every order of a run
carries that one key, so only its bytes differ between runs.

Placeholder values (namespace URLs, installation arcs) come from the installation's
`placeholders()`; codes come from the value sets of the terminology, so valid documents are
valid for the installation whatever its configuration.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from payload_makers import PayloadMaker
from payload_mutations import MUTATIONS
from payload_parts import Document

__all__ = ["INVALID_SHARE", "generate", "generate_labelled", "served"]

INVALID_SHARE = 0.05


# Share of each kind in the corpus: master data dominates, as in the traffic of an installation.
_MIX: tuple[tuple[Callable[[PayloadMaker], tuple[str, Document]], int], ...] = (
    (PayloadMaker.party, 26),
    (PayloadMaker.location, 8),
    (PayloadMaker.document_reference, 14),
    (PayloadMaker.fixed_asset, 8),
    (PayloadMaker.fixed_asset_document, 8),
    (PayloadMaker.fixed_asset_allocation, 7),
    (PayloadMaker.grant_assignment, 8),
    (PayloadMaker.capability, 5),
    (PayloadMaker.value_set, 4),
    (PayloadMaker.notification, 8),
    (PayloadMaker.report_order, 4),
)


def generate_labelled(
    n: int, seed: int = 1, invalid_share: float = INVALID_SHARE
) -> Iterator[tuple[str, Document, str]]:
    """`n` documents as `(resource_type, document, mutation)`; mutation is "" for a valid one."""
    rng = random.Random(seed)
    builder = PayloadMaker(rng)
    kinds = [kind for kind, _ in _MIX]
    weights = [weight for _, weight in _MIX]
    for _ in range(n):
        resource_type, document = rng.choices(kinds, weights)[0](builder)
        mutation = ""
        if rng.random() < invalid_share:
            mutate = rng.choice(MUTATIONS[resource_type])
            mutate(builder, document)
            mutation = mutate.__name__.lstrip("_")
        yield resource_type, document, mutation


def served(n: int, seed: int = 1) -> Iterator[tuple[str, Document]]:
    """`n` documents as `(resource_type, document)` that name their type, as `eris validate` reads them without
    --resource-type: report orders carry no resourceType and are left out."""
    count = 0
    for resource_type, document, _ in generate_labelled(n * 2, seed):
        if "resourceType" in document:
            yield resource_type, document
            count += 1
            if count == n:
                return


def generate(n: int, seed: int = 1) -> Iterator[tuple[str, Document]]:
    """`n` documents as `(resource_type, document)`, about 5% of them slightly invalid."""
    for resource_type, document, _ in generate_labelled(n, seed):
        yield resource_type, document
