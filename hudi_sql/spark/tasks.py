"""Functions that run on executors: top-level and picklable, given a plan and Arrow data.

They never see the SparkSession or the timeline; each writes new files under unique names and
returns :class:`~hudi_sql.write.handles.WriteStatus` rows.
"""

from __future__ import annotations

__all__ = ["WRITE_STATUS_DDL", "bucket_writer", "statuses_to_arrow", "task_identity", "write_bucket_task",
           "write_partition_task", "write_status_arrow_schema"]

import json
from collections.abc import Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.keygen.auto_key import complete_auto_keys
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.spark.schema import to_arrow_schema
from hudi_sql.write.append_handle import append_handle
from hudi_sql.write.combine import latest_per_key
from hudi_sql.write.handles import (
    BUCKET_COLUMN,
    IS_DELETE_COLUMN,
    TaskIdentity,
    WriteStatus,
    create_handle,
    handle_payload,
    merge_handle,
)
from hudi_sql.write.plan import BucketType, WritePlan

WRITE_STATUS_DDL = (
    "partition_path string, file_id string, path string, prev_commit string, num_writes long, "
    "num_deletes long, num_update_writes long, num_inserts long, total_write_bytes long, file_size long, "
    "total_create_time long, total_upsert_time long, log_version int, log_offset long, base_file string, "
    "log_files string, total_log_blocks long, cdc_stats string, writer_pid long"
)

_STATUS_TYPES = {
    "partition_path": pa.string(), "file_id": pa.string(), "path": pa.string(), "prev_commit": pa.string(),
    "num_writes": pa.int64(), "num_deletes": pa.int64(), "num_update_writes": pa.int64(),
    "num_inserts": pa.int64(), "total_write_bytes": pa.int64(), "file_size": pa.int64(),
    "total_create_time": pa.int64(), "total_upsert_time": pa.int64(), "log_version": pa.int32(),
    "log_offset": pa.int64(), "base_file": pa.string(), "log_files": pa.string(), "total_log_blocks": pa.int64(),
    "cdc_stats": pa.string(), "writer_pid": pa.int64(),
}


def write_status_arrow_schema() -> pa.Schema:
    return pa.schema([pa.field(name, type_) for name, type_ in _STATUS_TYPES.items()])


def task_identity() -> TaskIdentity:
    """The running Spark task's partition, stage and attempt: its files' write token."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is None:  # pragma: no cover - only outside Spark
        return TaskIdentity(0, 0, 0)
    return TaskIdentity(ctx.partitionId(), ctx.stageId(), ctx.taskAttemptId())


def _target_schema(plan: WritePlan) -> pa.Schema:
    from pyspark.sql.types import StructType

    struct = StructType.fromJson(json.loads(plan.handle_options.spark_schema_json))
    return to_arrow_schema(struct, with_meta_fields=True)


def statuses_to_arrow(statuses: list[WriteStatus]) -> pa.Table:
    return pa.Table.from_pylist([s.as_row() for s in statuses], schema=write_status_arrow_schema())


def write_bucket_task(plan: WritePlan, records: pa.Table) -> pa.Table:
    """Write one bucket (all its records arrive in one group) and report the file written."""
    bucket = plan.bucket(int(records.column(BUCKET_COLUMN)[0].as_py()))
    records = complete_auto_keys(records, plan.handle_options.instant_time)  # tables without a record key
    task = task_identity()
    target = _target_schema(plan)
    options = plan.handle_options
    natural_deletes = plan.operation in ("DELETE", "DELETE_PREPPED")
    if plan.combine_in_task:
        records = latest_per_key(records, options.ordering_field if options.combine_by_ordering else None,
                                 handle_payload(options))
    if plan.sort_mode in ("GLOBAL_SORT", "PARTITION_SORT"):
        records = records.sort_by(RECORD_KEY_FIELD)
    if bucket.bucket_type is BucketType.INSERT:
        inserts = records.filter(_not_deleted(records))
        if inserts.num_rows == 0:
            return statuses_to_arrow([])
        statuses = create_handle(options, bucket, inserts, target, task)
    elif plan.action == "deltacommit" and not bucket.small_file_inserts and bucket.bootstrap_source_path is None:
        statuses = [append_handle(options, bucket, records, target, task, natural_deletes=natural_deletes)]
    else:
        statuses = merge_handle(options, bucket, records, target, task, match_keys=plan.operation not in (
            "INSERT", "BULK_INSERT"), natural_deletes=natural_deletes)
    return statuses_to_arrow(statuses)


def _not_deleted(records: pa.Table) -> pa.Array:
    return pc.invert(records.column(IS_DELETE_COLUMN).combine_chunks().fill_null(False))


def write_partition_task(plan: WritePlan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Write every bucket whose records are in this Spark partition, one after the other.

    The records arrive as ``mapInArrow`` streams them, buckets mixed; grouping them here rather
    than with ``groupBy(bucket).applyInArrow`` spares Spark a sort of the whole batch by bucket.
    """
    collected = list(batches)
    if not collected:
        return
    records = pa.Table.from_batches(collected)
    del collected
    buckets = records.column(BUCKET_COLUMN)
    for bucket_id in pc.unique(buckets).to_pylist():
        yield from write_bucket_task(plan, records.filter(pc.equal(buckets, bucket_id))).to_batches()


def bucket_writer(plan: WritePlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The per-partition function for ``mapInArrow`` over records partitioned by bucket."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return write_partition_task(plan, batches)

    return run
