"""The gateway of `eris serve`: Bearer tokens that let a request past authentication, and the rate limit."""

from __future__ import annotations

import time

from serve_fixtures import ALL, assert_envelope, assert_problem, contractor_body, running, seeded_settings
from serve_writes_fixtures import PARTIES

from reference_impl.app import APPLICATION_KEYS
from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, mint_token

# -- authentication ------------------------------------------------------------------------------


def test_post_reports_with_a_valid_token_gets_past_authentication() -> None:
    with running() as server:
        token = mint_token(server.app[APPLICATION_KEYS].private_key, subject="integrator", rights=[REPORT_RIGHT])
        response = server.client.post("/v1/reports", json={}, headers={"Authorization": f"Bearer {token}"})
        # past authentication, an empty order is refused for its missing reportId (test_serve_report_statuses.py)
        assert "report type not found" in assert_problem(response, 404)["detail"]


def test_a_token_on_every_endpoint() -> None:
    with running(seeded_settings(token_on_every_endpoint=True)) as server:
        keys = server.app[APPLICATION_KEYS]
        response = server.client.get("/v1/parties")
        assert_problem(response, 401)
        assert response.headers["www-authenticate"].startswith("Bearer")
        good = mint_token(keys.private_key, subject="integrator", rights=[], key_id=keys.key_id)
        assert_envelope(server.client.get("/v1/parties", headers={"Authorization": f"Bearer {good}"}), "Party")
        without_kid = mint_token(keys.private_key, subject="integrator", rights=[REPORT_RIGHT])
        assert_envelope(
            server.client.get("/v1/locations", headers={"Authorization": f"Bearer {without_kid}"}), "Location"
        )
        other = ApplicationKeys.generate()
        for forged in (
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT]),
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=keys.key_id),
            mint_token(other.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=other.key_id),
            mint_token(keys.private_key, subject="late", rights=[], lifetime_seconds=60, now=time.time() - 3600),
        ):
            assert_problem(server.client.get("/v1/parties", headers={"Authorization": f"Bearer {forged}"}), 401)
        create = server.client.post("/v1/parties", json=contractor_body())
        assert_problem(create, 401)
        listed = server.client.get("/v1/parties", params=ALL, headers={"Authorization": f"Bearer {good}"})
        assert len(listed.json()["items"]) == PARTIES


# -- rate limit ------------------------------------------------------------------------------


def test_the_fourth_quick_request_over_a_burst_of_three_is_a_429() -> None:
    with running(seeded_settings(rate_per_second=1, rate_burst=3)) as server:
        statuses = []
        for _ in range(4):
            response = server.client.get("/v1/capabilities")
            statuses.append(response.status_code)
        assert statuses == [200, 200, 200, 429]
        assert_problem(response, 429)
        retry_after = response.headers["retry-after"]
        assert retry_after.isdigit() and int(retry_after) >= 1
