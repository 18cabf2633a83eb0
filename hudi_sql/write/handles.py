"""Write handles: what one Spark task does for one output file group (pyarrow, no Spark).

* :func:`create_handle` writes a new base file from inserts (Hudi's ``HoodieCreateHandle``).
* :func:`merge_handle` rewrites a file group's latest base file with updates, deletes and
  inserts (``HoodieMergeHandle``): untouched rows keep their meta values but take the new
  ``_hoodie_file_name``; updated rows get the new commit time and sequence number. A
  metadata-only bootstrap skeleton is read stitched to its source file, so the new base file
  is a regular one.

Both write the marker first, then the data file under a name carrying the task's write token,
and return one :class:`WriteStatus`. Tasks only ever create new files.

Incoming records arrive as an Arrow table with the table's data columns plus
``_hoodie_record_key``, ``_hoodie_partition_path`` and ``_hoodie_is_delete``.
"""

from __future__ import annotations

__all__ = [
    "BUCKET_COLUMN",
    "IS_DELETE_COLUMN",
    "TaskIdentity",
    "WriteStatus",
    "WrittenFile",
    "conform",
    "create_handle",
    "ensure_partition_metadata",
    "handle_payload",
    "merge_handle",
    "meta_columns",
    "write_base_file",
    "write_marker",
    "write_rolling",
]

import json
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_sql.index.bloom_footer import footer_metadata
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.model.file_names import PARTITION_METADATA_FILE, BaseFileName, make_write_token
from hudi_sql.model.payload import Payload, merge_columns, merge_with_stored
from hudi_sql.model.schema import (
    COMMIT_SEQNO_FIELD,
    COMMIT_TIME_FIELD,
    FILE_NAME_FIELD,
    META_FIELDS,
    PARTITION_PATH_FIELD,
    RECORD_KEY_FIELD,
    conform,
)
from hudi_sql.read.bootstrap_read import BootstrapSlice, read_bootstrap_slice
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.properties import PartitionMetadata
from hudi_sql.write.cdc_log import CdcChanges, write_cdc_log
from hudi_sql.write.marker_server import post_marker
from hudi_sql.write.markers import IOType, Marker, write_direct_marker
from hudi_sql.write.plan import BucketInfo, HandleOptions

IS_DELETE_COLUMN = "_hoodie_is_delete"
BUCKET_COLUMN = "_hoodie_bucket"
SPARK_ROW_METADATA = b"org.apache.spark.sql.parquet.row.metadata"


@dataclass(frozen=True)
class TaskIdentity:
    partition_id: int
    stage_id: int
    attempt_id: int

    @property
    def write_token(self) -> str:
        return make_write_token(self.partition_id, self.stage_id, self.attempt_id)


@dataclass(frozen=True)
class WriteStatus:
    """What a task reports for one written file (a ``WriteStat`` plus task facts)."""

    partition_path: str
    file_id: str
    path: str  # relative to the base path
    prev_commit: str
    num_writes: int
    num_deletes: int
    num_update_writes: int
    num_inserts: int
    total_write_bytes: int
    file_size: int
    total_create_time: int = 0
    total_upsert_time: int = 0
    log_version: int = -1
    log_offset: int = -1
    base_file: str = ""
    log_files: str = "[]"  # JSON list of file names
    total_log_blocks: int = 0
    cdc_stats: str = "{}"  # JSON {CDC log path relative to the base path: size}, when the write logged changes
    writer_pid: int = field(default_factory=os.getpid)  # diagnostics: the process that wrote the file

    def as_row(self) -> dict[str, object]:
        return asdict(self)


def ensure_partition_metadata(storage: Storage, layout: TableLayout, partition_path: str, instant_time: str) -> None:
    """Write ``.hoodie_partition_metadata`` if the partition lacks it (the first writer wins)."""
    target = os.path.join(layout.partition_dir(partition_path), PARTITION_METADATA_FILE)
    if not storage.exists(target):
        storage.write_bytes(target, PartitionMetadata.for_partition(instant_time, partition_path).to_bytes())


