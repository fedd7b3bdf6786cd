"""The building blocks of `eris verify`: redaction, made-up names, the replay's matching, the comparison, and the
one-line errors for a folder that holds no certification."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from conformance.cli import main
from conformance.client.redaction import redacted_headers, redacted_token
from conformance.generation.made_up import made_up_hex, set_names_seed
from conformance.verification.comparison import compare
from conformance.verification.recorded import RecordedExchange, Recording
from conformance.verification.replay import MISSED_STATUS, Replay


def test_a_jwt_keeps_its_claims_and_loses_its_signature() -> None:
    assert redacted_token("aGVhZA.Y2xhaW1z.c2lnbmF0dXJl") == "aGVhZA.Y2xhaW1z.redacted"
    assert redacted_token("opaque-secret") == "redacted"
    assert redacted_headers({"Authorization": "Bearer a.b.c", "Accept": "x"}) == {
        "Authorization": "Bearer a.b.redacted",
        "Accept": "x",
    }


def test_made_up_names_repeat_under_the_same_seed_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "suite/test_a.py::test_one (call)")
    set_names_seed("one")
    first = [made_up_hex(12), made_up_hex(12)]
    set_names_seed("one")
    assert [made_up_hex(12), made_up_hex(12)] == first
    assert first[0] != first[1]
    set_names_seed("two")
    assert made_up_hex(12) != first[0]
    set_names_seed(None)


def test_the_first_difference_is_the_first_requirement_that_differs() -> None:
    recorded = {"summary": {"verdict": "conformant"}, "requirements": [{"id": "A", "status": "passed"}]}
    rederived = {"summary": {"verdict": "non-conformant"}, "requirements": [{"id": "A", "status": "failed"}]}
    comparison = compare(recorded, rederived)
    assert not comparison.matches
    assert comparison.first_difference() == "A is passed in certification.json, failed re-derived"
    assert compare(recorded, recorded).first_difference() is None


def _exchange(number: int, test: str, url: str, body: bytes, status: int, answer: bytes) -> RecordedExchange:
    return RecordedExchange(
        number,
        "outbound",
        test,
        "POST",
        url,
        [],
        body,
        status,
        [("content-type", "application/json")],
        answer,
        1000.0 + number,
        0.01,
    )


def test_the_replay_answers_by_request_not_by_order() -> None:
    target, receiver = "http://127.0.0.1:1111", "http://127.0.0.1:2222"
    recording = Recording(
        [
            _exchange(0, "t1", f"{target}/v1/x", b'{"runAt":"2026-01-01T10:00:00Z","n":1}', 201, b'{"a":1}'),
            _exchange(1, "t2", f"{target}/v1/x", b'{"n":2,"to":"' + receiver.encode() + b'/r"}', 400, b'{"a":2}'),
        ]
    )
    with (
        Replay(
            recording, recorded_target=target, recorded_receiver=receiver, receiver_url="http://127.0.0.1:9"
        ) as replay,
        httpx.Client(base_url=replay.base_url) as client,
    ):
        second = client.post("/v1/x", content=b'{"n":2,"to":"http://127.0.0.1:9/r"}')
        first = client.post("/v1/x", content=b'{"runAt":"2031-05-05T01:02:03Z","n":1}')
        unknown = client.post("/v1/x", content=b'{"n":3}')
    assert (second.status_code, second.json()) == (400, {"a": 2})
    assert (first.status_code, first.json()) == (201, {"a": 1})
    assert unknown.status_code == MISSED_STATUS
    assert replay.misses == ["POST /v1/x"]


@pytest.mark.parametrize("content", [None, "{not json", json.dumps({"format": "x"})])
def test_a_folder_without_a_certification_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    if content is not None:
        (tmp_path / "certification.json").write_text(content)
    assert main(["verify", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("eris: ") and error.count("\n") == 1 and "Traceback" not in error


def test_a_missing_folder_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "absent")]) == 2
    assert "is not a folder of a certification" in capsys.readouterr().err
