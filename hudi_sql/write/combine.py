"""Precombine inside the write task: one record per key, the one with the highest ordering value.

Hudi deduplicates a batch before writing (``hoodie.combine.before.upsert`` / ``.insert``) with
the payload's ``preCombine``: the record with the greater ordering value wins, and among equal
ones the later arrival. ``PartialUpdateAvroPayload`` also fills the winner's null fields from
the records it beat, the next best first (:class:`~hudi_sql.model.payload.PayloadRules`). A
write task receives every record of its file group, and all records of one key (in one
partition) are routed to the same file group, so the task can combine them itself: the batch
is then never shuffled by key just to drop duplicates. Global indexes, whose duplicates may
sit in different partitions, still combine in Spark (:mod:`hudi_sql.write.prepare`).
"""

from __future__ import annotations

__all__ = ["ARRIVAL_COLUMN", "latest_per_key"]

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.model.payload import Payload, merge_columns
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.write.handles import IS_DELETE_COLUMN

ARRIVAL_COLUMN = "_hoodie_arrival"  # input order of a record, so later arrivals win ties


def latest_per_key(records: pa.Table, ordering_field: str | None,
                   payload: Payload = Payload.OVERWRITE_WITH_LATEST) -> pa.Table:
    """*records* without duplicate keys: per key the highest ordering value (nulls lowest: Arrow sorts them last), then
    the latest arrival; with a filling payload, its null fields taken from the others in that order (unless the
    winner is a delete). Rows keep no particular order. The arrival column is dropped."""
    keys = records.column(RECORD_KEY_FIELD)
    if records.num_rows > 1 and pc.count_distinct(keys).as_py() < records.num_rows:
        sort_keys = [(RECORD_KEY_FIELD, "ascending")]
        if ordering_field and ordering_field in records.column_names:
            sort_keys.append((ordering_field, "descending"))
        if ARRIVAL_COLUMN in records.column_names:
            sort_keys.append((ARRIVAL_COLUMN, "descending"))
        ordered = records.take(pc.sort_indices(records, sort_keys=sort_keys))
        sorted_keys = ordered.column(RECORD_KEY_FIELD).combine_chunks()
        first = pc.not_equal(sorted_keys.slice(1), sorted_keys.slice(0, len(sorted_keys) - 1))
        heads = pa.concat_arrays([pa.array([True]), first.fill_null(True)])
        records = ordered.filter(heads)
        if payload.rules.precombine_fills:
            records = _fill_from_runners_up(ordered, heads, records)
    if ARRIVAL_COLUMN in records.column_names:
        records = records.drop_columns([ARRIVAL_COLUMN])
    return records


def _fill_from_runners_up(ordered: pa.Table, heads: pa.Array, winners: pa.Table) -> pa.Table:
    """Null fields of each key's winner filled from the next records of its key, best first."""
    starts = np.flatnonzero(heads.to_numpy(zero_copy_only=False))
    sizes = np.diff(np.append(starts, ordered.num_rows))
    if IS_DELETE_COLUMN in winners.column_names:
        fillable = pc.invert(winners.column(IS_DELETE_COLUMN).combine_chunks().fill_null(False)).to_numpy(
            zero_copy_only=False)
    else:
        fillable = np.ones(len(starts), dtype=bool)
    out = winners
    for name in merge_columns(winners.column_names):
        column = ordered.column(name).combine_chunks()
        merged = out.column(name).combine_chunks()
        for depth in range(1, int(sizes.max())):
            has = (sizes > depth) & fillable
            if not has.any():
                break
            index = pa.array(np.where(has, starts + depth, 0), pa.int64(), mask=~has)
            merged = pc.if_else(pc.is_valid(merged), merged, pc.take(column, index))
        out = out.set_column(out.schema.get_field_index(name), out.schema.field(name), merged)
    return out
