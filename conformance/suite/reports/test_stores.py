"""Conformance of report delivery into the stores a target declares besides http (`[features] storage`): blob,
smb, local. "generation finished, storage.type is an object store: encrypted artifact written into the
integrator's storage; the integrator downloads it."

The suite provides each store (starts Azurite or Samba, or reaches the one `[storage.<type>]` names), orders a
report into a fresh folder of it, downloads what appears there and opens it by the contract's steps, as for http.
What the contract leaves open never fails: the content of connectionString (the description's form, eris' own by
default), the artifact's name (any file that appears counts), other files beside it. A type the target does not
declare is not applicable: its requirement is neither failed nor missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag

from conformance.client.redaction import redacted_connection_strings
from conformance.configuration.target import Target
from conformance.generation.key_pairs import KeyPairs
from conformance.harness.plugin import Api, Findings, not_applicable, not_exercised
from conformance.stores.places import PlaceSource
from conformance.suite.support.orders import REPORTS, answered, order_body
from conformance.suite.support.reports import (
    decode_base64,
    explain_artifact,
    open_artifact,
    open_session_key,
    read_report,
)
from reports.keys import public_key_pem

POLL_SECONDS = 0.25
FIRST_POLL_SECONDS = 0.02
"""A delivery into a store takes a fraction of a second: the store is looked at again soon at first, then every
POLL_SECONDS (a 0.25 s pause from the start added a pause's worth to every test)."""


@pytest.mark.requirement("ERIS-REPORT-020", "ERIS-CRYPT-004", "ERIS-REPORT-001")
def test_an_order_into_blob_storage_is_written_into_the_container(order_into_store: Callable[[str, str], None]) -> None:
    order_into_store("blob", "ERIS-REPORT-020")


@pytest.mark.requirement("ERIS-REPORT-021", "ERIS-CRYPT-004", "ERIS-REPORT-001")
def test_an_order_into_smb_storage_is_written_into_the_share(order_into_store: Callable[[str, str], None]) -> None:
    order_into_store("smb", "ERIS-REPORT-021")


@pytest.mark.requirement("ERIS-REPORT-022", "ERIS-CRYPT-004", "ERIS-REPORT-001")
def test_an_order_into_local_storage_is_written_into_the_folder(order_into_store: Callable[[str, str], None]) -> None:
    order_into_store("local", "ERIS-REPORT-022")


@pytest.fixture
def order_into_store(
    target: Target,
    stores: PlaceSource,
    api: Api,
    report_token: str,
    company_tax_no: str,
    period: tuple[str, str],
    findings: Findings,
    key_pairs: KeyPairs,
) -> Any:
    def order_into(storage_type: str, requirement: str) -> None:
        """An order (parquet, no compression, runAt now, a fresh RSA key) whose storage is a fresh folder of the store
        is accepted with 202, and within the delivery timeout a file appears in that folder which opens with the
        session key as ciphertext then tag, into a parquet file with rows."""
        from conformance.stores import StoreUnavailable
        from conformance.stores.places import StoreSettingsError

        if storage_type not in target.storage:
            not_applicable(f"the target description does not declare {storage_type} in [features] storage")
        try:
            place = stores.place(storage_type)
        except (StoreUnavailable, StoreSettingsError) as missing:
            not_exercised(
                f"the suite cannot provide the {storage_type} store the target declares: {missing}",
                exercise=f"a {storage_type} store the suite can start or reach: its server installed where eris "
                f"runs, or [storage.{storage_type}] in the target description",
            )
        key = key_pairs.take()  # a new key pair for each order (the contract's key hygiene)
        ordered_at = time.time()
        body = order_body(
            public_key_pem(key),
            place.connection_string,
            company_tax_no,
            period,
            run_at=datetime.now(UTC),
            storage_type=storage_type,
        )
        response = api.post(REPORTS, json=body, token=report_token)
        if response.status_code != 202:
            findings.add(
                requirement,
                f"the target declares {storage_type} storage, but an order into {place.where} was answered "
                f"{answered(response)}",
            )
            findings.check()
        try:
            session = open_session_key(key, decode_base64(response.json().get("encryptedSessionKey")))
        except (ValueError, AttributeError) as error:
            pytest.skip(f"cannot check: the session key of the 202 does not open ({error}); the http orders report it")
        deadline = ordered_at + target.delivery_timeout
        found: dict[str, bytes] = {}
        pause = FIRST_POLL_SECONDS
        while True:
            found = _files(place)
            opened = _first_that_opens(session, found)
            if opened is not None or time.time() > deadline:
                break
            time.sleep(pause)
            pause = min(POLL_SECONDS, pause * 2)
        if opened is None:
            if not found:
                findings.fail(
                    requirement,
                    f"nothing was written into {place.where} within {target.delivery_timeout:g} s of runAt "
                    f"(storage.connectionString {_without_secrets(place.connection_string)!r})",
                )
            name, artifact = max(found.items(), key=lambda item: len(item[1]))
            findings.fail(
                "ERIS-CRYPT-004",
                f"{place.where}{name} ({len(artifact)} bytes) is not the encrypted artifact: "
                f"{explain_artifact(session, artifact)}",
            )
        name, plaintext = opened
        try:
            report = read_report(plaintext, "parquet")
        except ValueError as error:
            findings.add("ERIS-REPORT-001", f"{place.where}{name} decrypts, but not into a parquet file: {error}")
        else:
            if report.rows <= 0:
                findings.add(
                    "ERIS-REPORT-001", f"{place.where}{name} holds a report without rows ({report.description})"
                )
        findings.check()

    return order_into


def _files(place: Any) -> dict[str, bytes]:
    try:
        return place.files()
    except Exception:  # a store read that fails now (a folder being made) is tried again at the next poll
        return {}


def _first_that_opens(session: bytes, found: dict[str, bytes]) -> tuple[str, bytes] | None:
    for name, data in sorted(found.items()):
        try:
            return name, open_artifact(session, data)
        except (InvalidTag, ValueError):
            continue  # another file, or the artifact not yet whole
    return None


def _without_secrets(connection_string: str) -> str:
    """The connectionString as a report may show it: key and password values replaced."""
    return redacted_connection_strings(connection_string.encode()).decode()
