"""File sizing, overwrite operations, markers and rollback on the write path."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from table_helpers import data_rows, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.commit.transaction import Transaction
from hudi_sql.engine.write_client import WriteClient
from hudi_sql.model.instant import Action
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

SCHEMA = "id int, payload string, ts int, p string"


def _options(name: str, **extra: str) -> dict[str, str]:
    return {"hoodie.table.name": name, "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
            **extra}


def _rows(ids: range, ts: int = 1, p: str = "a", width: int = 200) -> list[tuple[int, str, int, str]]:
    return [(i, f"{i:08d}" * (width // 8), ts, p) for i in ids]


def _latest_sizes(path: Path) -> dict[str, int]:
    view = FileSystemView(TableMetaClient.load(str(path)))
    return {s.file_id: s.base_file.size for s in view.latest_file_slices() if s.base_file}


def test_file_sizing_inserts_fill_small_files_then_roll_over_within_max(spark: Any, tmp_path: Path) -> None:
    max_size = 60_000
    options = _options("sizing", **{"hoodie.parquet.max.file.size": str(max_size),
                                    "hoodie.parquet.small.file.limit": str(40_000),
                                    "hoodie.copyonwrite.record.size.estimate": "200",
                                    "hoodie.parquet.compression.codec": "uncompressed",
                                    # a small filter: the default one alone is ~431 KB per file
                                    "hoodie.index.bloom.num_entries": "100", "hoodie.index.bloom.fpp": "0.01"})
    hudi_sql.write(spark.createDataFrame(_rows(range(40)), SCHEMA), str(tmp_path), options)
    first = _latest_sizes(tmp_path)
    assert len(first) == 1 and next(iter(first.values())) < 40_000, "the first commit makes one small file"

    result = hudi_sql.write(spark.createDataFrame(_rows(range(40, 80)), SCHEMA), str(tmp_path), options)
    second = _latest_sizes(tmp_path)
    (small_id,) = first
    assert small_id in second and second[small_id] > first[small_id], "inserts went into the small file first"
    assert any(s.file_id == small_id and s.num_inserts > 0 for s in result.write_stats)

    hudi_sql.write(spark.createDataFrame(_rows(range(80, 1200)), SCHEMA), str(tmp_path), options)
    files = list(tmp_path.rglob("*.parquet"))
    latest = _latest_sizes(tmp_path)
    assert len(latest) > 3, "a large insert is spread over several files"
    for file_id, size in latest.items():
        path = next(f for f in files if f.name.startswith(file_id) and f.stat().st_size == size)
        meta = pq.ParquetFile(path).metadata
        largest_group = max(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        assert size <= max_size + largest_group + 8192, f"{path.name} is {size} bytes"
    assert our_table(spark, str(tmp_path)).num_rows == 1200
    assert rows_of(our_table(spark, str(tmp_path))) == rows_of(rust_table(str(tmp_path)))


def test_bulk_insert_global_sort_gives_files_disjoint_key_ranges(spark: Any, tmp_path: Path) -> None:
    options = _options("sorted", **{"hoodie.datasource.write.operation": "bulk_insert",
                                    "hoodie.bulkinsert.sort.mode": "GLOBAL_SORT",
                                    "hoodie.copyonwrite.insert.auto.split": "false",
                                    "hoodie.copyonwrite.insert.split.size": "100",
                                    "hoodie.datasource.write.recordkey.field": "payload"})
    rows = _rows(range(1000), width=16)
    hudi_sql.write(spark.createDataFrame(list(reversed(rows)), SCHEMA), str(tmp_path), options)
    ranges = []
    for path in tmp_path.rglob("*.parquet"):
        footer = pq.ParquetFile(path).metadata.metadata
        ranges.append((footer[b"hoodie_min_record_key"].decode(), footer[b"hoodie_max_record_key"].decode()))
        keys = pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist()
        assert keys == sorted(keys), "rows are sorted by key inside a file"
    ranges.sort()
    assert len(ranges) == 10
    assert all(prev[1] < nxt[0] for prev, nxt in itertools.pairwise(ranges)), ranges


@pytest.mark.parametrize("operation", ["insert_overwrite", "insert_overwrite_table", "delete_partition",
                                       "delete_partition_of_the_batch"])
def test_overwrite_operations_replace_file_groups_visible_only_after_instant(
        spark: Any, tmp_path: Path, operation: str) -> None:
    options = _options("ow")
    first = hudi_sql.write(spark.createDataFrame(_rows(range(6), p="a") + _rows(range(6, 9), p="b"), SCHEMA),
                           str(tmp_path), options)
    batch = _rows(range(100, 102), ts=2, p="a")
    # delete_partition names the partitions, or (none named) takes those of the batch's records
    extra = {"hoodie.datasource.write.operation": operation.removesuffix("_of_the_batch")}
    if operation == "delete_partition":
        extra["hoodie.datasource.write.partitions.to.delete"] = "a*"
    second = hudi_sql.write(spark.createDataFrame(batch, SCHEMA), str(tmp_path), {**options, **extra})

    meta = TableMetaClient.load(str(tmp_path))
    instant = meta.timeline.completed_writes().last
    assert instant is not None and instant.action is Action.REPLACE_COMMIT
    replaced = meta.commit_metadata(instant).partition_to_replace_file_ids or {}
    expected_ids = {
        "insert_overwrite": {100, 101, 6, 7, 8},
        "insert_overwrite_table": {100, 101},
        "delete_partition": {6, 7, 8},
        "delete_partition_of_the_batch": {6, 7, 8},
    }[operation]
    assert set(replaced) == ({"a", "b"} if operation == "insert_overwrite_table" else {"a"})
    ours = our_table(spark, str(tmp_path))
    assert {r["id"] for r in ours.to_pylist()} == expected_ids
    assert rows_of(ours) == rows_of(rust_table(str(tmp_path)))
    # Time travel before the replacecommit still sees the replaced data.
    before = our_table(spark, str(tmp_path), {"as.of.instant": first.instant_time})
    assert {r["id"] for r in before.to_pylist()} == set(range(9))
    assert rows_of(before) == rows_of(rust_table(str(tmp_path), as_of=first.instant_time))
    # Incremental after the first commit: only what the replacecommit wrote.
    changes = our_table(spark, str(tmp_path), {"hoodie.datasource.query.type": "incremental",
                                               "hoodie.datasource.read.begin.instanttime": first.instant_time})
    assert {r["id"] for r in changes.to_pylist()} == (set() if operation.startswith("delete_partition") else {100, 101})
    assert second.instant_time == instant.instant_time


def test_timeline_server_markers_batch_into_few_files_and_rollback_finds_every_file(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = _options("tsb", **{"hoodie.write.markers.type": "TIMELINE_SERVER_BASED",
                                 "hoodie.parquet.small.file.limit": "0"})
    df = spark.createDataFrame([(i, "x", 1, f"p{i % 40}") for i in range(400)], SCHEMA)
    client = WriteClient(str(tmp_path), options)
    result = client.write(df)
    assert len(result.write_stats) == 40
    assert result.marker_batches >= 1

    # A write whose driver dies before completing: every file it wrote is found from MARKERS files.
    marker_listing: list[str] = []

    def die_before_completing(self: Transaction, metadata: Any) -> None:
        marker_dir = Path(self.marker_dir())
        marker_listing.extend(sorted(p.name for p in marker_dir.iterdir()))
        raise RuntimeError("driver died")

    monkeypatch.setattr(Transaction, "complete", die_before_completing)
    with pytest.raises(RuntimeError, match="driver died"):
        WriteClient(str(tmp_path), options).write(df.selectExpr("id", "'y' as payload", "2 as ts", "p"))
    monkeypatch.undo()
    # No per-file marker objects: the 40 markers live as lines of at most four MARKERS files.
    assert "MARKERS.type" in marker_listing and not any(".marker." in n for n in marker_listing)
    assert 1 <= len([n for n in marker_listing if n.startswith("MARKERS") and n != "MARKERS.type"]) <= 4
    failed = TableMetaClient.load(str(tmp_path)).timeline.pending_writes().instants[0].instant_time
    assert len([p for p in tmp_path.rglob("*.parquet") if failed in p.name]) == 40

    hudi_sql.write(spark.createDataFrame([(999, "z", 3, "p0")], SCHEMA), str(tmp_path), options)
    assert not [p for p in tmp_path.rglob("*.parquet") if failed in p.name], "rollback deleted every file"
    assert {r["payload"] for r in our_table(spark, str(tmp_path)).to_pylist()} == {"x", "z"}


def test_duplicate_task_attempt_file_deleted_before_commit_completes(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = _options("dup")
    hudi_sql.write(spark.createDataFrame(_rows(range(5)), SCHEMA), str(tmp_path), options)
    original = Transaction.complete
    planted: list[Path] = []

    def with_speculative_copy(self: Transaction, metadata: Any) -> None:
        # A second attempt of one task wrote the same file group under its own write token.
        stat = metadata.write_stats()[0]
        real = tmp_path / stat.path
        fid, token, rest = real.name.split("_")
        loser = real.with_name(f"{fid}_{token.split('-')[0]}-{token.split('-')[1]}-999_{rest}")
        shutil.copy(real, loser)
        marker = Path(self.marker_dir()) / (loser.relative_to(tmp_path).as_posix() + ".marker.MERGE")
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        planted.append(loser)
        original(self, metadata)

    monkeypatch.setattr(Transaction, "complete", with_speculative_copy)
    hudi_sql.write(spark.createDataFrame(_rows(range(3), ts=2), SCHEMA), str(tmp_path), options)
    monkeypatch.undo()
    assert planted and not planted[0].exists(), "the losing attempt's file was deleted"
    ours = our_table(spark, str(tmp_path))
    assert ours.num_rows == 5
    assert rows_of(ours) == rows_of(rust_table(str(tmp_path)))


def test_rollback_latest_commit_restores_previous_snapshot(spark: Any, tmp_path: Path) -> None:
    options = _options("rb")
    first = hudi_sql.write(spark.createDataFrame(_rows(range(4)), SCHEMA), str(tmp_path), options)
    before = data_rows(our_table(spark, str(tmp_path)), "id")
    second = hudi_sql.write(spark.createDataFrame(_rows(range(2, 6), ts=5), SCHEMA), str(tmp_path), options)
    with pytest.raises(hudi_sql.HudiTimelineError, match="not the latest"):
        hudi_sql.rollback(str(tmp_path), first.instant_time)
    result = hudi_sql.rollback(str(tmp_path), second.instant_time)
    assert result.rolled_back.instant_time == second.instant_time
    assert all(second.instant_time in f for f in result.deleted_files) and result.deleted_files
    after = our_table(spark, str(tmp_path))
    assert data_rows(after, "id") == before
    assert rows_of(after) == rows_of(rust_table(str(tmp_path)))
    meta = TableMetaClient.load(str(tmp_path))
    assert [i.instant_time for i in meta.timeline.completed().with_actions(Action.ROLLBACK)] == [
        result.rollback_instant_time]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_batch_duplicates_combine_to_greatest_ordering_then_latest_row(
        spark: Any, tmp_path: Path, table_type: str) -> None:
    options = _options("combine", **{"hoodie.datasource.write.table.type": table_type})
    hudi_sql.write(spark.createDataFrame([(1, "stored", 1, "a"), (2, "stored", 1, "a")], SCHEMA), str(tmp_path),
                   options)
    # The list is split over the session's input partitions in order: duplicates of a key sit
    # in different partitions and meet only in the write task of their file group.
    batch = spark.createDataFrame([
        (1, "low", 5, "a"), (3, "tie-first", 4, "a"), (1, "high", 9, "a"),
        # (a null ordering value is refused as Apache Hudi does: test_hostile_input.py)
        (3, "tie-last", 4, "a"), (1, "middle", 7, "a"), (2, "ordered", 2, "a"), (4, "new", 1, "b"),
    ], SCHEMA)
    assert batch.rdd.getNumPartitions() > 1
    result = hudi_sql.write(batch, str(tmp_path), options)

    expected = [{"id": 1, "payload": "high", "ts": 9, "p": "a"}, {"id": 2, "payload": "ordered", "ts": 2, "p": "a"},
                {"id": 3, "payload": "tie-last", "ts": 4, "p": "a"}, {"id": 4, "payload": "new", "ts": 1, "p": "b"}]
    columns = ["id", "payload", "ts", "p"]
    assert rows_of(our_table(spark, str(tmp_path)), columns, key="id") == expected
    assert rows_of(rust_table(str(tmp_path)), columns, key="id") == expected
    assert result.num_updated + result.num_inserted == 4, "one record per key was written"
    assert "_hoodie_arrival" not in our_table(spark, str(tmp_path)).column_names


def test_batch_duplicates_of_a_version_8_table_merging_by_commit_time_keep_the_latest_arrival(
        spark: Any, tmp_path: Path) -> None:
    """Apache Hudi 1.2's record merger under COMMIT_TIME_ORDERING ignores the ordering value, in
    the batch as against the stored record (docs/compatibility.md §25)."""
    options = _options("arrival", **{"hoodie.write.table.version": "8",
                                     "hoodie.datasource.write.payload.class":
                                         "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"})
    hudi_sql.write(spark.createDataFrame([(1, "stored", 1, "a")], SCHEMA), str(tmp_path), options)
    assert TableMetaClient.load(str(tmp_path)).config.record_merge_mode == "COMMIT_TIME_ORDERING"
    batch = spark.createDataFrame([(1, "high", 9, "a"), (2, "high", 9, "a"), (1, "late", 5, "a"),
                                   (2, "later", 3, "a")], SCHEMA)
    hudi_sql.write(batch, str(tmp_path), options)
    assert rows_of(our_table(spark, str(tmp_path)), ["id", "payload", "ts"], key="id") == [
        {"id": 1, "payload": "late", "ts": 5}, {"id": 2, "payload": "later", "ts": 3}]


# -- file settings: every writer of base files takes the table's parquet and bloom options --------

_FILE_OPTIONS = {"hoodie.parquet.block.size": "4096", "hoodie.parquet.page.size": "1024",
                 "hoodie.parquet.compression.codec": "snappy", "hoodie.bloom.index.filter.type": "SIMPLE",
                 "hoodie.index.bloom.num_entries": "500", "hoodie.index.bloom.fpp": "0.001"}


def _file_settings(path: Path) -> dict[str, Any]:
    """What a base file's footer says about the settings it was written with."""
    from hudi_sql.model.footer_keys import BLOOM_FILTER_KEY, BLOOM_FILTER_TYPE_CODE_KEY

    meta = pq.ParquetFile(path).metadata
    footer = meta.metadata
    return {"codec": meta.row_group(0).column(0).compression,
            "bloom_type": footer.get(BLOOM_FILTER_TYPE_CODE_KEY.encode()),
            "bloom_bytes": len(footer[BLOOM_FILTER_KEY.encode()])}


