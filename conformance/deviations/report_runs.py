"""Faults of the run of an ordered report: what is queued (runAt, compression, format) and how it is delivered
(no delivery, another name, a repeat, the gateway's 429 without Retry-After); and a conformant variant of the
delivery. The faults of the order, its errors and its encryption are reports.py's."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import hdrs, web

from conformance.deviations import deviation
from conformance.deviations._tools import (
    Handler,
    add_outer_middleware,
    on_startup,
    replace_delivery_targets,
)
from conformance.deviations.reports import DAY_SECONDS, is_report_order
from reference_impl.problems import problem
from reference_impl.ratelimit import RateLimiter
from reference_impl.report_orders import REPORTS
from reports.delivery import DeliveryTarget

# -- what is queued: runAt, compression, format -------------------------------------------------------------------


def _replace_queueing(app: web.Application, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Accepted orders are queued as `change(queue.add's keyword arguments)` makes them."""

    def replace(app: web.Application) -> None:
        queue = app[REPORTS].queue
        add = queue.add

        def add_changed(**arguments: Any) -> None:
            add(**change(arguments))

        queue.add = add_changed  # type: ignore[method-assign]

    on_startup(app, replace)


@deviation(
    "run-at-ignored",
    "every order runs as soon as it is accepted: a runAt in the future is not waited for",
    breaks="ERIS-REPORT-011",
)
def run_at_ignored(app: web.Application, settings: Any) -> None:
    def now(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "run_at": app[REPORTS].queue.clock()}

    _replace_queueing(app, now)


@deviation(
    "run-at-past-deferred",
    "a runAt in the past (or now) is taken as a daily time: the order runs at its next occurrence, up to a day "
    "later, not at once",
    breaks="ERIS-REPORT-004",
)
def run_at_past_deferred(app: web.Application, settings: Any) -> None:
    def next_occurrence(arguments: dict[str, Any]) -> dict[str, Any]:
        run_at, now = arguments["run_at"], app[REPORTS].queue.clock()
        if run_at <= now:
            run_at += DAY_SECONDS * (1 + (now - run_at) // DAY_SECONDS)
        return {**arguments, "run_at": run_at}

    _replace_queueing(app, next_occurrence)


@deviation(
    "compression-ignored",
    "compression true is ignored: the report is encrypted uncompressed",
    breaks="ERIS-REPORT-012",
)
def compression_ignored(app: web.Application, settings: Any) -> None:
    def uncompressed(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "order": {**arguments["order"], "compression": False}}

    _replace_queueing(app, uncompressed)


@deviation(
    "format-ignored",
    "every report is generated as parquet, whatever format the order names",
    breaks="ERIS-REPORT-001",
)
def format_ignored(app: web.Application, settings: Any) -> None:
    def parquet(arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "order": {**arguments["order"], "format": "parquet"}}

    _replace_queueing(app, parquet)


# -- delivery, the gateway ----------------------------------------------------------------------------------------


def _replace_http_targets(app: web.Application, target_for: Callable[[DeliveryTarget], DeliveryTarget]) -> None:
    replace_delivery_targets(app, target_for, ("http",))


@dataclasses.dataclass(frozen=True)
class _NowhereTarget:
    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        return None


@deviation(
    "no-http-delivery",
    "orders with http storage are generated and marked delivered, but the artifact is never POSTed",
    breaks="ERIS-REPORT-013",
)
def no_http_delivery(app: web.Application, settings: Any) -> None:
    _replace_http_targets(app, lambda target: _NowhereTarget())


def _nowhere(storage_type: str) -> Callable[[web.Application, Any], None]:
    def install(app: web.Application, settings: Any) -> None:
        replace_delivery_targets(app, lambda target: _NowhereTarget(), (storage_type,))

    return install


no_blob_delivery = deviation(
    "no-blob-delivery",
    "orders with blob storage are generated and marked delivered, but nothing is written into the container",
    breaks="ERIS-REPORT-020",
)(_nowhere("blob"))
no_smb_delivery = deviation(
    "no-smb-delivery",
    "orders with smb storage are generated and marked delivered, but nothing is written into the share",
    breaks="ERIS-REPORT-021",
)(_nowhere("smb"))
no_local_delivery = deviation(
    "no-local-delivery",
    "orders with local storage are generated and marked delivered, but nothing is written into the folder",
    breaks="ERIS-REPORT-022",
)(_nowhere("local"))


@dataclasses.dataclass(frozen=True)
class _RenamedTarget:
    inner: DeliveryTarget

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        await self.inner.deliver(artifact, execution_id=execution_id, file_name=f"report-{execution_id[:8]}.bin")


@deviation(
    "store-artifact-named-otherwise",
    "artifacts written into blob, smb and local stores are named report-<id>.bin (the contract shows no name)",
)
def store_artifact_named_otherwise(app: web.Application, settings: Any) -> None:
    replace_delivery_targets(app, _RenamedTarget, ("blob", "smb", "local"))


@deviation(
    "retry-after-missing",
    "the gateway's 429 answers carry no Retry-After header; orders beyond 100 at once (then 50 a second) from one "
    "address are refused so, whatever the load of the machine (the quota is not shown)",
    breaks="ERIS-ERR-307",
)
def retry_after_missing(app: web.Application, settings: Any) -> None:
    # the service's own quota (200 a second) is reached by the suite's burst only on an idle machine
    orders = RateLimiter(50, 100)

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request) and orders.check(request.remote or "") is not None:
            return problem(429, "the gateway rate limit is exceeded")
        response = await handler(request)
        if response.status == 429:
            response.headers.popall(hdrs.RETRY_AFTER, None)
        return response

    add_outer_middleware(app, middleware)


WINDOW_ORDERS, WINDOW_SECONDS = 100, 12.0


@deviation(
    "retry-after-missing-in-a-window",
    f"orders beyond {WINDOW_ORDERS} in a window of {WINDOW_SECONDS:g} s from one address are refused with 429 until "
    "the window ends, and no 429 carries Retry-After (the quota is not shown)",
    breaks="ERIS-ERR-307",
)
def retry_after_missing_in_a_window(app: web.Application, settings: Any) -> None:
    # a gateway counting in windows, as met in the field: a client that retries after a second or two, three
    # times, is still refused when the window is long; one that backs off longer is let through
    windows: dict[str, tuple[float, int]] = {}

    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if is_report_order(request):
            now, client = time.monotonic(), request.remote or ""
            opened, count = windows.get(client, (now, 0))
            if now - opened >= WINDOW_SECONDS:
                opened, count = now, 0
            windows[client] = (opened, count + 1)
            if count >= WINDOW_ORDERS:
                return problem(429, "the gateway rate limit is exceeded")
        response = await handler(request)
        if response.status == 429:
            response.headers.popall(hdrs.RETRY_AFTER, None)
        return response

    add_outer_middleware(app, middleware)


@dataclasses.dataclass(frozen=True)
class _TwiceTarget:
    inner: DeliveryTarget

    async def deliver(self, artifact: Path, *, execution_id: str, file_name: str) -> None:
        for _ in range(2):
            await self.inner.deliver(artifact, execution_id=execution_id, file_name=file_name)


@deviation(
    "delivery-repeated",
    "every http delivery is POSTed twice under the same executionId (its idempotency key); retries are not shown",
)
def delivery_repeated(app: web.Application, settings: Any) -> None:
    _replace_http_targets(app, _TwiceTarget)
