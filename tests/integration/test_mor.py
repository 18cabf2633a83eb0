"""Merge-On-Read writes, read back by our reader and by the Rust reader, against an independent model.

After every deltacommit, rollback and compaction, our snapshot (meta columns included) must
equal the Rust reader's, our read-optimized view must equal the Rust reader's read-optimized
view (``hoodie.read.use.read_optimized.mode``), and the data rows must equal what
:class:`ExpectedTable` computes. Failure paths (failed deltacommits, corrupt log blocks) are in
``test_mor_failures.py``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from table_helpers import ExpectedTable, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.config import HudiConfigs
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.log import BlockType, CommandBlock, read_log_blocks, read_raw_blocks
from hudi_sql.model.file_names import LogFileName
from hudi_sql.model.instant import Action
from hudi_sql.read.plan import plan_read
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
DATA = ("id", "name", "ts", "p")
FLAGGED = SCHEMA + ", _hoodie_is_deleted boolean"
MOR = {
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
    # updates go to logs, inserts to new file groups (no small-file merging into slices with logs)
    "hoodie.parquet.small.file.limit": "0",
}
RO = {"hoodie.datasource.query.type": "read_optimized"}


def _row(i: int, ts: int, p: str, name: str | None = None) -> dict[str, Any]:
    return {"id": i, "name": name or f"n{i}-{ts}", "ts": ts, "p": p}


def _write(spark: Any, path: str, name: str, rows: list[dict[str, Any]], operation: str = "upsert",
           schema: str = SCHEMA, **extra: str) -> hudi_sql.WriteResult:
    df = spark.createDataFrame([tuple(r.values()) for r in rows], schema)
    options = {"hoodie.table.name": name, **MOR, "hoodie.datasource.write.operation": operation, **extra}
    return hudi_sql.write(df, path, options)


def rust_read_optimized(path: str) -> pa.Table:
    """The Rust reader's read-optimized view: base files of the latest slices, logs ignored."""
    from hudi import HudiReadOptions, HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(path).build()
    batches = table.read(HudiReadOptions().with_hudi_option("hoodie.read.use.read_optimized.mode", "true"))
    schema = batches[0].schema if batches else table.get_schema_with_meta_fields()
    return pa.Table.from_batches(batches, schema=schema)


def _data(table: pa.Table) -> list[dict[str, Any]]:
    return rows_of(table, DATA, key="id")


def _without_file_name(table: pa.Table) -> list[dict[str, Any]]:
    """Rows minus ``_hoodie_file_name``, which compaction rewrites to the new base file's name."""
    return rows_of(table, [c for c in table.column_names if c != "_hoodie_file_name"])


def check_both_readers(spark: Any, path: str, model: ExpectedTable) -> pa.Table:
    """Snapshot and read-optimized views equal the Rust reader's; the snapshot equals the model."""
    ours = our_table(spark, path)
    assert rows_of(ours) == rows_of(rust_table(path)), "snapshot (meta columns included) differs from Rust"
    assert _data(ours) == model.sorted_rows("id"), "snapshot differs from the model"
    ours_ro = our_table(spark, path, RO)
    assert rows_of(ours_ro) == rows_of(rust_read_optimized(path)), "read-optimized view differs from Rust"
    return ours


def log_versions(path: str) -> dict[str, list[tuple[int, str]]]:
    """(version, write token) of every log file, per file id, in reader order."""
    names: dict[str, list[LogFileName]] = defaultdict(list)
    for file in Path(path).rglob("*"):
        name = LogFileName.try_parse(file.name)
        if name is not None and ".hoodie" not in file.parts:
            names[name.file_id].append(name)
    return {fid: [(n.version, n.write_token) for n in sorted(found)] for fid, found in names.items()}


def _file_id_of(table: pa.Table, record_id: int) -> str:
    row = next(r for r in table.to_pylist() if r["id"] == record_id)
    return str(row["_hoodie_file_name"]).split("_")[0]


