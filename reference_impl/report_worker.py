"""The background work of report orders: generate each when its runAt comes, then deliver it.

Generation runs in a thread (it is CPU work and must not stall the server); the store is read on
the event loop thread before. Each order is delivered by a task of its own, at most
`max_deliveries` at a time, each attempt cut off after `attempt_timeout` seconds: a receiver that
never answers, or trickles, holds its own order and no other. Delivery is retried with the outbox's
backoff (1 s doubling to a 60 s cap, with jitter) until the target confirms, for at most
`delivery_deadline` seconds after generation (default 24 hours); a failure no retry can mend (a
file where a folder should be, a name too long) ends the order at once. An order given up is
logged as an ERROR. Everything is in the database, so a restart resumes: a scheduled order is
generated after it, a generated one delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web

from reference_impl.outbox import Backoff
from reference_impl.report_queue import OrderRow, ReportQueue
from reports.artifact import build_artifact
from reports.delivery import DeliveryFailed, HttpPolicy, StorageRefused, delivery_target
from reports.generate import ReportData, ReportRequest

__all__ = [
    "DEFAULT_ATTEMPT_TIMEOUT",
    "DEFAULT_DELIVERY_DEADLINE",
    "DEFAULT_MAX_DELIVERIES",
    "ReportWorker",
    "report_worker_context",
]

log = logging.getLogger(__name__)
DEFAULT_DELIVERY_DEADLINE = 24 * 3600.0
DEFAULT_ATTEMPT_TIMEOUT = 300.0
DEFAULT_MAX_DELIVERIES = 8


class ReportWorker:
    def __init__(
        self,
        queue: ReportQueue,
        report_data: Callable[[OrderRow], ReportData],
        spool: Path,
        *,
        local_root: Path | None,
        backoff: Backoff | None = None,
        delivery_deadline: float = DEFAULT_DELIVERY_DEADLINE,
        poll_interval: float = 1.0,
        rng: random.Random | None = None,
        attempt_timeout: float = DEFAULT_ATTEMPT_TIMEOUT,
        max_deliveries: int = DEFAULT_MAX_DELIVERIES,
        http_policy: HttpPolicy | None = None,
    ) -> None:
        self.queue = queue
        self.report_data = report_data
        self.spool = spool
        self.local_root = local_root
        self.backoff = backoff or Backoff()
        self.delivery_deadline = delivery_deadline
        self.poll_interval = poll_interval
        self.rng = rng or random.Random()
        self.build_artifact = build_artifact
        """Writes an order's encrypted artifact into the spool; replaceable, so that a test can stand in a slow or
        failing generation."""
        self.delivery_target = delivery_target
        """The target an order's storage names; replaceable, so that a test can stand in a target that fails."""
        self.http_policy = http_policy or HttpPolicy()
        """Where http deliveries may go; the order desk adds the service's own address once it knows it."""
        self.attempt_timeout = attempt_timeout
        self._slots = asyncio.Semaphore(max_deliveries)
        self._deliveries: dict[str, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Look at the queue now (call after committing a new order)."""
        self._wake.set()

    async def start(self) -> None:
        self.spool.mkdir(parents=True, exist_ok=True)
        for leftover in self.spool.glob("*.part"):  # a generation cut short by a stop: it runs again
            leftover.unlink(missing_ok=True)
        self._task = asyncio.create_task(self._run(), name="eris-reports")

    async def stop(self) -> None:
        task, self._task = self._task, None
        for running in [task, *self._deliveries.values()]:
            if running is not None:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
        self._deliveries.clear()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.round()
            except Exception:  # a broken round must not end report work for good
                log.exception("report round failed")
            next_at = self.queue.next_event_at()
            wait = self.poll_interval
            if next_at is not None:
                wait = max(0.0, min(wait, next_at - self.queue.clock()))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()

    async def round(self) -> None:
        """Generate what is due, then start the delivery of what is due, each order in a task of its own."""
        for order in self.queue.due_for_generation():
            await self._generate(order)
        for order in self.queue.due_for_delivery():
            if order.execution_id in self._deliveries:
                continue
            # not due again while this attempt may run (waiting for a slot included)
            self.queue.lease(order.execution_id, self.queue.clock() + 2 * self.attempt_timeout)
            delivery = asyncio.create_task(self._deliver_in_turn(order), name=f"eris-deliver-{order.execution_id}")
            self._deliveries[order.execution_id] = delivery
            delivery.add_done_callback(lambda _, key=order.execution_id: self._delivered(key))

    def _delivered(self, execution_id: str) -> None:
        self._deliveries.pop(execution_id, None)
        self.wake()  # its retry time was set: the next wait is computed again

    async def _deliver_in_turn(self, order: OrderRow) -> None:
        async with self._slots:
            try:
                await self._deliver(order)
            except Exception:  # one broken delivery must not stop the others
                log.exception("report %s delivery broke", order.execution_id)

    async def _generate(self, order: OrderRow) -> None:
        assert order.session_key is not None
        request = ReportRequest(
            report_id=order.report_id,
            format=order.format,
            year=int(order.parameters["Year"]),
            month=int(order.parameters["Month"]),
        )
        artifact = self.spool / f"{order.execution_id}.artifact"
        try:
            data = self.report_data(order)
            figures = await asyncio.to_thread(
                self.build_artifact, artifact, request, data, order.session_key, compression=order.compression
            )
        except Exception as error:
            log.exception("report %s could not be generated", order.execution_id)
            self.queue.mark_failed(order.execution_id, f"generation failed: {type(error).__name__}: {error}")
            return
        self.queue.mark_generated(order.execution_id, str(artifact), figures.rows)
        log.info("report %s generated: %d rows, %d bytes", order.execution_id, figures.rows, figures.artifact_bytes)

    async def _deliver(self, order: OrderRow) -> None:
        assert order.artifact is not None
        artifact = Path(order.artifact)
        try:
            target = self.delivery_target(
                order.storage_type, order.connection_string, local_root=self.local_root, http_policy=self.http_policy
            )
            try:
                async with asyncio.timeout(self.attempt_timeout):
                    await target.deliver(artifact, execution_id=order.execution_id, file_name=order.file_name)
            except TimeoutError:
                raise DeliveryFailed(f"no confirmation within {self.attempt_timeout:g} s") from None
        except (DeliveryFailed, StorageRefused) as failure:
            retryable = getattr(failure, "retryable", False)
            deadline = (order.generated_at or order.created_at) + self.delivery_deadline
            next_at = self.queue.clock() + self.backoff.delay(order.attempts + 1, self.rng)
            if retryable and next_at <= deadline:
                log.info(
                    "report %s delivery failed, retried in %.1f s: %s",
                    order.execution_id,
                    next_at - self.queue.clock(),
                    failure,
                )
                self.queue.mark_retry(order.execution_id, str(failure), next_at)
                return
            log.error("report %s given up: %s", order.execution_id, failure)
            self.queue.mark_failed(order.execution_id, f"delivery failed: {failure}")
        else:
            self.queue.mark_delivered(order.execution_id)
            log.info("report %s delivered to %s", order.execution_id, order.storage_type)
        artifact.unlink(missing_ok=True)


def report_worker_context(key: web.AppKey[ReportWorker]) -> Callable[[web.Application], AsyncIterator[None]]:
    """A `cleanup_ctx` entry running the worker stored under `key`; append it after the store's entry."""

    async def run_reports(app: web.Application) -> AsyncIterator[None]:
        worker = app[key]
        await worker.start()
        try:
            yield
        finally:
            await worker.stop()

    return run_reports