def meta_columns(options: HandleOptions, keys: pa.Array, partition_path: str, file_name: str,
                 partition_id: int, seq_start: int = 0) -> dict[str, pa.Array]:
    """The meta columns of *keys*' rows as this commit writes them (``options.instant_time``)."""
    n = len(keys)
    if not options.populate_meta_fields:
        nulls = pa.nulls(n, pa.string())
        return {COMMIT_TIME_FIELD: nulls, COMMIT_SEQNO_FIELD: nulls, RECORD_KEY_FIELD: nulls,
                PARTITION_PATH_FIELD: nulls, FILE_NAME_FIELD: pa.repeat(pa.scalar(file_name), n)}
    # Hudi's sequence number: <instant>_<task partition>_<running record count>.
    counters = pc.cast(pa.array(np.arange(seq_start, seq_start + n, dtype=np.int64)), pa.string())
    prefix = pa.repeat(pa.scalar(f"{options.instant_time}_{partition_id}_"), n)
    return {
        COMMIT_TIME_FIELD: pa.repeat(pa.scalar(options.instant_time), n),
        COMMIT_SEQNO_FIELD: pc.binary_join_element_wise(prefix, counters, ""),
        RECORD_KEY_FIELD: keys.cast(pa.string()),
        PARTITION_PATH_FIELD: pa.repeat(pa.scalar(partition_path), n),
        FILE_NAME_FIELD: pa.repeat(pa.scalar(file_name), n),
    }


def _with_meta(data: pa.Table, target: pa.Schema, meta: dict[str, pa.Array]) -> pa.Table:
    columns = []
    for column in target:
        if column.name in meta:
            columns.append(meta[column.name])
        elif column.name in data.column_names:
            columns.append(_cast(data.column(column.name), column.type))
        else:
            columns.append(pa.nulls(data.num_rows, column.type))
    return pa.Table.from_arrays(columns, schema=target)


def _cast(column: pa.ChunkedArray | pa.Array, target: pa.DataType) -> pa.ChunkedArray | pa.Array:
    return column if column.type == target else column.cast(target)


def write_base_file(storage: Storage, path: str, table: pa.Table, options: HandleOptions,
                    record_keys: pa.Array | None) -> int:
    """Write one parquet base file with Hudi's footer keys; returns its size in bytes."""
    with storage.open_output(path) as sink:
        with pq.ParquetWriter(sink, table.schema, **options.file.writer_options(table)) as writer:
            writer.write_table(table, row_group_size=max(1, min(table.num_rows, _rows_per_group(table, options))))
            writer.add_key_value_metadata(_footer(options, record_keys))
        return sink.tell()  # the footer is written: no second look at the stored file


def _footer(options: HandleOptions, record_keys: pa.Array | None) -> dict[bytes, bytes]:
    metadata: dict[bytes, bytes] = {SPARK_ROW_METADATA: _spark_row_metadata(options).encode("utf-8")}
    if options.populate_meta_fields and record_keys is not None:  # an emptied file group too, as Java
        metadata.update(footer_metadata(record_keys.to_numpy(zero_copy_only=False), **options.file.bloom_options()))
    return metadata


