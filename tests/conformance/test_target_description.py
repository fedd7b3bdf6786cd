"""The target description's [data] table: test data the vendor names, checked when the description is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.configuration.target import DATA_ENTRIES, TargetError, load_target


def _description(tmp_path: Path, data: str) -> Path:
    path = tmp_path / "target.toml"
    path.write_text(f'[target]\nbase_url = "http://127.0.0.1:8080"\n[data]\n{data}\n', encoding="utf-8")
    return path


def test_a_data_entry_names_an_identifier_the_suite_reads_as_system_and_value(tmp_path: Path) -> None:
    target = load_target(_description(tmp_path, 'warehouse_document = "urn:oid:1.2.616.1.113769.4.7.6|WZ/1|a"'))
    assert target.named_identifier("warehouse_document") == ("urn:oid:1.2.616.1.113769.4.7.6", "WZ/1|a")
    assert target.named_identifier("fixed_asset_document_without_content") is None


@pytest.mark.parametrize("value", ["WZ-1", "|WZ-1", "urn:x|"])
def test_a_data_entry_that_is_no_system_value_pair_is_refused_by_name(tmp_path: Path, value: str) -> None:
    with pytest.raises(TargetError) as refused:
        load_target(_description(tmp_path, f'warehouse_document = "{value}"'))
    assert f"[data] warehouse_document = {value!r} is not an identifier system|value" in str(refused.value)


def test_an_unknown_data_entry_is_refused_with_the_known_ones_named(tmp_path: Path) -> None:
    with pytest.raises(TargetError) as refused:
        load_target(_description(tmp_path, 'warehouse_doc = "urn:x|1"'))
    assert "['warehouse_doc']" in str(refused.value)
    assert all(entry in str(refused.value) for entry in DATA_ENTRIES)