def _base_files_of(path: Path, instant_time: str) -> list[Path]:
    return sorted(p for p in path.rglob("*.parquet") if p.name.endswith(f"_{instant_time}.parquet"))


def test_compaction_writes_base_files_with_the_tables_parquet_and_bloom_settings(spark: Any, tmp_path: Path) -> None:
    options = _options("compacted", **{"hoodie.datasource.write.table.type": "MERGE_ON_READ", **_FILE_OPTIONS})
    first = hudi_sql.write(spark.createDataFrame(_rows(range(300), width=64), SCHEMA), str(tmp_path), options)
    hudi_sql.write(spark.createDataFrame(_rows(range(0, 300, 2), ts=2, width=64), SCHEMA), str(tmp_path), options)
    (written,) = _base_files_of(tmp_path, str(first.instant_time))

    instant = hudi_sql.compact(spark, str(tmp_path), options)
    assert instant is not None
    (compacted,) = _base_files_of(tmp_path, instant)
    assert _file_settings(compacted) == _file_settings(written), "compaction uses the write's file settings"
    assert _file_settings(compacted)["codec"] == "SNAPPY"
    row_groups = pq.ParquetFile(compacted).metadata.num_row_groups
    assert row_groups > 1, f"hoodie.parquet.block.size=4096 splits 300 rows, got {row_groups} row group(s)"
    assert rows_of(our_table(spark, str(tmp_path))) == rows_of(rust_table(str(tmp_path)))


