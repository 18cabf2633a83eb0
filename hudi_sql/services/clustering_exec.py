"""Clustering execution: the Spark task that rewrites one clustering group, and its options.

Split from :mod:`hudi_sql.services.clustering` (planning, scheduling and commit) because this
part runs in executors: :func:`clusterer_task` reads a group's slices, sorts the rows and writes
new file groups after their markers; it never reads or writes the timeline.
"""

from __future__ import annotations

__all__ = ["STATUS_DDL", "clusterer_task", "handle_options"]

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

import pyarrow as pa

from hudi_sql.config.resolve import Resolved
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.model.payload import Payload
from hudi_sql.model.schema import COMMIT_SEQNO_FIELD, COMMIT_TIME_FIELD
from hudi_sql.read.file_group_reader import FileSliceSpec, read_file_slice
from hudi_sql.spark.schema import to_arrow_schema
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.parquet import FileWriteSettings
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.handles import TaskIdentity, conform, write_rolling
from hudi_sql.write.markers import IOType
from hudi_sql.write.plan import HandleOptions

STATUS_DDL = ("partition_path string, file_id string, path string, num_writes long, file_size long, "
               "millis long")


def clusterer_task(base_path: str, options_json: str, schema_json: str, sort_columns: tuple[str, ...],
               preserve_metadata: bool, completed: tuple[str, ...], timeline_start: str | None,
               ordering_field: str | None, payload: Payload, key_spec: RecordKeySpec | None = None,
               ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The task function: one input row per clustering group, one output row per file written
    (*key_spec*: a table without meta fields, whose slices merge by their key fields)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext
        from pyspark.sql.types import StructType

        ctx = TaskContext.get()
        task = TaskIdentity(ctx.partitionId(), ctx.stageId(), ctx.taskAttemptId()) if ctx \
            else TaskIdentity(0, 0, 0)
        layout = TableLayout.of(base_path)
        target = to_arrow_schema(StructType.fromJson(json.loads(schema_json)), with_meta_fields=True)
        options = HandleOptions.from_json(options_json)
        for batch in batches:
            for row in batch.to_pylist():
                started = time.time()
                parts = []
                for partition, file_id, base, logs in json.loads(row["slices"]):
                    if logs:
                        parts.append(read_file_slice(
                            FileSliceSpec(partition, file_id, base, tuple(logs)), target,
                            completed_instants=completed, max_instant=options.instant_time,
                            timeline_start=timeline_start, ordering_field=ordering_field,
                            payload=payload, storage=options.storage, key_spec=key_spec))
                    elif base:
                        parts.append(conform(options.storage.read_parquet(base), target))
                rows = pa.concat_tables(parts) if parts else target.empty_table()
                if sort_columns and rows.num_rows:
                    rows = rows.sort_by([(c, "ascending") for c in sort_columns], null_placement="at_start")
                if not preserve_metadata and options.populate_meta_fields:
                    rows = _restamp(rows, options.instant_time, task.partition_id)
                file_ids = json.loads(row["file_ids"])
                chunks = min(len(file_ids), rows.num_rows)
                for index in range(chunks):
                    lo, hi = index * rows.num_rows // chunks, (index + 1) * rows.num_rows // chunks
                    for written in write_rolling(options, row["partition_path"], file_ids[index], task,
                                                 IOType.CREATE, rows.slice(lo, hi - lo)):
                        yield pa.RecordBatch.from_pylist([{
                            "partition_path": row["partition_path"], "file_id": written.file_id,
                            "path": layout.relative(written.path), "num_writes": written.num_rows,
                            "file_size": written.size, "millis": int((time.time() - started) * 1000),
                        }])

    return run


def _restamp(rows: pa.Table, instant_time: str, partition_id: int) -> pa.Table:
    """Rows as written by this instant (``preserveHoodieMetadata`` false): new commit time and seqno."""
    n = rows.num_rows
    rows = rows.set_column(rows.schema.get_field_index(COMMIT_TIME_FIELD), COMMIT_TIME_FIELD,
                           pa.array([instant_time] * n, pa.string()))
    return rows.set_column(rows.schema.get_field_index(COMMIT_SEQNO_FIELD), COMMIT_SEQNO_FIELD,
                           pa.array([f"{instant_time}_{partition_id}_{i}" for i in range(n)], pa.string()))


def handle_options(meta: TableMetaClient, options: Resolved, instant_time: str, schema_json: str,
                   spark_schema_json: str) -> dict[str, Any]:
    """The clusterer's handle options: the write's file settings, files sized by the clustering's target."""
    target = options.clustering.target_file_max_bytes
    return asdict(HandleOptions.for_table(
        meta, instant_time=instant_time, avro_schema=schema_json, spark_schema_json=spark_schema_json,
        file=FileWriteSettings.from_config(options.write, max_file_size=target)))
