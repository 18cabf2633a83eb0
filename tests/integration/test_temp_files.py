"""Temporary files of a write are invisible to other readers (issue 15, item 5).

Every file hudi-sql writes is staged under a temporary name, then renamed into place. While it
is staged, the Rust reader (and Apache Hudi, whose log-file pattern is the same) must not list
it: a temporary named after a log file (``.<log name>.<pid>.tmp``) was listed as a log file
during a MOR write and failed concurrent reads ("Invalid magic").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from table_helpers import rows_of, rust_table

import hudi_sql
from hudi_sql.model.file_names import LogFileName
from hudi_sql.storage import fs
from hudi_sql.storage.fs import Storage

pytestmark = pytest.mark.spark

MOR = {"hoodie.table.name": "temp_files", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
       "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "p",
       "hoodie.datasource.write.precombine.field": "ts", "hoodie.parquet.small.file.limit": "0"}


def _rust_log_files(path: str) -> list[str]:
    from hudi import HudiTableBuilder

    slices = HudiTableBuilder.from_base_uri(path).build().get_file_slices()
    return sorted(name for s in slices for name in s.log_file_names)


def test_write_bytes_log_file_while_staged_rust_reader_lists_only_complete_logs(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "table")
    rows = [(i, f"n{i}", 1, "a") for i in range(5)]
    hudi_sql.write(spark.createDataFrame(rows, "id int, name string, ts long, p string"), path,
                   {**MOR, "hoodie.datasource.write.operation": "insert"})
    hudi_sql.write(spark.createDataFrame([(1, "m1", 2, "a")], "id int, name string, ts long, p string"), path,
                   {**MOR, "hoodie.datasource.write.operation": "upsert"})
    (log,) = [p for p in (Path(path) / "a").iterdir() if LogFileName.try_parse(p.name)]
    expected = rows_of(rust_table(path))
    # The next log version of the slice, written as a task writes one: staged, then renamed.
    name = LogFileName.parse(log.name)
    target = log.parent / LogFileName(name.file_id, name.base_instant, name.version + 1, name.write_token).name
    seen_while_staged: list[tuple[list[str], list[str]]] = []
    real_fsync = os.fsync

    def fsync_then_look(fd: int) -> None:
        real_fsync(fd)
        seen_while_staged.append((sorted(os.listdir(log.parent)), _rust_log_files(path)))

    monkeypatch.setattr(fs.os, "fsync", fsync_then_look)
    Storage().write_bytes(str(target), log.read_bytes(), overwrite=False)
    monkeypatch.undo()

    ((on_disk, listed),) = seen_while_staged
    staged = [n for n in on_disk if n.endswith(fs.TEMP_SUFFIX)]
    assert len(staged) == 1, "the write was observed while its temporary existed"
    assert LogFileName.try_parse(staged[0]) is None
    assert listed == [log.name], "the Rust reader listed the staged file"
    assert not [n for n in os.listdir(log.parent) if n.endswith(fs.TEMP_SUFFIX)]
    assert _rust_log_files(path) == sorted([log.name, target.name])
    assert len(rows_of(rust_table(path))) == len(expected)