def test_clustering_writes_base_files_with_the_tables_parquet_and_bloom_settings(spark: Any, tmp_path: Path) -> None:
    options = _options("clustered", **_FILE_OPTIONS)
    first = hudi_sql.write(spark.createDataFrame(_rows(range(300), width=64), SCHEMA), str(tmp_path), options)
    (written,) = _base_files_of(tmp_path, str(first.instant_time))

    instant = hudi_sql.cluster(spark, str(tmp_path), options, order="id")
    assert instant is not None
    clustered = _base_files_of(tmp_path, instant)
    assert clustered
    for path in clustered:
        assert _file_settings(path) == _file_settings(written), "clustering uses the write's file settings"
        assert pq.ParquetFile(path).metadata.num_row_groups > 1
    assert rows_of(our_table(spark, str(tmp_path))) == rows_of(rust_table(str(tmp_path)))


def _dictionary_columns(path: Path) -> set[str]:
    group = pq.ParquetFile(path).metadata.row_group(0)
    return {group.column(i).path_in_schema for i in range(group.num_columns)
            if "RLE_DICTIONARY" in group.column(i).encodings}


def test_base_files_dictionary_encode_repeating_columns_unless_the_table_turns_it_off(spark: Any,
                                                                                      tmp_path: Path) -> None:
    rows = spark.createDataFrame(_rows(range(3000)), SCHEMA)
    on = hudi_sql.write(rows, str(tmp_path / "on"), _options("dict_on"))
    off = hudi_sql.write(rows, str(tmp_path / "off"), _options("dict_off", **{
        "hoodie.parquet.dictionary.enabled": "false"}))

    (with_dictionary,) = _base_files_of(tmp_path / "on", str(on.instant_time))
    (without,) = _base_files_of(tmp_path / "off", str(off.instant_time))
    assert {"_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "ts", "p"} <= \
        _dictionary_columns(with_dictionary)
    assert not {"_hoodie_record_key", "_hoodie_commit_seqno", "id"} & _dictionary_columns(with_dictionary)
    assert _dictionary_columns(without) == set()
    assert rows_of(our_table(spark, str(tmp_path / "off"))) == rows_of(rust_table(str(tmp_path / "off")))


def test_a_post_commit_action_that_fails_leaves_the_commit_and_is_reported_in_the_result(
        spark: Any, tmp_path: Path) -> None:
    """Hive sync to a server that is not there fails after the commit completed: the data is
    committed and readable, and the write's result names the sync that failed (not only a log line)."""
    from process_helpers import free_port

    path = tmp_path / "t"
    unreachable = f"jdbc:hive2://127.0.0.1:{free_port()}"
    result = hudi_sql.write(spark.createDataFrame(_rows(range(3)), SCHEMA), str(path),
                            _options("synced", **{"hoodie.datasource.hive_sync.enable": "true",
                                                  "hoodie.datasource.hive_sync.mode": "jdbc",
                                                  "hoodie.datasource.hive_sync.jdbcurl": unreachable}))
    assert result.instant_time in TableMetaClient.load(str(path)).timeline.completed_writes().times()
    assert sorted(r["id"] for r in our_table(spark, str(path)).to_pylist()) == [0, 1, 2]
    assert [f.service for f in result.post_commit_failures] == ["Hive sync"], result.post_commit_failures
    assert unreachable.rsplit(":", 1)[1] in result.post_commit_failures[0].error