def _rows_per_group(table: pa.Table, options: HandleOptions) -> int:
    """Rows per row group: below the row-group size and a quarter of the max file size (measured
    in memory, which is larger than on disk), so a file overshoots the max by less than one
    row group."""
    if table.num_rows == 0:
        return 1
    per_row = max(1, table.nbytes // table.num_rows)
    return max(1, min(options.file.row_group_bytes, max(1, options.file.max_file_size // 4)) // per_row)


def _spark_row_metadata(options: HandleOptions) -> str:
    data = json.loads(options.spark_schema_json)
    meta = [{"name": name, "type": "string", "nullable": True, "metadata": {}} for name in META_FIELDS]
    return json.dumps({"type": "struct", "fields": meta + data["fields"]}, separators=(",", ":"))


@dataclass(frozen=True)
class WrittenFile:
    file_id: str
    path: str
    size: int
    num_rows: int


def _next_file_id(file_id: str, step: int) -> str:
    """Java's ``createNewFileId(prefix, n)``: same prefix, next counter."""
    prefix, _, counter = file_id.rpartition("-")
    return f"{prefix}-{int(counter) + step}" if counter.isdigit() else f"{file_id}-{step}"


def write_marker(options: HandleOptions, layout: TableLayout, storage: Storage, marker: Marker) -> None:
    """Register *marker* before its data file exists: a marker file, or the driver's marker service."""
    if options.marker_server_url:
        post_marker(options.marker_server_url, marker.name)
    else:
        write_direct_marker(storage, layout, options.instant_time, marker)


def write_rolling(options: HandleOptions, partition_path: str, file_id: str, task: TaskIdentity, io_type: IOType,
                  table: pa.Table) -> list[WrittenFile]:
    """Write *table* as base files of at most ``max_file_size`` (plus one row group).

    When a file is full the rest rolls over to a new file group (the next file-id counter, as
    Java's handles do). Every row's ``_hoodie_file_name`` is the file it lands in, and each
    file carries its own bloom filter and key range.
    """
    storage = options.storage
    layout = TableLayout.of(options.base_path)
    rows_per_group = _rows_per_group(table, options)
    written: list[WrittenFile] = []
    start = 0
    while start < table.num_rows or not written:
        step = len(written)
        current_id = file_id if step == 0 else _next_file_id(file_id, step)
        name = BaseFileName(current_id, task.write_token, options.instant_time).name
        write_marker(options, layout, storage, Marker(partition_path, name, io_type if step == 0 else IOType.CREATE))
        path = layout.file_path(partition_path, name)
        first = start
        with storage.open_output(path) as sink, pq.ParquetWriter(
                sink, table.schema, **options.file.writer_options(table)) as writer:
            while start < table.num_rows:
                chunk = table.slice(start, rows_per_group)
                names = pa.repeat(pa.scalar(name), chunk.num_rows)
                chunk = chunk.set_column(chunk.schema.get_field_index(FILE_NAME_FIELD), FILE_NAME_FIELD, names)
                writer.write_table(chunk)
                start += chunk.num_rows
                if sink.tell() >= options.file.max_file_size:
                    break
            part = table.slice(first, start - first)
            keys = part.column(RECORD_KEY_FIELD).combine_chunks() if options.populate_meta_fields else None
            writer.add_key_value_metadata(_footer(options, keys))
        written.append(WrittenFile(current_id, path, storage.size(path), start - first))
        if table.num_rows == 0:
            break
    return written


def create_handle(options: HandleOptions, bucket: BucketInfo, records: pa.Table, target: pa.Schema,
                  task: TaskIdentity) -> list[WriteStatus]:
    """Write *records* (inserts, deletes already removed) as the base file(s) of new file groups."""
    started = time.time()
    layout = TableLayout.of(options.base_path)
    ensure_partition_metadata(options.storage, layout, bucket.partition_path, options.instant_time)
    keys = records.column(RECORD_KEY_FIELD).combine_chunks()
    meta = meta_columns(options, keys, bucket.partition_path, "", task.partition_id)
    table = _with_meta(records, target, meta)
    files = write_rolling(options, bucket.partition_path, bucket.file_id, task, IOType.CREATE, table)
    millis = int((time.time() - started) * 1000)
    return [WriteStatus(
        partition_path=bucket.partition_path, file_id=f.file_id, path=layout.relative(f.path),
        prev_commit="null", num_writes=f.num_rows, num_deletes=0, num_update_writes=0,
        num_inserts=f.num_rows, total_write_bytes=f.size, file_size=f.size, total_create_time=millis,
    ) for f in files]


def handle_payload(options: HandleOptions) -> Payload:
    """The write's payload: the class the plan names, else the one its ordering flag stands for."""
    return Payload.of(options.payload_class, default=Payload.unnamed(ordered=options.event_time_ordering))


def merge_handle(options: HandleOptions, bucket: BucketInfo, records: pa.Table, target: pa.Schema,
                 task: TaskIdentity, *, match_keys: bool = True, natural_deletes: bool = False
                 ) -> list[WriteStatus]:
    """Rewrite the bucket's base file with *records* merged in (a new slice of the same group).

    Args:
        match_keys: False for insert operations, whose records are appended even when their
            key exists (Hudi's insert does no index lookup, so duplicates are the user's choice).
        natural_deletes: the delete *operation*: its records delete whatever the stored
            ordering value (Java's ``EmptyHoodieRecordPayload``); ``_hoodie_is_deleted`` rows of an
            upsert compete on the ordering value like any update.
    """
    started = time.time()
    assert bucket.base_file_path is not None
    old = _stored_rows(options.storage, bucket, target)
    layout = TableLayout.of(options.base_path)
    incoming_keys = records.column(RECORD_KEY_FIELD).combine_chunks().cast(pa.string())
    is_delete = records.column(IS_DELETE_COLUMN).combine_chunks().fill_null(False)
    old_keys = _old_record_keys(old, options)

    if match_keys and len(incoming_keys):
        position = pc.index_in(old_keys, value_set=incoming_keys)  # incoming row per old row, or null
    else:
        position = pa.nulls(len(old_keys), pa.int32())
    # Only the stored rows an incoming record matches are merged (a daily batch updates a few
    # per cent of a file); the others are kept as they are.
    matched_rows = pc.indices_nonzero(pc.is_valid(position))
    deleted = np.zeros(old.num_rows, dtype=bool)
    updated = np.zeros(old.num_rows, dtype=bool)
    replacements = records.slice(0, 0)
    if len(matched_rows):
        incoming_rows = pc.take(position, matched_rows)
        incoming_delete = pc.take(is_delete, incoming_rows)
        outcome = merge_with_stored(handle_payload(options), old.take(matched_rows), records.take(incoming_rows),
                                    incoming_delete, options.ordering_field, merge_columns(records.column_names))
        deleted_matched = _as_numpy_mask(incoming_delete if natural_deletes else outcome.deleted)
        updated_matched = _as_numpy_mask(outcome.replaced) & ~deleted_matched
        at = matched_rows.to_numpy()
        deleted[at] = deleted_matched
        updated[at] = updated_matched
        replacements = outcome.rows.filter(pa.array(updated_matched))  # in stored-row order

    incoming_matched = pc.is_in(incoming_keys, value_set=old_keys) if match_keys else pa.array(
        [False] * len(incoming_keys), pa.bool_())
    new_inserts = pc.and_(pc.invert(incoming_matched), pc.invert(is_delete))

    # Old rows in their order: kept as they were, or replaced in place by the update.
    keep_rows = pa.array(~deleted)
    old_kept = old.filter(keep_rows)
    update_mask = updated[~deleted]
    n_updates = int(update_mask.sum())
    n_inserts = pc.sum(new_inserts).as_py() or 0
    inserted = records.filter(new_inserts)
    seq_updates = meta_columns(options, replacements.column(RECORD_KEY_FIELD).combine_chunks(),
                                bucket.partition_path, "", task.partition_id)
    seq_inserts = meta_columns(options, inserted.column(RECORD_KEY_FIELD).combine_chunks(),
                                bucket.partition_path, "", task.partition_id, seq_start=n_updates)
    old_part = _with_meta(old_kept, target, {f: old_kept.column(f) for f in META_FIELDS})
    upd_part = _with_meta(replacements, target, seq_updates)
    ins_part = _with_meta(inserted, target, seq_inserts)
    stacked = pa.concat_tables([old_part, upd_part])
    # Row i of the kept old rows is itself, or (updated) the k-th replacement after them.
    order = np.arange(old_part.num_rows, dtype=np.int64)
    order[update_mask] = old_part.num_rows + np.arange(n_updates, dtype=np.int64)
    merged = pa.concat_tables([stacked.take(pa.array(order)), ins_part])
    files = write_rolling(options, bucket.partition_path, bucket.file_id, task, IOType.MERGE, merged)
    cdc_stats: dict[str, int] = {}
    if options.cdc_logging_mode:
        # the inserts that landed in the group's own file (overflow files are new groups, read as inserts)
        in_first = max(0, files[0].num_rows - (merged.num_rows - ins_part.num_rows))
        changes = CdcChanges(inserted=ins_part.slice(0, in_first), updated_before=old.filter(pa.array(updated)),
                             updated_after=upd_part, deleted=old.filter(pa.array(deleted)))
        cdc_stats = write_cdc_log(options, bucket.partition_path, files[0].file_id, task.write_token, changes)
    millis = int((time.time() - started) * 1000)
    n_deletes = int(deleted.sum())
    statuses = []
    for index, f in enumerate(files):
        first = index == 0  # the file group itself; later files are new groups taking the overflow
        statuses.append(WriteStatus(
            partition_path=bucket.partition_path, file_id=f.file_id, path=layout.relative(f.path),
            prev_commit=bucket.prev_commit if first else "null", num_writes=f.num_rows,
            num_deletes=n_deletes if first else 0, num_update_writes=n_updates if first else 0,
            num_inserts=n_inserts if first else f.num_rows, total_write_bytes=f.size, file_size=f.size,
            total_upsert_time=millis, cdc_stats=json.dumps(cdc_stats if first else {}),
        ))
    return statuses


def _stored_rows(storage: Storage, bucket: BucketInfo, target: pa.Schema) -> pa.Table:
    """The rows of the bucket's base file as *target*; a bootstrap skeleton's stitched to its source."""
    assert bucket.base_file_path is not None
    if bucket.bootstrap_source_path is None:
        return conform(storage.read_parquet(bucket.base_file_path), target)

    return read_bootstrap_slice(BootstrapSlice(bucket.base_file_path, bucket.bootstrap_source_path,
                                               bucket.bootstrap_partition_values), target, storage)


def _as_numpy_mask(mask: pa.Array) -> np.ndarray:
    """A boolean Arrow array as numpy, null as False."""
    return np.asarray(mask.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _old_record_keys(old: pa.Table, options: HandleOptions) -> pa.Array:
    """Record keys of the stored rows: the meta column, or (meta fields off) the key recomputed."""
    if options.populate_meta_fields:
        return old.column(RECORD_KEY_FIELD).combine_chunks().cast(pa.string())

    return arrow_record_keys(old, RecordKeySpec(options.record_key_fields, composite=options.complex_keys))
