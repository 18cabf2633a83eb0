"""Reads of metadata-only bootstrap slices: skeleton and source file stitched row by row.

A metadata-only bootstrap (Apache Hudi's default) leaves every source file where it is and
gives it a file group whose base file is a *skeleton*: the five meta columns, one row per
source row, in the source file's row order. The bootstrap index
(:mod:`hudi_sql.table.bootstrap_index`) names each group's source file. A read puts the two
side by side: the meta columns from the skeleton, the data columns from the source file, and
the partition columns, which a Hive-style source keeps only in its folder names, from the
source partition path. The two files must hold the same number of rows; a pair that does not
is damaged, and the read fails naming both files.

Writes stitch the same way: an upsert that touches a skeleton's file group merges into the
stitched rows and writes a regular base file (:func:`~hudi_sql.write.handles.merge_handle`).
Slices whose skeleton has log files on top (Merge-On-Read updates Apache Hudi appended to a
bootstrapped group) are refused by name (:func:`skeleton_sources`).
"""

from __future__ import annotations

__all__ = ["BootstrapSlice", "bootstrap_slices", "read_bootstrap_slice", "read_bootstrap_slices",
           "skeleton_sources", "source_partition_values"]

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.file_group import FileSlice
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT
from hudi_sql.model.schema import META_FIELDS, conform
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.spark.schema import to_arrow_schema
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.uri import qualify
from hudi_sql.table.bootstrap_index import read_bootstrap_index
from hudi_sql.table.fs_view import refuse_bootstrap_skeletons

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class BootstrapSlice:
    """One skeleton and its source file (local paths), and the source partition's column values."""

    skeleton_path: str
    source_path: str
    partition_values: tuple[tuple[str, str], ...] = ()


def source_partition_values(source_partition: str, fields: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """Column values a source folder path carries: ``k=v`` segments by name, else by position."""
    if not source_partition or not fields:
        return ()
    segments = source_partition.split("/")
    if all("=" in s for s in segments):
        named = dict(s.split("=", 1) for s in segments)
        return tuple((f, named[f]) for f in fields if f in named)
    return tuple(zip(fields, segments)) if len(segments) == len(fields) else ()


def skeleton_sources(meta: TableMetaClient, slices: Iterable[FileSlice], what: str) -> dict[tuple[str, str], BootstrapSlice]:
    """The skeletons among *slices*, by (partition, file id), each with its source file.

    Raises:
        UnsupportedFeatureError: a skeleton with log files on top (Merge-On-Read updates Apache
            Hudi appended; hudi-sql does not merge logs into stitched rows), or one the
            bootstrap index does not name; *what* is the operation refused.
    """
    skeletons = [s for s in slices if s.base_file is not None and s.base_instant_time == METADATA_BOOTSTRAP_INSTANT]
    if not skeletons:
        return {}
    index = read_bootstrap_index(meta.base_path, storage=meta.storage)
    resolved: dict[tuple[str, str], BootstrapSlice] = {}
    for file_slice in skeletons:
        mapping = index.file_mapping(file_slice.partition_path, file_slice.file_id) if index else None
        if mapping is None:
            refuse_bootstrap_skeletons([file_slice], meta.table_name, what, "which the bootstrap index does not name")
        if file_slice.has_logs:
            refuse_bootstrap_skeletons([file_slice], meta.table_name, what,
                                       "with log files on top, which hudi-sql does not merge into stitched rows")
        assert mapping is not None and file_slice.base_file is not None
        resolved[(file_slice.partition_path, file_slice.file_id)] = BootstrapSlice(
            file_slice.base_file.path, qualify(mapping.source_file.path),
            source_partition_values(mapping.source_partition_path, meta.partition_fields))
    return resolved


def bootstrap_slices(meta: TableMetaClient, slices: Sequence[FileSlice]) -> tuple[list[FileSlice], list[BootstrapSlice]]:
    """Split *slices* into the others and the skeletons the bootstrap index resolves.

    Raises:
        UnsupportedFeatureError: as :func:`skeleton_sources`.
    """
    resolved = skeleton_sources(meta, slices, "read")
    others = [s for s in slices if (s.partition_path, s.file_id) not in resolved]
    return others, list(resolved.values())


def read_bootstrap_slice(spec: BootstrapSlice, target: pa.Schema, storage: Storage) -> pa.Table:
    """The rows of one skeleton and its source file, with exactly *target*'s columns."""
    skeleton = storage.read_parquet(spec.skeleton_path, columns=list(META_FIELDS))
    source = storage.read_parquet(spec.source_path)
    if skeleton.num_rows != source.num_rows:
        raise HudiFileFormatError(
            f"Skeleton '{spec.skeleton_path}' has {skeleton.num_rows} rows, its source file '{spec.source_path}' "
            f"{source.num_rows}: a metadata-only bootstrap pairs them row by row.",
            help="the source file changed after the bootstrap; bootstrap the table again")
    columns = {name: skeleton.column(name) for name in META_FIELDS}
    columns.update({name: source.column(name) for name in source.column_names if name not in columns})
    for name, value in spec.partition_values:
        if name not in source.column_names:
            columns[name] = pa.array([value] * source.num_rows, pa.string())
    return conform(pa.table(columns), target)


def _stitcher(target: pa.Schema, storage: Storage) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for row in batch.to_pylist():
                spec = BootstrapSlice(row["skeleton"], row["source"], tuple(map(tuple, json.loads(row["values"]))))
                yield from read_bootstrap_slice(spec, target, storage).to_batches()

    return run


def read_bootstrap_slices(spark: SparkSession, slices: Sequence[BootstrapSlice], struct: StructType,
                          storage: Storage) -> DataFrame:
    """The stitched rows of *slices*, one Spark task per few slices (the driver reads no rows)."""
    rows = [(s.skeleton_path, s.source_path, json.dumps(s.partition_values)) for s in slices]
    frame = task_frame(spark, rows, "skeleton string, source string, values string")
    return frame.mapInArrow(_stitcher(to_arrow_schema(struct), storage), struct)
