"""Hadoop's ``.crc`` files beside files Apache Hudi wrote: never left stale by our rewrites."""

from __future__ import annotations

from pathlib import Path

from hudi_sql.storage.fs import Storage


def _with_checksum(tmp_path: Path) -> tuple[Path, Path]:
    target = tmp_path / "hoodie.properties"
    target.write_text("hoodie.table.name=t\n")
    crc = tmp_path / ".hoodie.properties.crc"
    crc.write_bytes(b"crc\x00\x00\x02\x00checksum of the old content")
    return target, crc


def test_storage_overwrite_drops_the_stale_hadoop_checksum(tmp_path: Path) -> None:
    target, crc = _with_checksum(tmp_path)
    Storage().write_bytes(str(target), b"hoodie.table.name=t\nhoodie.table.metadata.partitions=\n")
    assert target.read_bytes().endswith(b"partitions=\n")
    assert not crc.exists()


def test_storage_delete_drops_the_hadoop_checksum_too(tmp_path: Path) -> None:
    target, crc = _with_checksum(tmp_path)
    assert Storage().delete(str(target))
    assert not target.exists() and not crc.exists()


def test_storage_create_if_absent_keeps_other_checksums(tmp_path: Path) -> None:
    _, crc = _with_checksum(tmp_path)
    Storage().write_bytes(str(tmp_path / "20240101000000000.commit"), b"{}", overwrite=False)
    assert crc.exists()
