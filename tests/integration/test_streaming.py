"""Structured Streaming into and out of Hudi tables with the shared local session: the sink
applies every micro-batch once however often its query is stopped mid-batch, and the source
emits every committed record once while a writer commits and across a restart."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from streaming_helpers import (
    INPUT_SCHEMA,
    committed_batches,
    expected_rows,
    sink_options,
    write_input_files,
    writes_in_flight,
)
from table_helpers import data_rows, our_table, rust_table

import hudi_sql

pytestmark = [pytest.mark.spark, pytest.mark.streaming]

DATA = ["id", "v", "ts", "p"]


def _stream_into(spark: Any, source: Path, table: Path, checkpoint: Path, options: dict[str, str]) -> Any:
    """One file per micro-batch, every available file, then the query ends."""
    return (spark.readStream.schema(INPUT_SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
            .writeStream.format("hudi").options(**options).option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True).start(str(table)))


def _stop_mid_batch(query: Any, table: Path, seen: set[str], timeout: float = 120) -> str | None:
    """Stop *query* while a micro-batch's commit it started is in flight; the instant, or None if
    the query ended first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and query.isActive:
        fresh = writes_in_flight(table) - seen
        if fresh:
            query.stop()
            return min(fresh)
        time.sleep(0.05)
    query.stop()
    return None


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_stream_stopped_mid_batch_twice_applies_every_batch_once(spark: Any, tmp_path: Path,
                                                                 table_type: str) -> None:
    source, table, checkpoint = tmp_path / "in", tmp_path / "t", tmp_path / "ck"
    batches = write_input_files(source, files=4)
    # Updates go to log files (no small-file packing) and two deltacommits call for a compaction.
    options = sink_options("events", table_type, **{"hoodie.compact.inline.max.delta.commits": "2",
                                                    "hoodie.parquet.small.file.limit": "0"})
    stopped: set[str] = set()
    for _ in range(2):
        instant = _stop_mid_batch(_stream_into(spark, source, table, checkpoint, options), table, stopped)
        assert instant is not None, "the query ended before a micro-batch could be stopped"
        stopped.add(instant)
    final = _stream_into(spark, source, table, checkpoint, options)
    final.awaitTermination(300)
    assert final.exception() is None

    assert data_rows(our_table(spark, str(table)), "id") == expected_rows(batches)
    assert data_rows(rust_table(str(table)), "id") == expected_rows(batches)
    assert sorted(committed_batches(str(table))) == list(range(4))  # each batch one commit, none twice
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(str(table))
    assert not meta.timeline.pending_writes(), "a stopped batch's instant was left behind"
    if table_type == "MERGE_ON_READ":  # the sink compacts a Merge-On-Read stream by default
        assert [i for i in meta.timeline.completed_writes() if meta.commit_metadata(i).operation_type == "COMPACT"]


def test_replayed_batch_ids_are_skipped_and_other_streams_keep_their_own(spark: Any, tmp_path: Path) -> None:
    """Spark replays a batch it had not marked done; a second stream names itself apart."""
    from hudi_sql.streaming.sink import StreamingSink

    table = tmp_path / "t"
    options = sink_options("replays", "COPY_ON_WRITE")
    sink = StreamingSink(str(table), options)
    first = spark.createDataFrame([(1, "a", 1, "p0"), (2, "b", 1, "p0")], INPUT_SCHEMA)
    sink(first, 0)
    sink(spark.createDataFrame([(1, "replayed", 9, "p0")], INPUT_SCHEMA), 0)  # batch 0 again: skipped
    other = StreamingSink(str(table), {**options,
                                       "hoodie.datasource.write.streaming.checkpoint.identifier": "backfill"})
    other(spark.createDataFrame([(3, "c", 1, "p1")], INPUT_SCHEMA), 0)  # another stream's batch 0: written
    rows = data_rows(our_table(spark, str(table)), "id")
    assert [(r["id"], r["v"]) for r in rows] == [(1, "a"), (2, "b"), (3, "c")]
    assert committed_batches(str(table)) == [0, 0]


def _expected_emitted(results: list[tuple[str, list[tuple[int, str]]]]) -> list[tuple[str, int, str]]:
    return sorted((instant, key, value) for instant, rows in results for key, value in rows)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_stream_read_emits_every_committed_record_once_while_a_writer_commits_and_across_a_restart(
        spark: Any, tmp_path: Path, table_type: str) -> None:
    table, out, checkpoint = str(tmp_path / "t"), str(tmp_path / "out"), str(tmp_path / "ck")
    options = sink_options("orders", table_type)
    commits: list[tuple[str, list[tuple[int, str]]]] = []

    def commit(rows: list[tuple[int, str]]) -> None:
        frame = spark.createDataFrame([(k, v, len(commits), f"p{k % 2}") for k, v in rows], INPUT_SCHEMA)
        commits.append((hudi_sql.write(frame, table, options).instant_time, rows))

    def start() -> Any:
        return (spark.readStream.format("hudi").load(table)
                .writeStream.format("parquet").option("path", out).option("checkpointLocation", checkpoint)
                .trigger(processingTime="300 milliseconds").start())

    commit([(k, "c1") for k in range(10)])
    query = start()
    query.processAllAvailable()
    commit([(k, "c2") for k in range(10, 20)])     # new keys, while the query runs
    commit([(k, "c3") for k in range(5)])       # updates of keys the stream emitted already
    query.processAllAvailable()
    query.stop()
    commit([(k, "c4") for k in range(20, 25)])     # while no query runs
    query = start()
    query.processAllAvailable()
    query.stop()

    emitted = spark.read.parquet(out).select("_hoodie_commit_time", "id", "v").collect()
    assert sorted((r[0], r[1], r[2]) for r in emitted) == _expected_emitted(commits)


def test_stream_resuming_after_archived_commits_fails_clearly_unless_it_may_scan_the_table(
        spark: Any, tmp_path: Path) -> None:
    from hudi_sql.services.archive import archive
    from hudi_sql.table.meta_client import TableMetaClient

    table = str(tmp_path / "t")
    # the metadata table compacted every two commits: archival never passes its latest compaction
    options = {**sink_options("archived", "COPY_ON_WRITE"), "hoodie.metadata.compact.max.delta.commits": "2"}
    instants = [hudi_sql.write(spark.createDataFrame([(k, f"c{k}", k, "p0")], INPUT_SCHEMA), table,
                               options).instant_time for k in range(5)]
    archive(TableMetaClient.load(table), {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "4"})

    def read_from(first: str, **extra: str) -> Any:
        return (spark.readStream.format("hudi").option("hoodie.datasource.streaming.startOffset", first)
                .options(**extra).load(table).writeStream.format("memory")
                .queryName(f"archived_{len(extra)}").trigger(availableNow=True).start())

    failed = read_from(instants[0])
    with pytest.raises(Exception, match="archival already removed") as error:
        failed.awaitTermination(120)
    assert "hoodie.datasource.read.incr.fallback.fulltablescan.enable" in str(error.value)
    scanned = read_from(instants[0], **{"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"})
    scanned.awaitTermination(120)
    rows = spark.sql("SELECT id, v FROM archived_1").collect()
    assert sorted((r.id, r.v) for r in rows) == [(k, f"c{k}") for k in range(1, 5)]
