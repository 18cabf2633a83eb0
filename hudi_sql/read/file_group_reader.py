"""FileGroupReader: one file slice read as rows, its base file merged with its log blocks.

Runs inside Spark tasks (pyarrow + the log package, no Spark). The rules follow Hudi 0.14:

* only blocks of completed instants at or before the query instant count, and blocks of
  rolled-back instants are dropped (:func:`~hudi_sql.log.scanner.scan_file_slice_logs`);
* log records fold by key, the greater ordering value winning (ties: the later write);
* against the base row, the payload decides (:mod:`hudi_sql.model.payload`):
  ``OverwriteWithLatestAvroPayload`` lets the log record win unconditionally,
  ``DefaultHoodieRecordPayload`` keeps the base row when its ordering value is greater (event
  time), the partial-update payloads fill null fields from the other record;
* a partial update (Apache Hudi 1.x's log blocks with ``IS_PARTIAL=true``, holding the columns a
  ``MERGE … UPDATE SET`` assigned) that wins keeps its columns and takes the rest from the
  record it updates, in the log or the base file;
* a delete removes the base row; only version 8's ``EVENT_TIME_ORDERING`` keeps a base row
  whose ordering value is greater than the delete's (same type). Apache Hudi 0.15 applies a
  log delete to the base row whatever the payload (checked against it in
  ``tests/oracle/test_payload_differential.py``).

Records of one key meet by their record key: ``_hoodie_record_key``, or for a table without
meta fields (where that column is null) the key the key generator makes of the key fields
(*key_spec*, :meth:`~hudi_sql.table.meta_client.TableMetaClient.recomputed_key_spec`), computed
for base and log rows alike; the rows keep their null meta column.
"""

from __future__ import annotations

__all__ = ["FileSliceSpec", "read_file_slice", "stored_logs"]

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.log.block import DataBlock, OrderingValue
from hudi_sql.log.scanner import RecordBlock, merge_log_records, scan_file_slice_logs
from hudi_sql.model.payload import Payload, merge_columns, merge_with_stored
from hudi_sql.model.schema import RECORD_KEY_FIELD, conform
from hudi_sql.storage.fs import Storage


def stored_logs(storage: Storage, paths: Sequence[str]) -> list[tuple[str, Callable[[], bytes]]]:
    """``(path, reader)`` pairs for the log scanner: each file read from *storage* when scanned, and
    named by its whole path in messages (a damaged block's error says which file to restore)."""
    return [(p, partial(storage.read_bytes, p)) for p in paths]


@dataclass(frozen=True)
class FileSliceSpec:
    """What a task needs to read one slice (picklable; built by the read planner)."""

    partition_path: str
    file_id: str
    base_file_path: str | None
    log_file_paths: tuple[str, ...]


