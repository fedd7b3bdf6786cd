"""Report delivery that fails or waits: retries, a give-up deadline, a restart before runAt, a silent receiver."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from serve_fixtures import running, seeded_settings
from serve_reports_fixtures import FAST_RETRIES, accepted, open_independently, order, order_state, post, wait_for_state

from reference_impl.report_orders import REPORTS
from reports.delivery import EXECUTION_ID_HEADER
from reports.receiver import Receiver


def test_a_receiver_answering_500_gets_the_artifact_when_it_recovers(tmp_path, integrator_key):
    with running(seeded_settings(report_backoff=FAST_RETRIES)) as server, Receiver(tmp_path) as receiver:
        receiver.fail_next(2, status=500)
        execution_id, sealed = accepted(post(server, order(integrator_key, receiver.delivery_url("flaky"))))
        delivery = receiver.wait_for_delivery("flaky", timeout=30)
        assert [e.status for e in receiver.exchanges()] == [500, 500, 200]
        open_independently(integrator_key, sealed, delivery.path.read_bytes())
        row = wait_for_state(server, execution_id, "delivered")
        assert row.attempts == 3 and row.artifact is None


def test_a_receiver_that_is_down_gets_the_artifact_once_it_is_up(tmp_path, integrator_key):
    with Receiver(tmp_path / "first") as probe:
        port = int(probe.url.rsplit(":", 1)[1])
    url = f"http://127.0.0.1:{port}/reports/late"
    with running(seeded_settings(report_backoff=FAST_RETRIES)) as server:
        execution_id, sealed = accepted(post(server, order(integrator_key, url)))
        time.sleep(1.0)
        row = order_state(server, execution_id)
        assert row.state == "generated" and row.attempts >= 2 and "127.0.0.1" in row.last_error
        with Receiver(tmp_path / "second", port=port) as receiver:
            delivery = receiver.wait_for_delivery("late", timeout=30)
            open_independently(integrator_key, sealed, delivery.path.read_bytes())


def test_an_undelivered_order_is_given_up_after_the_deadline(integrator_key):
    settings = seeded_settings(report_backoff=FAST_RETRIES, report_delivery_deadline=0.5)
    with running(settings) as server:
        execution_id, _ = accepted(post(server, order(integrator_key, "http://127.0.0.1:9/nobody")))
        row = wait_for_state(server, execution_id, "failed")
        assert row.last_error.startswith("delivery failed") and row.artifact is None and row.session_key is None
        assert list(Path(server.app[REPORTS].worker.spool).iterdir()) == []


def test_an_order_accepted_before_a_restart_is_delivered_after_it(tmp_path, integrator_key):
    database = str(tmp_path / "eris.db")
    with Receiver(tmp_path / "received") as receiver:
        run_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        body = order(integrator_key, receiver.delivery_url("restart"), runAt=run_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        with running(seeded_settings(db=database)) as before:
            execution_id, sealed = accepted(post(before, body))
        assert receiver.deliveries() == []
        with running(seeded_settings(db=database)) as after:
            delivery = receiver.wait_for_delivery("restart", timeout=30)
            assert delivery.headers[EXECUTION_ID_HEADER.lower()] == execution_id
            assert delivery.received_at >= run_at.timestamp()
            open_independently(integrator_key, sealed, delivery.path.read_bytes())
            assert wait_for_state(after, execution_id, "delivered").session_key is None


def test_a_receiver_that_never_answers_delays_no_other_order(tmp_path, integrator_key):
    """Each order is delivered on its own: one receiver that accepts the connection and then says nothing holds its
    own order (until the attempt's time limit), not the order to a receiver that answers."""
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: held.append(silent.accept()[0]), daemon=True)
    accepting.start()
    settings = seeded_settings(report_backoff=FAST_RETRIES, report_attempt_timeout=60)
    try:
        with running(settings) as server, Receiver(tmp_path) as receiver:
            stuck_url = f"http://127.0.0.1:{silent.getsockname()[1]}/reports/stuck"
            stuck, _ = accepted(post(server, order(integrator_key, stuck_url)))
            accepting.join(timeout=30)
            assert held, "the silent receiver was never contacted"
            started = time.monotonic()
            accepted(post(server, order(integrator_key, receiver.delivery_url("prompt"))))
            receiver.wait_for_delivery("prompt", timeout=30)
            assert time.monotonic() - started < 15
            assert order_state(server, stuck).state == "generated"  # still waiting on its silent receiver
    finally:
        for connection in held:
            connection.close()
        silent.close()
