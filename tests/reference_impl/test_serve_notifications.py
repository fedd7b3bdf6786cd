"""Notifications `eris serve` pushes to a real receiver after writes and after simulated source-system changes."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from serve_fixtures import (
    EMPLOYER_NIP,
    VOCAB,
    RunningServer,
    assert_problem,
    contractor_body,
    errors_of,
    ns,
    running,
    seed_by_id,
    seeded_settings,
)
from serve_writes_fixtures import (
    DOCREF,
    EMPLOYER_OWNER,
    contractor_body_without_profile,
    hr_inbox_body,
    identifier_values_in,
)

from reference_impl.app import ServerSettings, create_app
from reference_impl.seed import seed_resources


class Receiver:
    """A subscriber: an aiohttp server on a free port of 127.0.0.1 that records every POST."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        app = web.Application()
        app.router.add_post("/hook", self._receive)
        self.server = RunningServer(app=app)
        self.url = f"{self.server.url}/hook"

    async def _receive(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self._arrived:
            self.received.append(body)
            self._arrived.notify_all()
        return web.Response(status=204)

    def wait_for(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    subscriber = Receiver()
    try:
        yield subscriber
    finally:
        subscriber.server.stop()


def _check_notification(notification: dict[str, Any], operation: str, identifier: dict[str, str]) -> None:
    assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}, notification
    assert errors_of(notification, "Notification") == []
    assert notification["resourceType"] == "Notification"
    assert [c["code"] for c in notification["operation"]["coding"]] == [operation]
    assert notification["operation"]["coding"][0]["system"] == f"{VOCAB}/notification-operation"
    assert notification["reference"]["type"] == "Party"
    assert notification["reference"]["identifier"] == identifier
    assert "reference" not in notification["reference"]


def test_a_post_and_a_patch_of_a_party_each_push_a_notification(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        created = server.client.post("/v1/parties", json=contractor_body("Powiadomiona S.A.", owner=EMPLOYER_OWNER))
        assert created.status_code == 200, created.text
        [value] = identifier_values_in(created.json(), ns("contractor"))
        identifier = {"system": ns("contractor"), "value": value}
        [first] = receiver.wait_for(1)
        _check_notification(first, "created", identifier)
        updated = server.client.patch(
            "/v1/parties",
            params={"identifier": f"{ns('contractor')}|{value}", "owner": EMPLOYER_NIP},
            json=contractor_body("Powiadomiona Sp. z o.o.", owner=EMPLOYER_OWNER),
        )
        assert updated.status_code == 200, updated.text
        notifications = receiver.wait_for(2)
        assert len(notifications) == 2
        _check_notification(notifications[1], "updated", identifier)
        assert notifications[0]["id"] != notifications[1]["id"]
        assert notifications[0]["date"] <= notifications[1]["date"]


def test_writes_of_documents_push_notifications_too(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        fad = seed_by_id("fixed-asset-document-0001")["identifier"][0]
        patch = {"attachment": [{"attribute": [{"code": "workflow-status", "value": "archived"}]}]}
        response = server.client.patch(
            "/v1/fixed-asset-documents", params={"identifier": f"{fad['system']}|{fad['value']}"}, json=patch
        )
        assert response.status_code == 200, response.text
        assert server.client.post("/v1/document-references", json=hr_inbox_body()).status_code == 200
        notifications = receiver.wait_for(2)
        assert len(notifications) == 2
        for notification in notifications:
            assert set(notification) == {"id", "resourceType", "status", "operation", "date", "reference"}
            assert errors_of(notification, "Notification") == []
        first, second = notifications
        assert first["reference"] == {"type": "FixedAssetDocument", "identifier": fad}
        assert first["operation"]["coding"][0]["code"] == "updated"
        assert second["reference"]["type"] == "DocumentReference"
        assert second["reference"]["identifier"]["system"] == DOCREF
        assert second["operation"]["coding"][0]["code"] == "created"


def test_a_refused_write_pushes_no_notification(receiver: Receiver) -> None:
    with running(seeded_settings(notify_urls=[receiver.url])) as server:
        assert_problem(
            server.client.post("/v1/parties", json=contractor_body_without_profile()), tuple(range(400, 500))
        )
        created = server.client.post("/v1/parties", json=contractor_body("Jedyna S.A."))
        assert created.status_code == 200
        notifications = receiver.wait_for(1)
        time.sleep(0.2)
        assert len(receiver.received) == 1
        assert notifications[0]["operation"]["coding"][0]["code"] == "created"


def test_simulated_source_changes_are_stored_and_notified() -> None:
    received: list[dict] = []

    async def receive(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.Response(status=204)

    async def scenario() -> None:
        receiver = web.Application()
        receiver.router.add_post("/n", receive)
        receiver_server = TestServer(receiver, host="127.0.0.1")
        await receiver_server.start_server()
        settings = ServerSettings(
            seed=seed_resources, notify_urls=[str(receiver_server.make_url("/n"))], source_change_every=0.05
        )
        async with TestClient(TestServer(create_app(settings), host="127.0.0.1")) as client:
            for _ in range(100):
                if received:
                    break
                await asyncio.sleep(0.05)
            answer = await client.get("/v1/parties", params={"identifier": _logical(received[0])})
            changed = (await answer.json())["items"]
        await receiver_server.close()
        assert received[0]["operation"]["coding"][0]["code"] == "updated"
        assert changed[0]["comment"].startswith("changed in the source system")

    asyncio.run(scenario())


def _logical(notification: dict) -> str:
    identifier = notification["reference"]["identifier"]
    return f"{identifier['system']}|{identifier['value']}"
