"""How many processes a certification runs its tests in when the user named none: as many as the target's round
trip pays for on this machine (issue 30).

A run sends about 1,300 requests one after another, so behind a round trip of r seconds it waits some 1,300 x r
besides its own work. pytest-xdist workers wait for their answers at the same time, but each costs a start of its own
(an interpreter, the suite's collection, the property phase's schemas built again: seconds of CPU), and the tests of
an xdist group stay in one worker. Measured with bench/latency.py on two shared cores (the embedded reference behind
bench/latency_proxy.py, seed 1, --examples 12; loopback 37 s):

    added ms   1 process   2 workers   4 workers   8 workers
    10         69 s        56 s        62 s        72 s
    20         72 s        58 s        68 s        80 s
    50         105 s       79 s        70 s        76 s

So: within `LOCAL_ROUND_TRIP` (the target on this machine or next door) one process, which a worker's start would
only slow down; from 10 ms 2 workers, from 40 ms 4, from 100 ms 8 (`WORKERS_BY_ROUND_TRIP`, for two cores). A
worker's start costs its CPU seconds divided by the cores in wall time, so with more cores the steps past the first
come sooner in proportion (an extrapolation, not measured), and never more than `MAX_WORKERS`: at most that many
requests in flight at once, which a small test server serves (the reference implementation's default rate limit,
200 a second, is not reached by 8 workers 50 ms away); a 429 is waited out as its Retry-After says in every worker.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from conformance.client.bounded_http import BoundedClient

__all__ = [
    "LOCAL_ROUND_TRIP",
    "MAX_WORKERS",
    "MEASURED_CORES",
    "PROBES",
    "WORKERS_BY_ROUND_TRIP",
    "WorkersChoice",
    "choose_workers",
    "shortest_round_trip",
    "workers_for",
]

PROBES = 5
"""Requests whose shortest is the round trip: the first one's connection set-up is not what the run pays per request
(its client keeps the connection), and a busy machine slows some answers, never the link: the fastest is the
closest to what the link costs, so that a loopback target on a loaded CI machine still counts as local."""
LOCAL_ROUND_TRIP = 0.010
"""Seconds under which the target counts as on this machine or next door: one process, on any machine."""
WORKERS_BY_ROUND_TRIP = ((0.010, 2), (0.040, 4), (0.100, 8))
"""(round trip of at least, in seconds, workers) measured on `MEASURED_CORES` cores: the last step reached applies."""
MEASURED_CORES = 2
MAX_WORKERS = 8


def workers_for(round_trip: float, cores: int = MEASURED_CORES) -> int:
    """The workers a run behind `round_trip` seconds takes on a machine of `cores` cores: 1 on loopback, more the
    further the target."""
    workers = 1
    for least, step in WORKERS_BY_ROUND_TRIP:
        if round_trip >= max(LOCAL_ROUND_TRIP, least * MEASURED_CORES / max(cores, 1)):
            workers = step
    return min(workers, MAX_WORKERS)


def shortest_round_trip(client: BoundedClient, url: str, probes: int = PROBES) -> float:
    """The seconds of the fastest of `probes` GETs of `url` (any answer counts: a round trip is what is measured).
    httpx.HTTPError and AnswerTooLarge as the client raises them."""
    seconds = []
    for _ in range(probes):
        started = time.perf_counter()
        client.get(url, params={"count": 1})
        seconds.append(time.perf_counter() - started)
    return min(seconds)


@dataclass(frozen=True)
class WorkersChoice:
    """The workers of a run and why: what `eris certify` prints and certification.json records."""

    workers: int
    round_trip: float | None
    """Seconds, the shortest of the probes; None where it was not measured."""
    chosen_by: str
    """"--workers" (the user's), "round trip" (`workers_for`), or why the round trip's choice was not taken."""

    def line(self) -> str:
        """One line for the terminal."""
        measured = f"round trip {self.round_trip * 1000:.0f} ms" if self.round_trip is not None else ""
        processes = f"{self.workers} workers" if self.workers > 1 else "one process"
        if self.chosen_by == "--workers":
            return f"{measured + ': ' if measured else ''}{processes} (--workers)"
        if self.chosen_by == "round trip":
            other = "--workers 1 runs in one process" if self.workers > 1 else "--workers N runs in N processes"
            return f"{measured}: {processes} ({other})"
        return f"{measured + ': ' if measured else ''}{processes} ({self.chosen_by})"

    def to_json(self) -> dict[str, object]:
        return {
            "workers": self.workers,
            "round_trip_ms": round(self.round_trip * 1000, 1) if self.round_trip is not None else None,
            "workers_chosen_by": self.chosen_by,
        }


def choose_workers(
    given: int | None,
    round_trip: float | None,
    xdist_installed: bool,
    *,
    cores: int = MEASURED_CORES,
    on_this_machine: bool = False,
) -> WorkersChoice:
    """The user's `--workers` when given; else `workers_for` the measured round trip, where pytest-xdist is there to
    run them. `on_this_machine`: the target is the embedded reference implementation, served by this process: one
    process, whatever a busy machine made of the measurement."""
    if given is not None:
        return WorkersChoice(given, round_trip, "--workers")
    if on_this_machine:
        return WorkersChoice(1, round_trip, "the embedded reference implementation runs in this process")
    if round_trip is None:
        return WorkersChoice(1, None, "the round trip could not be measured")
    workers = workers_for(round_trip, cores)
    if workers > 1 and not xdist_installed:
        return WorkersChoice(1, round_trip, f"{workers} workers need pytest-xdist, which is not installed")
    return WorkersChoice(workers, round_trip, "round trip")