def read_file_slice(
    spec: FileSliceSpec,
    target: pa.Schema,
    *,
    completed_instants: Sequence[str],
    max_instant: str | None,
    timeline_start: str | None,
    ordering_field: str | None,
    payload: Payload,
    storage: Storage,
    skip_undecodable_blocks: bool = False,
    key_spec: RecordKeySpec | None = None,
) -> pa.Table:
    """The merged rows of one slice, with exactly *target*'s columns, by *payload*'s rules
    (*skip_undecodable_blocks*: see :func:`~hudi_sql.log.scanner.scan_file_slice_logs`; *key_spec*:
    the key fields of a table without meta fields, see the module doc)."""
    if not spec.log_file_paths:
        return conform(storage.read_parquet(spec.base_file_path), target) if spec.base_file_path \
            else target.empty_table()
    scan = scan_file_slice_logs(
        stored_logs(storage, spec.log_file_paths),
        completed_instants=completed_instants, max_instant=max_instant, timeline_start=timeline_start,
        skip_undecodable=skip_undecodable_blocks,
    )
    stored = storage.read_parquet(spec.base_file_path) if spec.base_file_path else None
    base = conform(stored, target) if stored is not None else target.empty_table()
    if not scan.blocks:
        return base
    blocks = scan.blocks if key_spec is None else [_keyed(b, key_spec) for b in scan.blocks]
    rules = payload.rules
    merged = merge_log_records(
        blocks, ordering_field=ordering_field, fill_nulls=rules.precombine_fills, columns=target.names,
    )
    log_rows = conform(merged.records, target) if merged.records.num_rows else target.empty_table()
    log_keys = log_rows.column(RECORD_KEY_FIELD).combine_chunks()
    if key_spec is None:
        base_keys = base.column(RECORD_KEY_FIELD).combine_chunks()
    else:  # keys of the stored rows from their key fields (read whole: the target may lack them)
        base_keys = arrow_record_keys(stored, key_spec) if stored is not None else pa.array([], pa.string())
        log_rows = _with_key_column(log_rows, pa.nulls(log_rows.num_rows, pa.string()))  # stored as null

    # Base rows met by a log record: merged by the payload (replaced, or kept when newer).
    position = pc.index_in(base_keys, value_set=log_keys)
    matched = pc.is_valid(position)
    parts = []
    if len(log_keys) and base.num_rows:
        at = position.fill_null(0)
        aligned = _with_stored_columns(log_rows.take(at), base, {c: m.take(at) for c, m in merged.absent.items()})
        no_deletes = pa.array([False] * base.num_rows, pa.bool_())
        outcome = merge_with_stored(payload, base, aligned, no_deletes, ordering_field, merge_columns(target.names))
        replaced = pc.and_(matched, outcome.replaced)
        parts.append(conform(outcome.rows.filter(replaced), target))
    else:
        replaced = pa.array([False] * base.num_rows, pa.bool_())

    # Base rows deleted by the logs.
    deleted = _deleted_mask(base, base_keys, merged.deletes, ordering_field, rules.ordered_log_deletes)
    keep_base = pc.invert(pc.or_(replaced, deleted))
    log_unmatched = pc.invert(pc.is_in(log_keys, value_set=base_keys))
    return pa.concat_tables([base.filter(keep_base), *parts, log_rows.filter(log_unmatched)])


def _with_stored_columns(aligned: pa.Table, base: pa.Table, absent: dict[str, pa.Array]) -> pa.Table:
    """The log rows aligned with the base rows, each column a partial update lacks (*absent*'s
    mask) taken from the stored row it updates."""
    for name, lacking in absent.items():
        if name not in aligned.column_names or name not in base.column_names:
            continue
        index = aligned.schema.get_field_index(name)
        stored = base.column(name).combine_chunks()
        column = pc.if_else(lacking, stored, aligned.column(name).combine_chunks())  # both in the target's types
        aligned = aligned.set_column(index, aligned.schema.field(index), column)
    return aligned


def _with_key_column(table: pa.Table, keys: pa.Array) -> pa.Table:
    """*table* with ``_hoodie_record_key`` set to *keys* (added when missing)."""
    index = table.schema.get_field_index(RECORD_KEY_FIELD)
    if index < 0:
        return table.append_column(RECORD_KEY_FIELD, keys)
    return table.set_column(index, table.schema.field(index), keys.cast(table.schema.field(index).type))


def _keyed(block: RecordBlock, key_spec: RecordKeySpec) -> RecordBlock:
    """A data block whose ``_hoodie_record_key`` holds the keys of its rows, computed from the key
    fields (delete blocks carry their keys already)."""
    if not isinstance(block, DataBlock):
        return block
    return replace(block, records=_with_key_column(block.records, arrow_record_keys(block.records, key_spec)))


def _deleted_mask(base: pa.Table, base_keys: pa.Array, deletes: Sequence[object], ordering_field: str | None,
                  event_time: bool) -> pa.Array:
    if not deletes:
        return pa.array([False] * len(base_keys), pa.bool_())
    by_key = {d.record_key: d for d in deletes}  # type: ignore[attr-defined]
    candidate = pc.is_in(base_keys, value_set=pa.array(list(by_key), pa.string()))
    if not event_time or not ordering_field or ordering_field not in base.column_names:
        return candidate
    flags = candidate.to_pylist()
    keys = base_keys.to_pylist()
    values = base.column(ordering_field).to_pylist()
    for index, is_candidate in enumerate(flags):
        if not is_candidate:
            continue
        delete = by_key[keys[index]]
        ordering = delete.ordering_value
        if ordering is None or ordering.is_natural or values[index] is None:
            continue
        stored = OrderingValue.infer(values[index])
        if stored.kind is ordering.kind and stored.value > ordering.value:
            flags[index] = False  # the stored row is newer than the delete
    return pa.array(flags, pa.bool_())