def test_mor_upsert_delete_rollback_compaction_match_rust_reader_and_model(spark: Any,
                                                                            tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    model = ExpectedTable(("id",), "ts")

    first = [_row(i, 10, "a" if i % 2 else "b") for i in range(1, 9)]
    _write(spark, path, "seq", first, "insert")
    model.insert(first)
    ours = check_both_readers(spark, path, model)
    assert log_versions(path) == {}, "inserts go to base files"
    group_a, group_b = _file_id_of(ours, 1), _file_id_of(ours, 2)

    # Updates in both file groups become log version 1 of each; a new key makes a new file group.
    second = [_row(1, 20, "a"), _row(2, 20, "b"), _row(9, 20, "a")]
    result = _write(spark, path, "seq", second)
    model.upsert(second)
    assert (result.num_updated, result.num_inserted) == (2, 1)
    check_both_readers(spark, path, model)
    assert [v for v, _ in log_versions(path)[group_a]] == [1]
    assert [v for v, _ in log_versions(path)[group_b]] == [1]

    # Another deltacommit to group a rolls over to log version 2.
    third = [_row(1, 30, "a"), _row(3, 30, "a")]
    _write(spark, path, "seq", third)
    model.upsert(third)
    check_both_readers(spark, path, model)
    assert [v for v, _ in log_versions(path)[group_a]] == [1, 2]

    # The delete operation writes a delete block.
    doomed = [model.rows[(5,)], model.rows[(4,)]]
    result = _write(spark, path, "seq", doomed, "delete")
    model.delete(doomed)
    assert result.num_deleted == 2
    check_both_readers(spark, path, model)

    # _hoodie_is_deleted in an upsert deletes (with an ordering value above the stored one).
    flagged = [dict(_row(7, 40, "a"), _hoodie_is_deleted=True),
               dict(_row(6, 40, "b"), _hoodie_is_deleted=False)]
    _write(spark, path, "seq", flagged, schema=FLAGGED)
    model.delete([flagged[0]])
    model.upsert([_row(6, 40, "b")])
    check_both_readers(spark, path, model)

    # Rolling back the latest deltacommit cancels its log blocks with a command block.
    # (the table has a _hoodie_is_deleted column now: later batches carry it, as in Hudi 0.14)
    undone = _write(spark, path, "seq", [dict(_row(i, 50, p), _hoodie_is_deleted=False)
                                         for i, p in [(1, "a"), (2, "b"), (10, "b")]], schema=FLAGGED)
    assert 10 in rust_table(path).column("id").to_pylist()
    versions_before = log_versions(path)
    rolled = hudi_sql.rollback(path)
    assert rolled.rolled_back.instant_time == undone.instant_time
    versions_after = log_versions(path)
    for group in (group_a, group_b):
        last_version, last_token = versions_after[group][-1]
        assert (last_version, last_token) == (versions_before[group][-1][0] + 1, "1-0-1")
    rollback_log = next(Path(path).rglob(f".{group_a}_*.log.{versions_after[group_a][-1][0]}_1-0-1"))
    (command,) = list(read_log_blocks(rollback_log))
    assert isinstance(command, CommandBlock) and command.target_instant_time == undone.instant_time
    assert (Path(path) / ".hoodie" / f"{rolled.rollback_instant_time}.rollback").exists()
    snapshot = check_both_readers(spark, path, model)

    # Compaction keeps the snapshot and makes the read-optimized view equal to it.
    compaction = hudi_sql.compact(spark, path)
    assert compaction is not None
    assert (Path(path) / ".hoodie" / f"{compaction}.commit").exists()
    compacted = check_both_readers(spark, path, model)
    assert _without_file_name(compacted) == _without_file_name(snapshot)
    assert rows_of(our_table(spark, path, RO)) == rows_of(compacted)


PartlyUpdated = tuple[str, ExpectedTable]


@pytest.fixture(scope="module")
def parquet_block_table(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> PartlyUpdated:
    """Three file groups (partitions a, b, c); one deltacommit of updates and deletes to group a only,
    written with ``hoodie.logfile.data.block.format=parquet``."""
    path = str(tmp_path_factory.mktemp("parquet_blocks") / "table")
    model = ExpectedTable(("id",), "ts")
    rows = [_row(i, 10, "abc"[i % 3]) for i in range(1, 10)]
    _write(spark, path, "pq", rows, "insert")
    model.insert(rows)
    update = [dict(_row(3, 20, "a"), _hoodie_is_deleted=False),
              dict(_row(6, 20, "a"), _hoodie_is_deleted=True)]
    _write(spark, path, "pq", update, schema=FLAGGED, **{"hoodie.logfile.data.block.format": "parquet"})
    model.upsert([_row(3, 20, "a")])
    model.delete([_row(6, 20, "a")])
    return path, model


def test_mor_parquet_data_blocks_read_by_both_readers(spark: Any, parquet_block_table: PartlyUpdated) -> None:
    path, model = parquet_block_table
    (log,) = [f for f in Path(path).rglob("*") if LogFileName.try_parse(f.name) and ".hoodie" not in f.parts]
    assert [b.block_type for b in read_raw_blocks(log)] == [BlockType.PARQUET_DATA, BlockType.DELETE]
    check_both_readers(spark, path, model)


def test_mor_snapshot_plan_merges_only_file_groups_with_logs(parquet_block_table: PartlyUpdated) -> None:
    path, _ = parquet_block_table
    plan = plan_read(TableMetaClient.load(path), ReadConfig())
    assert len(plan.merge_slices) == 1 and len(plan.native_files) == 2
    assert plan.merge_slices[0].partition_path == "a"
    read_optimized = plan_read(TableMetaClient.load(path), ReadConfig.of(HudiConfigs.of(RO)))
    assert len(read_optimized.merge_slices) == 0 and len(read_optimized.native_files) == 3


def test_mor_inline_compaction_after_max_delta_commits_ro_equals_snapshot(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    inline = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
    model = ExpectedTable(("id",), "ts")
    first = [_row(i, 10, "a" if i % 2 else "b") for i in range(1, 7)]
    _write(spark, path, "inline", first, "insert", **inline)
    model.insert(first)
    assert not list((Path(path) / ".hoodie").glob("*.commit")), "one deltacommit does not trigger compaction"

    second = [_row(1, 20, "a"), _row(4, 20, "b")]
    _write(spark, path, "inline", second, **inline)
    model.upsert(second)
    meta = TableMetaClient.load(path)
    (compaction,) = meta.timeline.completed().with_actions(Action.COMMIT)
    assert meta.commit_metadata(compaction).compacted
    snapshot = check_both_readers(spark, path, model)
    assert rows_of(our_table(spark, path, RO)) == rows_of(snapshot)
    assert plan_read(meta, ReadConfig()).merge_slices == ()


def test_mor_write_during_pending_compaction_is_read_then_kept_by_compaction(spark: Any,
                                                                             tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    model = ExpectedTable(("id",), "ts")
    first = [_row(i, 10, "a" if i % 2 else "b") for i in range(1, 7)]
    _write(spark, path, "pending", first, "insert")
    model.insert(first)
    second = [_row(1, 20, "a"), _row(2, 20, "b")]
    _write(spark, path, "pending", second)
    model.upsert(second)

    compaction = hudi_sql.compact(spark, path, execute=False)
    assert compaction is not None
    assert (Path(path) / ".hoodie" / f"{compaction}.compaction.requested").exists()
    third = [_row(1, 30, "a"), _row(3, 30, "a"), _row(11, 30, "b")]
    _write(spark, path, "pending", third)
    model.upsert(third)
    ours = our_table(spark, path)
    assert _data(ours) == model.sorted_rows("id"), "the write made during the pending compaction must be read"
    # The update's log starts the slice the compaction will head.
    group_a = _file_id_of(ours, 1)
    names = [LogFileName.try_parse(f.name) for f in Path(path).rglob(f".{group_a}_*")]
    assert {n.base_instant for n in names if n} >= {compaction}

    assert hudi_sql.compact(spark, path, schedule=False, instant_time=compaction) == compaction
    assert (Path(path) / ".hoodie" / f"{compaction}.commit").exists()
    check_both_readers(spark, path, model)
    read_optimized = {r["id"]: r["ts"] for r in our_table(spark, path, RO).to_pylist()}
    assert read_optimized[1] == 20, "the compacted base holds the updates made before the schedule"


def test_mor_lower_ordering_value_in_later_deltacommit_loses_in_both_readers(spark: Any,
                                                                            tmp_path: Path) -> None:
    """With DefaultHoodieRecordPayload the greater ``ts`` wins, across log versions and against
    the base file. A ``_hoodie_is_deleted`` delete with a lower
    ``ts`` than the base row still deletes it, as Apache Hudi 0.15 reads and compacts it (a log
    delete is an empty payload there; tests/oracle/test_payload_differential.py); hudi 0.5.0
    keeps the row (the event-time rule of table version 8)."""
    path = str(tmp_path / "table")
    default = {"hoodie.datasource.write.payload.class": "org.apache.hudi.common.model.DefaultHoodieRecordPayload"}
    _write(spark, path, "order", [_row(i, 10, "a") for i in range(1, 5)], "insert", **default)
    _write(spark, path, "order", [_row(1, 30, "a"), _row(2, 5, "a")])
    _write(spark, path, "order", [dict(_row(1, 20, "a"), _hoodie_is_deleted=False),
                                  dict(_row(3, 5, "a"), _hoodie_is_deleted=True)], schema=FLAGGED)
    props = (Path(path) / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.compaction.payload.class=org.apache.hudi.common.model.DefaultHoodieRecordPayload" in props
    expected = [_row(1, 30, "a"), _row(2, 10, "a"), _row(4, 10, "a")]

    ours = our_table(spark, path)
    assert _data(ours) == rows_of(pa.Table.from_pylist(expected), DATA, key="id")
    rust = rust_table(path)
    assert rows_of(ours) == rows_of(rust.filter(pc.not_equal(rust.column("id"), 3)))
    assert 3 in rust.column("id").to_pylist()

    hudi_sql.compact(spark, path)
    compacted = our_table(spark, path)
    assert _data(compacted) == _data(ours)
    assert rows_of(compacted) == rows_of(rust_table(path))
    assert rows_of(our_table(spark, path, RO)) == rows_of(compacted)


def test_mor_overwrite_with_latest_payload_lower_ordering_in_later_log_readers_differ(spark: Any,
                                                                                      tmp_path: Path) -> None:
    """Documents open question 3 of the format sheet. With OverwriteWithLatestAvroPayload, a log
    record beats the base row unconditionally in both readers; between two log versions ours
    follows Java 0.14's ``preCombine`` (greater ``ts`` wins) while hudi 0.5.0 takes the later
    commit."""
    path = str(tmp_path / "table")
    payload = {"hoodie.datasource.write.payload.class":
               "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"}
    _write(spark, path, "latest", [_row(1, 10, "a"), _row(2, 10, "a")], "insert", **payload)
    _write(spark, path, "latest", [_row(1, 30, "a"), _row(2, 5, "a")], **payload)
    _write(spark, path, "latest", [_row(1, 20, "a")], **payload)
    props = (Path(path) / ".hoodie" / "hoodie.properties").read_text()
    assert "payload.class=org.apache.hudi.common.model.OverwriteWithLatestAvroPayload" in props

    ours = {r["id"]: r["ts"] for r in our_table(spark, path).to_pylist()}
    rust = {r["id"]: r["ts"] for r in rust_table(path).to_pylist()}
    assert ours == {1: 30, 2: 5}
    assert rust == {1: 20, 2: 5}


def test_mor_delete_operation_with_lower_ordering_value_deletes_row(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "table")
    _write(spark, path, "delete_op", [_row(1, 10, "a"), _row(2, 10, "a")], "insert")
    _write(spark, path, "delete_op", [_row(1, 5, "a")], "delete")

    assert sorted(r["id"] for r in our_table(spark, path).to_pylist()) == [2]
    assert sorted(r["id"] for r in rust_table(path).to_pylist()) == [2]


def test_mor_without_meta_fields_snapshot_and_compaction_merge_logs_by_key_fields(spark: Any, tmp_path: Path) -> None:
    # _hoodie_record_key is null in such a table: base and log rows must meet by the key the key
    # generator makes of 'id', or every log record lands on one key per file group.
    path = str(tmp_path / "table")
    no_meta = {"hoodie.populate.meta.fields": "false"}
    _write(spark, path, "no_meta", [_row(i, 1, str(i % 2)) for i in range(20)], "insert", **no_meta)
    _write(spark, path, "no_meta", [_row(i, 2, str(i % 2)) for i in range(10)], **no_meta)
    _write(spark, path, "no_meta", [_row(i, 3, str(i % 2)) for i in (10, 11)], "delete", **no_meta)
    expected = sorted([(i, f"n{i}-2") for i in range(10)] + [(i, f"n{i}-1") for i in range(12, 20)])

    def snapshot(df: Any) -> list[tuple[int, str]]:
        return sorted((r["id"], r["name"]) for r in df.collect())

    assert snapshot(hudi_sql.read(spark, path)) == expected
    assert snapshot(spark.read.format("hudi").load(path)) == expected
    hudi_sql.compact(spark, path)
    compacted = hudi_sql.read(spark, path, RO)  # the new base files alone
    assert snapshot(compacted) == expected
    assert compacted.where("_hoodie_record_key IS NOT NULL").count() == 0  # stored as the table's writes store it
