"""The extension point of reference_impl.app: `ServerSettings.extensions` change the application before it starts,
and the write hooks (reference_impl.writes.WRITE_HOOKS) decide what a write stores. The self-test's faults and
variants (conformance/deviations) reach the service through these."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from serve_fixtures import ALL, assert_envelope, contractor_body, running, seeded_settings

from reference_impl.app import ServerSettings, create_app
from reference_impl.writes import WRITE_HOOKS


def test_extensions_change_the_built_application_in_order():
    calls: list[tuple[str, web.Application, ServerSettings]] = []
    settings = seeded_settings(
        extensions=(
            lambda app, settings: calls.append(("first", app, settings)),
            lambda app, settings: calls.append(("second", app, settings)),
        )
    )
    app = create_app(settings)
    assert [(name, built is app, given is settings) for name, built, given in calls] == [
        ("first", True, True),
        ("second", True, True),
    ]
    assert app[WRITE_HOOKS] == []  # hooks an extension appends to


def _storing(change: Any) -> Any:
    def extend(app: web.Application, settings: ServerSettings) -> None:
        app[WRITE_HOOKS].append(change)

    return extend


def _assigned(party: dict[str, Any]) -> str:
    identifier = next(i for i in party["identifier"] if i.get("value"))
    return f"{identifier['system']}|{identifier['value']}"


def test_a_write_hook_changes_what_a_write_stores_but_not_its_answer():
    hook = _storing(lambda request, body, party: {**party, "comment": f"stored by the hook ({request.method})"})
    with running(seeded_settings(extensions=(hook,))) as server:
        created = server.client.post("/v1/parties", json=contractor_body())
        assert created.status_code == 200, created.text
        assert "comment" not in created.json()
        [stored] = assert_envelope(
            server.client.get("/v1/parties", params={"identifier": _assigned(created.json())}), None
        )
    assert stored["comment"] == "stored by the hook (POST)"


def test_a_write_hook_giving_none_stores_nothing():
    with running(seeded_settings(extensions=(_storing(lambda request, body, party: None),))) as server:
        before = assert_envelope(server.client.get("/v1/parties", params=ALL), None)
        created = server.client.post("/v1/parties", json=contractor_body())
        assert created.status_code == 200, created.text
        assert assert_envelope(server.client.get("/v1/parties", params=ALL), None) == before
