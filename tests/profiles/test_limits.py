"""The contract's Limits table lives once, in profiles/limits.json: the accessor reads it, every consumer
takes its value from there, and a changed value changes what the consumer does."""

import dataclasses
import io
import json
import re
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pytest
from aiohttp.test_utils import make_mocked_request
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from project_paths import ROOT

import conformance.cli.reports as cli_reports
import conformance.suite.support.reports as suite_crypto
import reference_impl.reads as reads
import reference_impl.report_queue as report_queue
import reports.crypto as crypto
from conformance.cli import build_parser, main
from conformance.harness.plugin import DEFAULT_COUNT
from profiles import load_contract
from profiles.contract import PROFILES_DIR
from profiles.limits import LIMITS, LIMITS_FILE, Bounds, LimitsError, load_limits
from profiles.validator import Validator
from reports.keys import KEY_BITS
from schemas import SCHEMA_DIR

TABLE = json.loads(LIMITS_FILE.read_text(encoding="utf-8"))["limits"]
REQUIREMENT_IDS = {
    row["id"]
    for row in tomllib.loads((ROOT / "conformance" / "catalogue" / "requirements.toml").read_text())["requirement"]
}


def _pointer(document: object, pointer: str) -> object:
    for token in pointer.lstrip("/").split("/"):
        document = document[token.replace("~1", "/").replace("~0", "~")]  # type: ignore[index]
    return document


def _order(month: str, pem: str) -> dict:
    return {
        "reportId": "cost-calculation",
        "format": "csv",
        "publicKeyPem": pem,
        "runAt": "2026-01-01T00:00:00Z",
        "storage": {"type": "http", "connectionString": "http://127.0.0.1:9/r"},
        "parameters": {"CompanyTaxNo": "5260250274", "Year": "2024", "Month": month},
    }


