"""Running the metadata table's per-file-group work: in Spark tasks, or in place when it is small.

The index partitions' records are made and written per file group
(:func:`hudi_sql.metadata.writer.index_records.run_group_task`) and their compaction merges per file
slice; each unit reads and writes files only under paths it was given, so it runs in a Spark
task like any write handle. A change touching a few files is done on the driver instead: a Spark
job costs more to schedule than reading a handful of footers.
"""

from __future__ import annotations

__all__ = ["DRIVER_WORK_LIMIT", "CompactionResult", "CompactionUnit", "compact_unit", "run_units"]

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.reader import BlockFilter, MetadataFileSlice, read_file_slice
from hudi_sql.metadata.writer.file_writer import encode_base_file
from hudi_sql.storage.fs import Storage

T = TypeVar("T")
R = TypeVar("R")

#: Up to this many units of work (weighed by the caller) run on the driver.
DRIVER_WORK_LIMIT = 16


def run_units(units: Sequence[T], run: Callable[[T], R], *, weight: int) -> list[R]:
    """``[run(u) for u in units]``, in Spark tasks (one per unit) when *weight* (files to read)
    exceeds :data:`DRIVER_WORK_LIMIT` and a Spark session is active, else here.

    *run* must be a module-level function (it is pickled to the executors).
    """
    if not units:
        return []
    spark = None
    if weight > DRIVER_WORK_LIMIT and len(units) > 0:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    if spark is None:
        return [run(unit) for unit in units]
    context = spark.sparkContext
    context.setJobDescription(f"Hudi metadata table: {len(units)} file groups")
    try:
        return context.parallelize(list(units), len(units)).map(run).collect()
    finally:
        context.setJobDescription(None)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CompactionUnit:
    """One file slice of the metadata table to compact into the base file *base_file_name*."""

    partition: MetadataPartition
    folder: str
    file_slice: MetadataFileSlice
    blocks_counted: BlockFilter
    base_file_name: str
    storage: Storage = field(default_factory=Storage)  # the table's store, with the driver's credentials


@dataclass(frozen=True)
class CompactionResult:
    """What a :class:`CompactionUnit` wrote: *records* records in *size* bytes (nothing when 0)."""

    partition: MetadataPartition
    file_slice: MetadataFileSlice
    base_file_name: str
    size: int
    records: int
    log_bytes: int


def compact_unit(unit: CompactionUnit) -> CompactionResult:
    """Merge the slice's base file and counted log blocks as readers do, tombstones kept, and write
    them as the new base file (replacing what an interrupted attempt left)."""
    storage = unit.storage
    records = read_file_slice(storage, unit.folder, unit.partition, unit.file_slice, unit.blocks_counted)
    log_bytes = sum(storage.size(storage.join(unit.folder, n)) for n in unit.file_slice.log_files
                    if storage.exists(storage.join(unit.folder, n)))
    if not records:
        return CompactionResult(unit.partition, unit.file_slice, unit.base_file_name, 0, 0, log_bytes)
    data = encode_base_file(records, unit.base_file_name)
    storage.write_bytes(storage.join(unit.folder, unit.base_file_name), data, overwrite=True)
    return CompactionResult(unit.partition, unit.file_slice, unit.base_file_name, len(data), len(records), log_bytes)
