"""Compaction execution: the Spark task that merges one file slice into a new base file.

Split from :mod:`hudi_sql.services.compaction` (planning, scheduling and commit) because this
part runs in executors, like :mod:`hudi_sql.services.clustering_exec`: :func:`compactor_task`
reads a slice (base file and logs), merges its records, and writes the new base file after its
marker; it never reads or writes the timeline and never sees the SparkSession.
"""

from __future__ import annotations

__all__ = ["STATUS_DDL", "compactor_task"]

import json
import time
from collections.abc import Callable, Iterator

import pyarrow as pa
from pyspark.sql.types import StructType

from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.log.scanner import scan_file_slice_logs
from hudi_sql.model.file_names import BaseFileName, make_write_token
from hudi_sql.model.payload import Payload
from hudi_sql.model.schema import FILE_NAME_FIELD, RECORD_KEY_FIELD
from hudi_sql.read.file_group_reader import FileSliceSpec, read_file_slice, stored_logs
from hudi_sql.spark.schema import to_arrow_schema
from hudi_sql.storage.layout import TableLayout
from hudi_sql.write.handles import write_base_file
from hudi_sql.write.markers import IOType, Marker, write_direct_marker
from hudi_sql.write.plan import HandleOptions

STATUS_DDL = ("partition_path string, file_id string, path string, prev_commit string, num_writes long, "
              "file_size long, log_files long, log_bytes long, log_records long, log_blocks long, "
              "corrupt_blocks long, rollback_blocks long, millis long")


def compactor_task(options: HandleOptions, completed: tuple[str, ...], timeline_start: str | None,
                   ordering_field: str | None, payload: Payload, key_spec: RecordKeySpec | None = None,
                   ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The task function: one input row per file slice (its base file and log paths), one output
    row (:data:`STATUS_DDL`) per base file written.

    Each slice's records are merged as a snapshot read at *instant_time* would merge them (records
    keep their commit time and sequence number), then written as ``<fileId>_<token>_<instant>.parquet``
    after its CREATE marker, with the table's file settings (codec, bloom filter, sizes). A table
    without meta fields (*key_spec*: its key fields) gets base files as its writes make them: null
    meta columns, no bloom filter of keys.
    """

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext  # executor-side: the task's ids name its files

        ctx = TaskContext.get()
        token = make_write_token(ctx.partitionId(), ctx.stageId(), ctx.taskAttemptId()) if ctx else "0-0-0"
        layout = TableLayout.of(options.base_path)
        struct = StructType.fromJson(json.loads(options.spark_schema_json))
        target = to_arrow_schema(struct, with_meta_fields=True)
        storage, instant_time = options.storage, options.instant_time
        for batch in batches:
            for row in batch.to_pylist():
                started = time.time()
                logs = tuple(json.loads(row["log_paths"]))
                spec = FileSliceSpec(row["partition_path"], row["file_id"], row["base_path"], logs)
                merged = read_file_slice(spec, target, completed_instants=completed, max_instant=instant_time,
                                         timeline_start=timeline_start, ordering_field=ordering_field,
                                         payload=payload, storage=storage, key_spec=key_spec)
                scan = scan_file_slice_logs(stored_logs(storage, logs), completed_instants=completed,
                                            max_instant=instant_time, timeline_start=timeline_start)
                name = BaseFileName(row["file_id"], token, instant_time).name
                write_direct_marker(storage, layout, instant_time, Marker(row["partition_path"], name, IOType.CREATE))
                path = layout.file_path(row["partition_path"], name)
                names = pa.array([name] * merged.num_rows, pa.string())
                merged = merged.set_column(merged.schema.get_field_index(FILE_NAME_FIELD), FILE_NAME_FIELD, names)
                size = write_base_file(storage, path, merged, options, merged.column(RECORD_KEY_FIELD).combine_chunks())
                log_records = sum(b.records.num_rows if hasattr(b.records, "num_rows") else len(b.records)
                                  for b in scan.blocks)
                yield pa.RecordBatch.from_pylist([{
                    "partition_path": row["partition_path"], "file_id": row["file_id"], "path": layout.relative(path),
                    "prev_commit": row["base_instant"], "num_writes": merged.num_rows, "file_size": size,
                    "log_files": len(logs), "log_bytes": sum(storage.size(p) for p in logs),
                    "log_records": log_records, "log_blocks": scan.total_blocks,
                   "corrupt_blocks": scan.corrupt_blocks, "rollback_blocks": scan.rollback_blocks,
                    "millis": int((time.time() - started) * 1000),
                }])

    return run