@pytest.fixture(scope="module")
def pem() -> str:
    """A 2048-bit key: below the recommended size, quick to make."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return public.decode("ascii")


@pytest.fixture
def profiles_copy(tmp_path: Path) -> Path:
    """A copy of the profile data whose limits.json a test may change."""
    return Path(shutil.copytree(PROFILES_DIR, tmp_path / "profiles", ignore=shutil.ignore_patterns("*.py", "__py*")))


def _change(root: Path, name: str, value: object) -> None:
    path = root / "limits.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["limits"][name]["value"] = value
    path.write_text(json.dumps(data), encoding="utf-8")


# -- the data and its accessor --------------------------------------------------------------------------------


def test_the_accessor_reads_every_row_of_the_file():
    values = {name.replace("-", "_"): row["value"] for name, row in TABLE.items()}
    assert values.pop("month") == {"minimum": LIMITS.month.minimum, "maximum": LIMITS.month.maximum}
    assert values == {name: getattr(LIMITS, name) for name in values}
    assert set(LIMITS.rows) == set(TABLE)


def test_every_row_says_where_it_applies_and_where_the_contract_says_so():
    for name, row in LIMITS.rows.items():
        assert row.applies_to and row.source.startswith("Limits: "), name
        assert row.requirements and set(row.requirements) <= REQUIREMENT_IDS, name


@pytest.mark.parametrize(
    ("name", "copy"), [(n, place) for n, row in LIMITS.rows.items() for place in row.published_in], ids=str
)
def test_a_value_the_schemas_repeat_for_other_tools_is_the_same(name, copy):
    file, pointer = copy.split("#")
    assert _pointer(json.loads((SCHEMA_DIR / file).read_text(encoding="utf-8")), pointer) == LIMITS.rows[name].value


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("count-default", "20", "a whole number"),
        ("compression-default", 0, "true or false"),
        ("month", {"minimum": 12, "maximum": 1}, "minimum first"),
        ("session-key-bytes", 40, "aes-key-bytes + nonce-bytes"),
    ],
)
def test_a_value_of_the_wrong_kind_or_at_odds_with_another_is_refused(profiles_copy, name, value, complaint):
    _change(profiles_copy, name, value)
    with pytest.raises(LimitsError, match=re.escape(complaint)):
        load_limits(profiles_copy / "limits.json")


def test_a_row_missing_or_read_by_nobody_is_refused(profiles_copy):
    path = profiles_copy / "limits.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["limits"]["maximum-count"] = data["limits"].pop("count-default")
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LimitsError, match=r"missing: \['count-default'\]; rows no consumer reads: \['maximum-count'\]"):
        load_limits(path)


def test_bounds_contain_whole_numbers_only_and_read_as_the_contract_writes_them():
    assert 1 in LIMITS.month and 12 in LIMITS.month and 0 not in LIMITS.month and 13 not in LIMITS.month
    assert True not in Bounds(0, 5) and "3" not in Bounds(0, 5)
    assert str(LIMITS.month) == "1 to 12"


# -- the sizes of the report encryption -------------------------------------------------------------------------


def test_the_kit_and_the_suite_encrypt_with_the_sizes_of_the_data():
    for module in (crypto, suite_crypto):
        assert (
            LIMITS.aes_key_bytes,
            LIMITS.nonce_bytes,
            LIMITS.session_key_bytes,
            LIMITS.tag_bytes,
        ) == (module.KEY_BYTES, module.NONCE_BYTES, module.SESSION_KEY_BYTES, module.TAG_BYTES)
    session = crypto.SessionKey.generate()
    assert len(session.to_bytes()) == LIMITS.session_key_bytes and len(session.nonce) == LIMITS.nonce_bytes


def test_an_artifact_is_the_ciphertext_then_a_tag_of_the_size_of_the_data():
    session, sink = crypto.SessionKey.generate(), io.BytesIO()
    with crypto.ArtifactEncryptor(sink, session) as encryptor:
        encryptor.write(b"x" * 100)
    assert len(sink.getvalue()) == 100 + LIMITS.tag_bytes
    assert suite_crypto.open_artifact(session.to_bytes(), sink.getvalue()) == b"x" * 100


# -- count and offset -------------------------------------------------------------------------------------------


def test_list_reads_page_by_the_defaults_of_the_data(monkeypatch):
    request = make_mocked_request("GET", "/v1/parties")
    assert reads.paging(request) == (LIMITS.count_default, LIMITS.offset_default)
    assert LIMITS.count_default == DEFAULT_COUNT
    monkeypatch.setattr(reads, "LIMITS", dataclasses.replace(LIMITS, count_default=7, offset_default=3))
    assert reads.paging(request) == (7, 3)


# -- Month ------------------------------------------------------------------------------------------------------


def test_the_operation_definitions_take_the_month_range_from_the_data():
    for operation in load_contract().operations.values():
        month = next(p for p in operation["parameter"] if p["name"] == "Month")
        assert (month["minimum"], month["maximum"]) == (LIMITS.month.minimum, LIMITS.month.maximum)
        raw = json.loads((PROFILES_DIR / "operations" / f"{operation['id']}.json").read_text(encoding="utf-8"))
        assert not {"minimum", "maximum"} & set(next(p for p in raw["parameter"] if p["name"] == "Month"))


def test_the_validator_checks_month_against_a_changed_range(profiles_copy, pem):
    def out_of_range(contract, month):
        issues = Validator(contract).validate(_order(month, pem), resource_type="ReportOrder")
        return [i.message for i in issues if i.code == "report-parameter-out-of-range"]

    assert out_of_range(load_contract(), "7") == []
    assert out_of_range(load_contract(), "13") == ["parameter Month is 13; it must be from 1 to 12"]
    _change(profiles_copy, "month", {"minimum": 1, "maximum": 6})
    assert out_of_range(load_contract(root=profiles_copy), "7") == ["parameter Month is 7; it must be from 1 to 6"]


def test_an_operation_stating_its_own_bounds_beside_the_limit_is_refused(profiles_copy):
    path = profiles_copy / "operations" / "cost-calculation.json"
    operation = json.loads(path.read_text(encoding="utf-8"))
    next(p for p in operation["parameter"] if p["name"] == "Month")["maximum"] = 12
    path.write_text(json.dumps(operation), encoding="utf-8")
    with pytest.raises(LimitsError, match="must not state its own"):
        load_contract(root=profiles_copy)


def test_eris_report_refuses_month_13_naming_the_range_of_the_data(monkeypatch, capsys):
    arguments = ["report", "--target", "http://127.0.0.1:9", "--company", "5260250274", "--year", "2024"]
    assert main([*arguments, "--month", "13"]) == 2
    assert "--month must be from 1 to 12, not 13" in capsys.readouterr().err
    monkeypatch.setattr(cli_reports, "LIMITS", dataclasses.replace(LIMITS, month=Bounds(1, 6)))
    assert main([*arguments, "--month", "7"]) == 2
    assert "--month must be from 1 to 6, not 7" in capsys.readouterr().err


# -- compression ------------------------------------------------------------------------------------------------


def test_an_order_without_compression_gets_the_default_of_the_data(monkeypatch, pem):
    def queued_compression() -> bool:
        queue = report_queue.ReportQueue(sqlite3.connect(":memory:"), clock=lambda: 0.0)
        queue.add(execution_id="e", order=_order("1", pem), run_at=0.0, session_key=crypto.SessionKey.generate())
        return queue.get("e").compression

    assert queued_compression() is LIMITS.compression_default
    monkeypatch.setattr(report_queue, "LIMITS", dataclasses.replace(LIMITS, compression_default=True))
    assert queued_compression() is True


# -- the recommended RSA key size -------------------------------------------------------------------------------


def test_keygen_and_the_integrator_make_keys_of_the_recommended_size():
    assert LIMITS.recommended_rsa_bits == KEY_BITS
    assert build_parser().parse_args(["keygen"]).bits == LIMITS.recommended_rsa_bits


def test_the_validator_warns_below_the_recommended_size_of_the_data(profiles_copy, pem):
    def warned(contract) -> bool:
        issues = Validator(contract).validate(_order("1", pem), resource_type="ReportOrder")
        return any(i.code == "report-public-key-below-recommended-size" for i in issues)

    assert warned(load_contract())  # 2048 bits < 4096
    _change(profiles_copy, "recommended-rsa-bits", 2048)
    assert not warned(load_contract(root=profiles_copy))
