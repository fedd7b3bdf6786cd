"""Robustness (ERIS-ROBUST-001, a SHOULD of eris: the contract does not say how malformed input is answered):
malformed JSON bodies and oversized query strings are refused with a 4xx, never a 5xx, and the target still reads
afterwards. A failure here never makes a target non-conformant; it is reported for the vendor to see."""

from __future__ import annotations

from functools import partial

import pytest

from conformance.harness.plugin import Api
from conformance.suite.support.hostile import HOSTILE_BODIES, HOSTILE_QUERIES, WRITES

# PATCH names what it changes: parameters of the right form, so that the body is what the target reads first
PATCH_PARAMS = {"identifier": "urn:eris:robustness|1", "owner": "urn:eris:robustness|1"}


@pytest.mark.requirement("ERIS-ROBUST-001")
@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
def test_malformed_json_bodies_are_refused_not_a_server_error(api: Api, method: str, path: str) -> None:
    def send(text: str) -> int:
        return api.request(
            method,
            path,
            content=text.encode("utf-8", "surrogatepass"),
            headers={"Content-Type": "application/json"},
            params=PATCH_PARAMS if method == "PATCH" else None,
        ).status_code

    # each body on its own: none depends on another's answer
    statuses = api.concurrently([partial(send, text) for text, _ in HOSTILE_BODIES.values()])
    answered = dict(zip(HOSTILE_BODIES, statuses, strict=True))
    server_errors = {name: status for name, status in answered.items() if status >= 500}
    assert not server_errors, f"{method} {path} answered malformed JSON bodies with a server error: {server_errors}"
    after = api.get("/v1/parties", {"count": 1})
    assert after.status_code == 200, f"after the malformed bodies GET /v1/parties answered {after.status_code}"


@pytest.mark.requirement("ERIS-ROBUST-001")
@pytest.mark.parametrize("case", sorted(HOSTILE_QUERIES))
def test_oversized_query_strings_are_refused_not_a_server_error(api: Api, case: str) -> None:
    response = api.request("GET", "/v1/parties", params=HOSTILE_QUERIES[case])
    assert response.status_code < 500, f"GET /v1/parties with {case} answered {response.status_code}"
