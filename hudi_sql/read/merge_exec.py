"""Spark side of merged reads: one task merges a few file slices with :func:`read_file_slice`.

Only slices that have log files come here (the plan sends the rest to Spark's Parquet reader),
so the Python merge runs for exactly the file groups that need it; on a store Spark's own
reader cannot reach (no Hadoop connector for its scheme) the base-only files come here too.
"""

from __future__ import annotations

__all__ = ["read_merged_slices", "slice_specs"]

import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_sql.model.payload import Payload
from hudi_sql.read.file_group_reader import FileSliceSpec, read_file_slice
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.spark.schema import to_arrow_schema
from hudi_sql.storage.fs import Storage

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from hudi_sql.keygen.record_key import RecordKeySpec
    from hudi_sql.read.plan import ReadPlan
    from hudi_sql.table.meta_client import TableMetaClient


def slice_specs(plan: ReadPlan) -> list[FileSliceSpec]:
    return [
        FileSliceSpec(s.partition_path, s.file_id, s.base_file.path if s.base_file else None,
                      tuple(lf.path for lf in s.log_files))
        for s in plan.merge_slices
    ]


#: Spark's switch for reading past damaged files; here it also skips log blocks that do not decode.
IGNORE_CORRUPT_FILES = "spark.sql.files.ignoreCorruptFiles"


def _merger(target: pa.Schema, completed: tuple[str, ...], max_instant: str | None, timeline_start: str | None,
            ordering_field: str | None, payload: Payload, skip_undecodable_blocks: bool, storage: Storage,
            key_spec: RecordKeySpec | None) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for row in batch.to_pylist():
                spec = FileSliceSpec(row["partition_path"], row["file_id"], row["base_file_path"],
                                     tuple(json.loads(row["log_file_paths"])))
                table = read_file_slice(spec, target, completed_instants=completed, max_instant=max_instant,
                                        timeline_start=timeline_start, ordering_field=ordering_field,
                                        payload=payload, storage=storage,
                                        skip_undecodable_blocks=skip_undecodable_blocks, key_spec=key_spec)
                yield from table.to_batches()

    return run


def read_merged_slices(spark: SparkSession, meta: TableMetaClient, plan: ReadPlan, struct: StructType, *,
                       base_files: Sequence[str] = ()) -> DataFrame:
    """The plan's merged slices, and *base_files* read whole (files Spark's own reader cannot reach)."""
    specs = slice_specs(plan) + [FileSliceSpec("", "", path, ()) for path in base_files]
    rows = [(s.partition_path, s.file_id, s.base_file_path, json.dumps(list(s.log_file_paths))) for s in specs]
    frame = task_frame(
        spark, rows, "partition_path string, file_id string, base_file_path string, log_file_paths string")
    target = to_arrow_schema(struct)
    ordering_field, payload = meta.record_payload()  # payload class (v6) or merge mode (v8)
    first = meta.timeline.write_timeline().first
    # As Spark skips a damaged Parquet file under this setting, a log block that does not decode
    # is skipped (with a warning naming it) instead of failing the query.
    skip = (spark.conf.get(IGNORE_CORRUPT_FILES, "false") or "false").strip().lower() == "true"
    merger = _merger(target, plan.completed_instants, plan.as_of, first.instant_time if first else None,
                     ordering_field, payload, skip, meta.storage, meta.recomputed_key_spec())
    return frame.mapInArrow(merger, struct)
