"""AppendHandle: a Merge-On-Read update appends log blocks to a file slice (Hudi's ``HoodieAppendHandle``).

One task writes one *new* log file for the slice (version = the highest existing + 1; we never
append to an existing file, so a torn write can only ever damage our own file), holding one
data block with the upserted rows and, if any, one delete block after it, both headed
``INSTANT_TIME = <deltacommit>``. A partial update (MERGE INTO's ``UPDATE SET`` of some columns,
:attr:`~hudi_sql.write.plan.HandleOptions.partial_columns`) writes only those columns and the meta
fields, with the header ``IS_PARTIAL=true``, as Apache Hudi 1.x does. The marker is an APPEND marker named like a base file of
the slice, as Hudi 0.14 names it, so rollback finds the slice and cancels our blocks with a
command block.

Table version 8 names the log file by the deltacommit writing it (``.<file id>_<deltacommit>.log.1_<token>``),
and readers place it in a slice by its completion time; the marker carries the deltacommit in
the same way, and rollback deletes the file instead of cancelling it (as Apache Hudi 1.x, whose
rollback of such a marker deletes the log file named by the failed instant).
"""

from __future__ import annotations

__all__ = ["append_handle"]

import json
import os
import time

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import StructType

from hudi_sql.log.block import DeleteRecord, ordering_values
from hudi_sql.log.format import encode_avro_data_block, encode_delete_block, encode_parquet_data_block
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.schema import META_FIELDS, PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.write.handles import (
    IS_DELETE_COLUMN,
    TaskIdentity,
    WriteStatus,
    _with_meta,
    meta_columns,
    write_marker,
)
from hudi_sql.write.markers import IOType, Marker
from hudi_sql.write.plan import BucketInfo, HandleOptions


def _group_logs(storage: Storage, layout: TableLayout, bucket: BucketInfo) -> list[LogFileName]:
    """The log files of the bucket's file group (one listing of its partition)."""
    return [name for status in storage.list(layout.partition_dir(bucket.partition_path))
            if (name := LogFileName.try_parse(status.name)) is not None and name.file_id == bucket.file_id]


def append_handle(options: HandleOptions, bucket: BucketInfo, records: pa.Table, target: pa.Schema,
                  task: TaskIdentity, *, natural_deletes: bool = False) -> WriteStatus:
    """Append one log file to the bucket's slice.

    Args:
        natural_deletes: the delete *operation*: deletes are written with ``IntWrapper(0)``
            and apply whatever the stored ordering value (Java's ``EmptyHoodieRecordPayload``);
            ``_hoodie_is_deleted`` rows carry their ordering value and compete on it.
    """
    started = time.time()
    storage = options.storage
    layout = TableLayout.of(options.base_path)
    # the instant in the log file's name: the slice's base (version 6) or this deltacommit (8)
    base_instant = (options.instant_time if options.log_files_named_by_instant
                    else bucket.append_base_instant or bucket.prev_commit)
    marker_name = BaseFileName(bucket.file_id, task.write_token, base_instant).name
    write_marker(options, layout, storage, Marker(bucket.partition_path, marker_name, IOType.APPEND))
    group_logs = _group_logs(storage, layout, bucket)
    named_alike = [n for n in group_logs if n.base_instant == base_instant]
    log_name = LogFileName(bucket.file_id, base_instant, max((n.version for n in named_alike), default=0) + 1,
                           task.write_token)
    # The stat lists the slice's log files, this one included, and names the slice's base instant:
    # a version 6 log file is named by that base; from version 8 on each is named by its deltacommit,
    # the slice's being those at or after its base (as Apache Hudi 1.2 writes the stat; its change-feed
    # reader takes the slice before the write from it).
    prev_commit = base_instant
    if options.log_files_named_by_instant:
        known = None if bucket.prev_commit in ("", "null") else bucket.prev_commit
        prev_commit = bucket.append_base_instant or known or base_instant
    slice_logs = [n for n in group_logs if n.base_instant >= prev_commit] if options.log_files_named_by_instant \
        else named_alike
    all_logs = [n.name for n in sorted(slice_logs)] + [log_name.name]
    path = layout.file_path(bucket.partition_path, log_name.name)

    is_delete = records.column(IS_DELETE_COLUMN).combine_chunks().fill_null(False)
    upserts = records.filter(pc.invert(is_delete))
    deletes = records.filter(is_delete)
    struct = StructType.fromJson(json.loads(options.spark_schema_json))
    schema_json = avro_schema_json(struct, options.table_name, with_meta_fields=True)
    blocks: list[bytes] = []
    if upserts.num_rows:
        keys = upserts.column(RECORD_KEY_FIELD).combine_chunks()
        meta = meta_columns(options, keys, bucket.partition_path, bucket.file_id, task.partition_id)
        rows = _with_meta(upserts, target, meta)
        block_schema, partial = schema_json, bool(options.partial_columns)
        if partial:  # the meta fields and the updated columns, in the table's order (Apache Hudi 1.x's block)
            kept = set(options.partial_columns)
            fields = [f for f in struct.fields if f.name in kept]
            block_schema = avro_schema_json(StructType(fields), options.table_name, with_meta_fields=True)
            rows = rows.select([*META_FIELDS, *[f.name for f in fields]])
        if options.log_data_block_format == "parquet":
            blocks.append(encode_parquet_data_block(options.instant_time, block_schema, rows, partial=partial))
        else:
            blocks.append(encode_avro_data_block(options.instant_time, block_schema, rows, partial=partial))
    if deletes.num_rows:
        ordering = options.ordering_field if not natural_deletes else None
        values = (ordering_values(deletes.column(ordering)) if ordering and ordering in deletes.column_names
                  else [None] * deletes.num_rows)
        delete_records = [
            DeleteRecord(key, partition, value)
            for key, partition, value in zip(deletes.column(RECORD_KEY_FIELD).to_pylist(),
                                             deletes.column(PARTITION_PATH_FIELD).to_pylist(), values, strict=True)
        ]
        blocks.append(encode_delete_block(options.instant_time, schema_json, delete_records))
    data = b"".join(blocks)
    storage.write_bytes(path, data, overwrite=False)
    size = len(data)
    return WriteStatus(
        partition_path=bucket.partition_path, file_id=bucket.file_id, path=layout.relative(path),
        prev_commit=prev_commit, num_writes=upserts.num_rows, num_deletes=deletes.num_rows,
        num_update_writes=upserts.num_rows, num_inserts=0, total_write_bytes=size, file_size=size,
        total_upsert_time=int((time.time() - started) * 1000), log_version=log_name.version, log_offset=0,
        base_file=os.path.basename(bucket.base_file_path) if bucket.base_file_path else "",
        log_files=json.dumps(all_logs), total_log_blocks=len(blocks),
    )
