"""Merge-On-Read failure paths: a failed deltacommit rolled back by the next write, and damaged log files.

Damaged logs are made by editing a copy of a table whose only log file holds two blocks of
one deltacommit: an Avro data block (id 1 updated to ts 20) followed by a delete block (id 3
deleted). A block whose framing fails Hudi's checks (trailer, length, truncation) is skipped
with a warning and the other block still counts, in our reader exactly as in the Rust reader.
"""

from __future__ import annotations

import logging
import shutil
import struct
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from table_helpers import ExpectedTable, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import HudiFileFormatError
from hudi_sql.log import BlockType, CommandBlock, read_log_blocks, read_raw_blocks
from hudi_sql.model.file_names import LogFileName
from hudi_sql.model.payload import Payload
from hudi_sql.read.file_group_reader import read_file_slice
from hudi_sql.read.merge_exec import slice_specs
from hudi_sql.read.plan import plan_read
from hudi_sql.spark.schema import table_struct, to_arrow_schema
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
FLAGGED = SCHEMA + ", _hoodie_is_deleted boolean"
DATA = ("id", "name", "ts", "p")
MOR = {
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.parquet.small.file.limit": "0",
}


def _row(i: int, ts: int, p: str) -> dict[str, Any]:
    return {"id": i, "name": f"n{i}-{ts}", "ts": ts, "p": p}


def _write(spark: Any, path: str, name: str, rows: list[dict[str, Any]], operation: str = "upsert",
           schema: str = SCHEMA) -> hudi_sql.WriteResult:
    df = spark.createDataFrame([tuple(r.values()) for r in rows], schema)
    options = {"hoodie.table.name": name, **MOR, "hoodie.datasource.write.operation": operation}
    return hudi_sql.write(df, path, options)


def _log_files(path: str) -> list[tuple[Path, LogFileName]]:
    found = [(f, LogFileName.try_parse(f.name)) for f in Path(path).rglob("*") if ".hoodie" not in f.parts]
    return sorted(((f, n) for f, n in found if n is not None), key=lambda fn: fn[1])


def _ids_and_ts(table: pa.Table) -> list[tuple[int, int]]:
    return sorted((r["id"], r["ts"]) for r in table.to_pylist())


# -- a failed deltacommit --------------------------------------------------------------------


def _crash_before_commit(*_: Any, **__: Any) -> None:
    raise RuntimeError("simulated crash between the write tasks and the completed instant")


