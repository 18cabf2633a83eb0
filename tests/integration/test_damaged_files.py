"""Damaged log and base files: errors that name the file (issue 15, items 10 and 11).

* A log block whose framing is intact but whose content does not decode fails the read (as in
  Apache Hudi and the Rust reader) with an error naming the log file, the block's offset and
  its instant; a torn block (framing broken) is skipped with a warning naming file and offset
  (``test_mor_failures.py``).
* A compaction over such a block fails with that error and stays pending; once the file is
  repaired the next compaction resumes it.
* With Spark's ``spark.sql.files.ignoreCorruptFiles`` a read skips such a block knowingly.
* A damaged base file met inside a Spark task reaches the caller as a ``HudiFileFormatError``
  naming the file, not as a Py4J error.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from table_helpers import rows_of, rust_table

import hudi_sql
from hudi_sql.errors import HudiFileFormatError
from hudi_sql.log import read_raw_blocks
from hudi_sql.log.scanner import scan_file_slice_logs
from hudi_sql.model.file_names import LogFileName
from hudi_sql.model.instant import Action, State
from hudi_sql.spark.task_errors import translate_task_error
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
MOR = {"hoodie.table.name": "damaged", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
       "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "p",
       "hoodie.datasource.write.precombine.field": "ts", "hoodie.parquet.small.file.limit": "0"}


def _write(spark: Any, path: str, rows: list[tuple[Any, ...]], operation: str, **extra: str) -> str:
    result = hudi_sql.write(spark.createDataFrame(rows, SCHEMA), path,
                            {**MOR, "hoodie.datasource.write.operation": operation, **extra})
    assert result.instant_time is not None
    return result.instant_time


@pytest.fixture(scope="module")
def mor_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """One file group (ids 1-4) and one log file holding the update of instant *update* (ids 1, 2)."""
    path = str(tmp_path_factory.mktemp("damaged") / "table")
    _write(spark, path, [(i, f"n{i}", 10, "a") for i in range(1, 5)], "insert")
    update = _write(spark, path, [(i, f"u{i}", 20, "a") for i in (1, 2)], "upsert")
    return path, update


def _log_file(path: str) -> Path:
    (log,) = [p for p in (Path(path) / "a").iterdir() if LogFileName.try_parse(p.name)]
    return log


def _damage_record_count(log: Path) -> int:
    """Raise the first data block's record count by one (framing intact); its offset."""
    data = bytearray(log.read_bytes())
    raw = next(read_raw_blocks(bytes(data)))
    content_at = bytes(data).find(raw.content)
    (count,) = struct.unpack_from(">i", data, content_at + 4)
    struct.pack_into(">i", data, content_at + 4, count + 1)
    log.write_bytes(bytes(data))
    return raw.offset


def _files(path: str) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in Path(path).rglob("*")
            if p.is_file() and ".hoodie/" not in str(p.relative_to(path)) and ".crc" not in p.name}


