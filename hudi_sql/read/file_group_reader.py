"""FileGroupReader: one file slice read as rows, its base file merged with its log blocks.

Runs inside Spark tasks (pyarrow + the log package, no Spark). The rules follow Hudi 0.14:

* only blocks of completed instants at or before the query instant count, and blocks of
  rolled-back instants are dropped (:func:`~hudi_sql.log.scanner.scan_file_slice_logs`);
* log records fold by key, the greater ordering value winning (ties: the later write);
* against the base row, ``OverwriteWithLatestAvroPayload`` lets the log record win
  unconditionally, ``DefaultHoodieRecordPayload`` keeps the base row when its ordering value
  is greater (event time);
* a delete removes the row, except an event-time delete whose ordering value is lower than
  the base row's (same type), as Java's delete rule says.
"""

from __future__ import annotations

__all__ = ["FileSliceSpec", "read_file_slice"]

import os
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_sql.log.block import OrderingValue
from hudi_sql.log.scanner import DeleteOrdering, merge_log_records, scan_file_slice_logs
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.write.handles import conform


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
    event_time_ordering: bool,
) -> pa.Table:
    """The merged rows of one slice, with exactly *target*'s columns."""
    base = conform(pq.read_table(spec.base_file_path), target) if spec.base_file_path else target.empty_table()
    if not spec.log_file_paths:
        return base
    scan = scan_file_slice_logs(
        [(os.path.basename(p), p) for p in spec.log_file_paths],
        completed_instants=completed_instants, max_instant=max_instant, timeline_start=timeline_start,
    )
    if not scan.blocks:
        return base
    merged = merge_log_records(
        scan.blocks, ordering_field=ordering_field,
        delete_ordering=DeleteOrdering.EVENT_TIME if event_time_ordering else DeleteOrdering.COMMIT_TIME,
    )
    log_rows = conform(merged.records, target) if merged.records.num_rows else target.empty_table()
    base_keys = base.column(RECORD_KEY_FIELD).combine_chunks()
    log_keys = log_rows.column(RECORD_KEY_FIELD).combine_chunks()

    # Base rows replaced by a log record (unless the base row is newer, event time).
    position = pc.index_in(base_keys, value_set=log_keys)
    replaced = pc.is_valid(position)
    log_loses = pa.array([False] * len(log_keys), pa.bool_())
    if event_time_ordering and ordering_field and ordering_field in target.names and len(log_keys):
        base_ord = base.column(ordering_field).combine_chunks()
        log_ord = pc.take(log_rows.column(ordering_field).combine_chunks(), position.fill_null(0))
        base_newer = pc.and_(replaced, pc.greater(base_ord, log_ord).fill_null(False))
        replaced = pc.and_(replaced, pc.invert(base_newer))
        losing_keys = base_keys.filter(base_newer)
        log_loses = pc.is_in(log_keys, value_set=losing_keys)

    # Base rows deleted by the logs.
    deleted = _deleted_mask(base, base_keys, merged.deletes, ordering_field, event_time_ordering)
    keep_base = pc.invert(pc.or_(replaced, deleted))
    return pa.concat_tables([base.filter(keep_base), log_rows.filter(pc.invert(log_loses))])


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
