"""Skeleton files of a metadata-only bootstrap: what one Spark task writes per source file.

A metadata-only bootstrap leaves every Parquet file of the source where it is, and gives it a
file group of the new table whose base file, the *skeleton*, holds only the five meta columns:
one row per source row, in the source file's row order, so that a reader can put the two side
by side (:mod:`hudi_sql.read.bootstrap_read`). As Apache Hudi lays it out:

* the file id is a bare UUID (no ``-0`` counter) and the name carries the task's write token
  and the bootstrap instant ``00000000000001``;
* the partition path is the source file's folder relative to the source (Hudi's identity
  partition-path translator), which is also ``_hoodie_partition_path``;
* ``_hoodie_record_key`` is computed from the source row by the table's key generator, and the
  footer carries the bloom filter and key range of those keys like any base file's, so the
  bloom and simple indexes find keys in skeletons without reading the source;
* the sequence numbers are ``00000000000001_<task partition>_<row>``.

A source row whose record key is null or empty fails the task, naming the file: Apache Hudi
refuses it too, and a skeleton without keys could never be updated.
"""

from __future__ import annotations

__all__ = ["SkeletonSpec", "skeleton_writer", "spec_json", "write_skeleton"]

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_sql.errors import HudiKeyError
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.schema import META_FIELDS, RECORD_KEY_FIELD
from hudi_sql.spark.tasks import statuses_to_arrow, task_identity
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.write.handles import (
    TaskIdentity,
    WriteStatus,
    ensure_partition_metadata,
    meta_columns,
    write_base_file,
    write_marker,
)
from hudi_sql.write.markers import IOType, Marker
from hudi_sql.write.plan import HandleOptions


@dataclass(frozen=True)
class SkeletonSpec:
    """One source file and the file group it becomes."""

    source_file: str  # absolute path or URI
    partition_path: str  # the table's partition: the source folder, relative
    file_id: str
    #: the source folder's partition column values, for key fields the files do not hold
    partition_values: tuple[tuple[str, str], ...] = ()


def _key_columns(spec: SkeletonSpec, fields: Sequence[str], storage: Storage) -> pa.Table:
    """The source file's columns the record key needs (a Hive-style source keeps its partition
    columns only in the folder names, so those come from *spec*'s values)."""
    top = {f.split(".", 1)[0] for f in fields}
    with storage.open_input(spec.source_file) as stream:
        source = pq.ParquetFile(stream)  # one open: the footer's schema, then the key columns
        present = set(source.schema_arrow.names)
        table = source.read(columns=sorted(top & present))
    for name, value in spec.partition_values:
        if name in top and name not in present:
            table = table.append_column(name, pa.array([value] * table.num_rows, pa.string()))
    return table


def write_skeleton(options: HandleOptions, spec: SkeletonSpec, task: TaskIdentity) -> WriteStatus:
    """Write the skeleton of one source file (marker first, as every handle does).

    Raises:
        HudiKeyError: a source row has a null or empty record key.
    """
    started = time.time()
    storage = options.storage
    layout = TableLayout.of(options.base_path)
    ensure_partition_metadata(storage, layout, spec.partition_path, options.instant_time)
    keys = arrow_record_keys(_key_columns(spec, options.record_key_fields, storage),
                             RecordKeySpec(options.record_key_fields, composite=options.complex_keys))
    nulls = keys.null_count
    if nulls:
        raise HudiKeyError(
            f"{nulls} row(s) of the bootstrap source file '{spec.source_file}' have a null or empty record key "
            f"(field{'s' if len(options.record_key_fields) > 1 else ''} {', '.join(options.record_key_fields)}).",
            help="fix those rows in the source, or choose key fields every row fills; nothing was bootstrapped")
    name = BaseFileName(spec.file_id, task.write_token, options.instant_time).name
    write_marker(options, layout, storage, Marker(spec.partition_path, name, IOType.CREATE))
    meta = meta_columns(options, keys, spec.partition_path, name, task.partition_id)
    table = pa.table({field: meta[field] for field in META_FIELDS})
    path = layout.file_path(spec.partition_path, name)
    size = write_base_file(storage, path, table, options, table.column(RECORD_KEY_FIELD).combine_chunks())
    return WriteStatus(
        partition_path=spec.partition_path, file_id=spec.file_id, path=layout.relative(path), prev_commit="null",
        num_writes=table.num_rows, num_deletes=0, num_update_writes=0, num_inserts=table.num_rows,
        total_write_bytes=size, file_size=size, total_create_time=int((time.time() - started) * 1000))


def skeleton_writer(options: HandleOptions) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function over rows of :class:`SkeletonSpec` (``spec`` as JSON): one
    skeleton per row, one write status out per skeleton."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        task = task_identity()
        for batch in batches:
            statuses = []
            for text in pc.cast(batch.column(0), pa.string()).to_pylist():
                raw = json.loads(text)
                spec = SkeletonSpec(raw["source_file"], raw["partition_path"], raw["file_id"],
                                    tuple(tuple(pair) for pair in raw["partition_values"]))
                statuses.append(write_skeleton(options, spec, task))
            yield from statuses_to_arrow(statuses).to_batches()

    return run


def spec_json(spec: SkeletonSpec) -> str:
    """*spec* as the JSON :func:`skeleton_writer` reads."""
    return json.dumps(asdict(spec))