def test_scan_log_block_damaged_inside_framing_error_names_file_offset_instant(
        mor_table: tuple[str, str], tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    log = _log_file(path)
    offset = _damage_record_count(log)
    meta = TableMetaClient.load(path)

    with pytest.raises(HudiFileFormatError) as caught:
        scan_file_slice_logs([(log.name, str(log))], completed_instants=meta.timeline.completed_writes().times())
    message = str(caught.value)
    assert str(log) in message and f"offset {offset}" in message and f"instant {mor_table[1]}" in message


def test_compaction_over_damaged_log_block_names_it_stays_pending_and_resumes_after_repair(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    expected = rows_of(rust_table(path))
    log = _log_file(path)
    intact = log.read_bytes()
    offset = _damage_record_count(log)

    with pytest.raises(HudiFileFormatError) as caught:
        hudi_sql.compact(spark, path)
    message = str(caught.value)
    assert str(log) in message and f"offset {offset}" in message and f"instant {mor_table[1]}" in message
    meta = TableMetaClient.load(path)
    (pending,) = meta.timeline.pending_compactions().instants
    assert pending.state is State.INFLIGHT
    assert meta.timeline.find(pending.instant_time, Action.COMMIT, State.COMPLETED) is None

    log.write_bytes(intact)  # repaired (restored from a copy)
    assert hudi_sql.compact(spark, path, schedule=False) == pending.instant_time

    meta = TableMetaClient.load(path)
    assert not meta.timeline.pending().instants
    assert meta.timeline.find(pending.instant_time, Action.COMMIT, State.COMPLETED) is not None
    ours = hudi_sql.read(spark, path).toArrow()
    assert rows_of(ours, ["_hoodie_record_key", "name", "ts"]) == rows_of(rust_table(path), ["_hoodie_record_key",
                                                                                              "name", "ts"])
    assert [r["name"] for r in rows_of(ours, ["_hoodie_record_key", "name"])] == ["u1", "u2", "n3", "n4"]
    assert len(expected) == 4


def _damage_base_file(path: str) -> Path:
    (base,) = (Path(path) / "a").glob("*.parquet")
    data = base.read_bytes()
    base.write_bytes(data[:100] + b"X" * (len(data) - 100))
    return base


def test_write_over_damaged_base_file_raises_file_format_error_naming_it(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    base = _damage_base_file(path)
    completed = TableMetaClient.load(path).timeline.completed_writes().times()
    before = _files(path)

    with pytest.raises(HudiFileFormatError, match=base.name):
        _write(spark, path, [(3, "x3", 30, "a")], "upsert", **{"hoodie.datasource.write.table.type": "MERGE_ON_READ"})

    meta = TableMetaClient.load(path)
    assert meta.timeline.completed_writes().times() == completed
    assert _files(path) == before


def test_read_of_damaged_base_file_translates_to_file_format_error_naming_it(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    """Reads are lazy DataFrames whose actions run in the caller's code: ``translate_task_error``
    turns what the action raises (a Python task's pyarrow error for a merged slice, Spark's
    FAILED_READ_FILE for a plain base file) into the error naming the file."""
    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    base = _damage_base_file(path)

    for options in ({}, {"hoodie.datasource.query.type": "read_optimized"}):
        with pytest.raises(Exception) as caught:
            hudi_sql.read(spark, path, options).collect()
        assert not isinstance(caught.value, HudiFileFormatError)
        translated = translate_task_error(caught.value)
        assert isinstance(translated, HudiFileFormatError) and base.name in str(translated), options


def test_read_with_ignore_corrupt_files_skips_undecodable_log_block_knowingly(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    """Spark's ``spark.sql.files.ignoreCorruptFiles`` is how a user reads past damage on
    purpose: the block that does not decode is left out (the update it held is not applied),
    the rest of the slice is read; without it the read fails naming the file."""
    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    log = _log_file(path)
    _damage_record_count(log)
    files = _files(path)

    with pytest.raises(Exception) as caught:
        hudi_sql.read(spark, path).collect()
    assert str(log) in str(translate_task_error(caught.value))

    spark.conf.set("spark.sql.files.ignoreCorruptFiles", "true")
    try:
        rows = hudi_sql.read(spark, path).select("id", "name").collect()
    finally:
        spark.conf.unset("spark.sql.files.ignoreCorruptFiles")
    assert sorted(tuple(r) for r in rows) == [(1, "n1"), (2, "n2"), (3, "n3"), (4, "n4")]
    assert _files(path) == files  # a read repairs nothing and removes nothing


def test_data_source_read_option_ignore_corrupt_files_skips_undecodable_log_block(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    """Plain Spark sessions read through ``pyspark_hudi``, which sees read options only: Spark's
    per-read ``ignoreCorruptFiles`` does it there (the data source's reader, driven directly)."""
    from hudi_sql.engine.datasource import HudiDataSource

    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    _damage_record_count(_log_file(path))

    def read(options: dict[str, str]) -> list[tuple[Any, ...]]:
        source = HudiDataSource({"path": path, **options})
        reader = source.reader(source.schema())
        rows = [row for partition in reader.partitions() for batch in reader.read(partition)
                for row in batch.to_pylist()]
        return sorted((r["id"], r["name"]) for r in rows)

    with pytest.raises(HudiFileFormatError, match="does not decode"):
        read({})
    assert read({"ignoreCorruptFiles": "true"}) == [(1, "n1"), (2, "n2"), (3, "n3"), (4, "n4")]


def test_shell_query_over_damaged_base_file_prints_one_error_naming_it(
        spark: Any, mor_table: tuple[str, str], tmp_path: Path) -> None:
    """The shell collects a query's rows itself, so it names the damaged file (no Py4J trace)."""
    import io

    from hudi_sql.apps.shell import main as shell

    path = str(tmp_path / "table")
    shutil.copytree(mor_table[0], path)
    base = _damage_base_file(path)
    out, err = io.StringIO(), io.StringIO()
    status = shell(["-e", f"SELECT id, name FROM hudi.`{path}`;"], spark=spark, stdout=out, stderr=err)
    assert status == 1 and out.getvalue() == ""
    message = err.getvalue()
    assert message.startswith(f"Error: Data file {base} does not read"), message
    assert "Traceback" not in message and "Py4J" not in message and "\tat " not in message