def test_mor_failed_deltacommit_rolled_back_by_next_write_with_command_block(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deltacommit whose tasks wrote their logs, base files and markers but that died before
    ``<t>.deltacommit`` was written is rolled back by the next write."""
    from hudi_sql.commit.transaction import Transaction

    path = str(tmp_path / "table")
    model = ExpectedTable(("id",), "ts")
    first = [_row(i, 10, "a" if i % 2 else "b") for i in range(1, 7)]
    _write(spark, path, "failed", first, "insert")
    model.insert(first)
    second = [_row(1, 20, "a"), _row(2, 20, "b")]
    _write(spark, path, "failed", second)
    model.upsert(second)

    # An update to group a (log version 2) and an insert (a new base file in b), never committed.
    before = {f for f in Path(path).rglob("*") if f.is_file() and ".hoodie" not in f.parts}
    monkeypatch.setattr(Transaction, "complete", _crash_before_commit)
    with pytest.raises(RuntimeError, match="simulated crash"):
        _write(spark, path, "failed", [_row(1, 30, "a"), _row(3, 30, "a"), _row(12, 30, "b")])
    monkeypatch.undo()
    (failed,) = TableMetaClient.load(path).timeline.pending_writes()
    written = {f for f in Path(path).rglob("*") if f.is_file() and ".hoodie" not in f.parts} - before
    failed_base_files = [f for f in written if f.suffix == ".parquet"]
    assert len(failed_base_files) == 1 and len(written) == 2, "the failed write left a base file and a log"
    ours = our_table(spark, path)
    assert rows_of(ours) == rows_of(rust_table(path)), "neither reader may see the failed write"
    assert rows_of(ours, DATA, key="id") == model.sorted_rows("id")

    third = [_row(4, 40, "b")]
    _write(spark, path, "failed", third)
    model.upsert(third)

    assert len(TableMetaClient.load(path).timeline.pending_writes()) == 0
    rollbacks = sorted((Path(path) / ".hoodie").glob("*.rollback"))
    assert len(rollbacks) == 1
    commands = [(n, b) for f, n in _log_files(path) if n.write_token == "1-0-1" for b in read_log_blocks(f)]
    assert len(commands) == 1, "one command block, in the file group the failed write appended to"
    ((name, command),) = commands
    assert isinstance(command, CommandBlock) and command.target_instant_time == failed.instant_time
    assert command.instant_time == rollbacks[0].name.split(".")[0]
    versions = [n.version for _, n in _log_files(path) if n.file_id == name.file_id]
    assert versions == [1, 2, 3] and name.version == 3, "the command block follows the failed log"
    assert not failed_base_files[0].exists(), "the failed write's base file is deleted"

    ours = our_table(spark, path)
    assert rows_of(ours) == rows_of(rust_table(path))
    assert rows_of(ours, DATA, key="id") == model.sorted_rows("id")


def test_mor_deltacommit_whose_completed_file_was_deleted_gets_command_block_on_rollback(
        spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    _write(spark, path, "uncompleted", [_row(i, 10, "a") for i in range(1, 4)], "insert")
    failed = _write(spark, path, "uncompleted", [_row(1, 20, "a")])
    (Path(path) / ".hoodie" / f"{failed.instant_time}.deltacommit").unlink()
    _write(spark, path, "uncompleted", [_row(2, 30, "a")])

    assert len(list((Path(path) / ".hoodie").glob("*.rollback"))) == 1
    commands = [b for f, n in _log_files(path) if n.write_token == "1-0-1" for b in read_log_blocks(f)]
    assert [getattr(c, "target_instant_time", None) for c in commands] == [failed.instant_time]


# -- damaged log files -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_block_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """One file group (ids 1-4, ts 10) whose single log file holds [AVRO_DATA id 1 -> ts 20, DELETE id 3]."""
    path = str(tmp_path_factory.mktemp("two_blocks") / "table")
    _write(spark, path, "damaged", [_row(i, 10, "a") for i in range(1, 5)], "insert")
    _write(spark, path, "damaged", [dict(_row(1, 20, "a"), _hoodie_is_deleted=False),
                                    dict(_row(3, 20, "a"), _hoodie_is_deleted=True)], schema=FLAGGED)
    ((log, _),) = _log_files(path)
    assert [b.block_type for b in read_raw_blocks(log)] == [BlockType.AVRO_DATA, BlockType.DELETE]
    return path


def _block_spans(data: bytes) -> list[tuple[int, int]]:
    """(offset of MAGIC, block length L) of each block; the trailer is the last 8 of the L bytes."""
    spans, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack_from(">q", data, pos + 6)
        spans.append((pos, length))
        pos += 14 + length
    return spans


def _flip(data: bytearray, at: int) -> bytearray:
    data[at] ^= 0xFF
    return data


DAMAGE = {
    # first block's trailer no longer equals L + 6: the data block is skipped, the delete applies
    "trailer-of-data-block": (lambda d, s: _flip(d, s[0][0] + 14 + s[0][1] - 1), [(1, 10), (2, 10), (4, 10)]),
    # first block's length field damaged: the trailer check fails, reading resumes at the next MAGIC
    "length-of-data-block": (lambda d, s: _flip(d, s[0][0] + 13), [(1, 10), (2, 10), (4, 10)]),
    # file cut in the middle of the delete block: the data block applies, the torn tail is skipped
    "truncated-in-delete-block": (lambda d, s: d[: s[1][0] + s[1][1] // 2],
                                  [(1, 20), (2, 10), (3, 10), (4, 10)]),
}


def _damaged_copy(source: str, target: Path, damage: str) -> str:
    shutil.copytree(source, target)
    ((log, _),) = _log_files(str(target))
    data = bytearray(log.read_bytes())
    mutate, _ = DAMAGE[damage]
    log.write_bytes(bytes(mutate(data, _block_spans(bytes(data)))))
    return str(target)


def _read_slice_in_process(path: str) -> pa.Table:
    """The one merged slice, read by the file group reader in this process (not in a Spark task)."""
    meta = TableMetaClient.load(path)
    plan = plan_read(meta, ReadConfig())
    (spec,) = slice_specs(plan)
    first = meta.timeline.first
    return read_file_slice(spec, to_arrow_schema(table_struct(plan.schema_json)),
                           completed_instants=plan.completed_instants, max_instant=plan.as_of,
                           timeline_start=first.instant_time if first else None, ordering_field="ts",
                           payload=Payload.DEFAULT, storage=meta.storage)


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_mor_damaged_log_block_skipped_with_warning_other_block_read(spark: Any, two_block_table: str,
                                                                   tmp_path: Path, damage: str,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    path = _damaged_copy(two_block_table, tmp_path / "table", damage)
    _, expected = DAMAGE[damage]

    with caplog.at_level(logging.WARNING, logger="hudi_sql.log.reader"):
        merged = _read_slice_in_process(path)
    assert _ids_and_ts(merged) == expected
    warnings = [r for r in caplog.records if r.name == "hudi_sql.log.reader" and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "corrupt block" in warnings[0].getMessage()

    ours = our_table(spark, path)
    assert _ids_and_ts(ours) == expected
    assert rows_of(ours) == rows_of(rust_table(path))


def test_mor_log_content_damage_inside_intact_framing_fails_the_read(two_block_table: str,
                                                                     tmp_path: Path) -> None:
    """Log blocks carry no checksum: damage that keeps the framing intact cannot be skipped as a
    torn write. A record count that no longer matches the records fails the read, in our reader
    (HudiFileFormatError) as in the Rust reader, instead of returning wrong rows."""
    path = str(tmp_path / "table")
    shutil.copytree(two_block_table, path)
    ((log, _),) = _log_files(path)
    data = bytearray(log.read_bytes())
    raw = next(read_raw_blocks(bytes(data)))
    content_at = bytes(data).find(raw.content)
    (count,) = struct.unpack_from(">i", data, content_at + 4)  # after the content version
    struct.pack_into(">i", data, content_at + 4, count + 1)
    log.write_bytes(bytes(data))

    with pytest.raises(HudiFileFormatError, match="AVRO_DATA block"):
        _read_slice_in_process(path)
    with pytest.raises(Exception, match="buffer"):
        rust_table(path)
