"""Local delivery never writes outside its root, whatever links are planted in it (reports/delivery.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePosixPath

import pytest

from reports.delivery import DeliveryFailed, LocalTarget

ARTIFACT_BYTES = b"\x01ciphertext and tag" * 100


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    artifact = tmp_path / "artifact.enc"
    artifact.write_bytes(ARTIFACT_BYTES)
    return root, outside, artifact


def _deliver(root: Path, folder: str, artifact: Path, name: str = "exec-1.parquet.enc") -> None:
    target = LocalTarget(root, PurePosixPath(folder))
    asyncio.run(target.deliver(artifact, execution_id="exec-1", file_name=name))


def test_the_artifact_lands_in_its_folder_and_nothing_else_remains(places):
    root, _, artifact = places
    _deliver(root, "finance/2024", artifact)
    assert (root / "finance/2024/exec-1.parquet.enc").read_bytes() == ARTIFACT_BYTES
    assert [p.name for p in (root / "finance/2024").iterdir()] == ["exec-1.parquet.enc"]


def test_a_link_planted_at_the_old_temporary_name_is_never_written_through(places):
    root, outside, artifact = places
    victim = outside / "victim"
    victim.write_bytes(b"precious")
    (root / ".exec-1.parquet.enc.part").symlink_to(victim)  # the name was predictable from the executionId
    _deliver(root, "", artifact)
    assert victim.read_bytes() == b"precious"
    assert (root / "exec-1.parquet.enc").read_bytes() == ARTIFACT_BYTES


def test_a_link_planted_at_the_final_name_is_replaced_not_followed(places):
    root, outside, artifact = places
    victim = outside / "victim"
    victim.write_bytes(b"precious")
    (root / "exec-1.parquet.enc").symlink_to(victim)
    _deliver(root, "", artifact)
    final = root / "exec-1.parquet.enc"
    assert not final.is_symlink() and final.read_bytes() == ARTIFACT_BYTES
    assert victim.read_bytes() == b"precious"


def test_a_folder_replaced_by_a_link_out_fails_for_good_and_writes_nothing_outside(places):
    root, outside, artifact = places
    (root / "finance").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DeliveryFailed) as failed:
        _deliver(root, "finance", artifact)
    assert "symbolic link" in str(failed.value) and not failed.value.retryable
    assert list(outside.iterdir()) == []


def test_a_file_where_a_folder_should_be_fails_for_good(places):
    root, _, artifact = places
    (root / "finance").write_text("not a folder")
    with pytest.raises(DeliveryFailed) as failed:
        _deliver(root, "finance/2024", artifact)
    assert not failed.value.retryable


@pytest.mark.parametrize(
    ("folder", "named"),
    [("finance/" + "x" * 300, "longer than 255 bytes"), ("report.txt/2024", "is a file")],
    ids=["name-too-long", "file-in-the-way"],
)
def test_a_folder_that_can_never_be_written_is_refused_when_the_order_is_placed(places, folder, named):
    from reports.delivery import StorageRefused, delivery_target

    root, _, _ = places
    (root / "report.txt").write_text("a file")
    with pytest.raises(StorageRefused, match=named):
        delivery_target("local", folder, local_root=root)
